package transforms_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/transforms"
)

// TestCopyOffsets: with coff, each round of a copy into local memory
// indexes its element as the work-item's plus constants, and the variants
// compute what the kernels do (run on PoCL against the reference), for
// copies written out and in loops, with prefetch into registers and double
// buffers, transposed tiles, fission, and a work-group whose size is not a
// multiple of a tile's row (whose rounds keep a remainder).
func TestCopyOffsets(t *testing.T) {
	s, err := opencl.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		kernel string
		n, k   []int
		sets   []string
		want   [][]string // per setting, text the source must hold
	}{
		{"matmul", []int{64, 64}, []int{32}, []string{
			"lszx=8,lszy=8,bszx=2,bszy=2,fullunroll=1,lmem=1,lcopy=1,tw0=8,coff=1",
			"lszx=8,lszy=8,bszx=2,bszy=2,fullunroll=1,lmem=1,lcopy=0,tw0=16,coff=1",
			"lszx=8,lszy=8,bszx=4,bszy=4,fullunroll=1,interleave=1,vw=4,lmem=1,tw0=8,uf=4,ltrans=1,pack=1,prefetch=1,coff=1",
			"lszx=4,lszy=16,bszx=4,bszy=2,fullunroll=1,interleave=1,vw=2,lmem=1,lcopy=1,tw0=8,uf=8,ltrans=1,pack=1,prefetch=2,warp=2,coff=1",
			"lszx=8,lszy=2,bszx=4,bszy=2,fullunroll=1,lmem=1,lcopy=1,tw0=16,coff=1",
		}, [][]string{
			{"int i0_a = (lidx + lidy * 8) / 8 + r_a * 8;", "int i1_a = (lidx + lidy * 8) % 8;"},
			{"l_a[(lidx + lidy * 8) / 16 + 4][(lidx + lidy * 8) % 16]"},
			nil,
			nil,
			// l_b's rows are 32 long, the work-group 16 items: the row's
			// index keeps its division of e, the column a remainder.
			{"int i0_b = e_b / 32;", "int i1_b = (lidx + lidy * 8 + r_b * 16) % 32;"},
		}},
		{"syr2k", []int{64, 64}, []int{32}, []string{
			"lszx=8,lszy=8,bszx=4,bszy=4,fullunroll=1,interleave=1,vw=4,lmem=1,tw0=8,uf=4,ltrans=1,pack=1,prefetch=1,fission=1,coff=1",
			"lszx=8,lszy=8,bszx=2,bszy=2,fullunroll=1,lmem=1,tw0=16,prefetch=1,coff=1",
		}, nil},
		{"syrk", []int{64, 64}, []int{32}, []string{
			"lszx=16,lszy=8,bszx=2,bszy=4,fullunroll=1,lmem=1,lcopy=0,tw0=16,ltrans=1,prefetch=1,coff=1",
		}, nil},
	} {
		prob, srcs := sourcesRun(t, s, c.kernel, c.n, c.k, c.sets)
		eDiv := regexp.MustCompile(`\(lidx \+ lidy \* \d+ \+ \d+\) [/%]`)
		for i, src := range srcs {
			if i < len(c.want) {
				for _, w := range c.want[i] {
					if !strings.Contains(src, w) {
						t.Errorf("%s %s: no %q in\n%s", c.kernel, c.sets[i], w, src)
					}
				}
			}
			// Written-out rounds no longer divide the work-item's element
			// plus a round's offset (a multiple of the stride).
			if strings.Contains(c.sets[i], "lcopy=0") {
				if m := eDiv.FindString(src); m != "" {
					t.Errorf("%s %s: a round still divides %s:\n%s", c.kernel, c.sets[i], m, src)
				}
			}
			off := strings.Replace(c.sets[i], "coff=1", "coff=0", 1)
			_, p := completed(t, prob, off)
			v0, err := transforms.ApplyChecked(prob, p)
			if err != nil {
				t.Fatalf("%s: %v", off, err)
			}
			if src0, _ := codegen.Source(v0.Kernel); src0 == src {
				t.Errorf("%s %s: the same code as with coff=0", c.kernel, c.sets[i])
			}
		}
	}
}

// TestCopyOffsetsIllegal: coff needs lmem, and a copy of two or more
// rounds to fold.
func TestCopyOffsetsIllegal(t *testing.T) {
	matmul, _ := benchInstance(t, "matmul", []int{64, 64}, []int{32})
	prob := problemOf(t, matmul, nil)
	wantIllegal(t, prob, "lszx=8,lszy=8,coff=1", "coff=1 needs lmem=1")
	// 8x8 items copy each 8x8 tile in one round.
	wantIllegal(t, prob, "lszx=8,lszy=8,bszx=1,bszy=1,lmem=1,tw0=8,coff=1", "nothing to fold")
}
