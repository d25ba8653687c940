package transforms_test

import (
	"strings"
	"testing"

	"github.com/hplopt/hplopt/opencl"
)

// TestPrefetchUnguarded: prefetch=3 reads the next tile into registers and
// stores it into local memory with no branch around either, the last step
// reading its own tile again; the variants compute what the kernels do (on
// PoCL against the reference), with copies written out and in loops, a
// tile that does not divide its loop, coff, and fission's two forms.
func TestPrefetchUnguarded(t *testing.T) {
	s, err := opencl.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		kernel string
		n, k   []int
		sets   []string
	}{
		{"matmul", []int{64, 64}, []int{36}, []string{
			"lszx=8,lszy=8,bszx=2,bszy=2,fullunroll=1,lmem=1,tw0=8,prefetch=3",
			"lszx=8,lszy=8,bszx=4,bszy=4,fullunroll=1,interleave=1,vw=4,lmem=1,lcopy=1,tw0=12,uf=4,ltrans=1,pack=1,prefetch=3,coff=1",
		}},
		{"syr2k", []int{64, 64}, []int{32}, []string{
			"lszx=8,lszy=8,bszx=2,bszy=2,fullunroll=1,lmem=1,tw0=8,prefetch=3",
			"lszx=8,lszy=8,bszx=4,bszy=4,fullunroll=1,interleave=1,vw=4,lmem=1,tw0=8,uf=4,ltrans=1,pack=1,prefetch=3,fission=1,coff=1",
			"lszx=8,lszy=8,bszx=2,bszy=2,fullunroll=1,lmem=1,tw0=16,prefetch=3,fission=2",
		}},
		{"conv2d", []int{48, 32}, []int{5, 3}, []string{
			"lszx=8,lszy=4,lmem=1,tw0=1,tw1=3,prefetch=3",
		}},
	} {
		_, srcs := sourcesRun(t, s, c.kernel, c.n, c.k, c.sets)
		for i, src := range srcs {
			if !strings.Contains(src, "int k_pf") && !strings.Contains(src, "_pf = ") {
				t.Errorf("%s %s: no base of the tile to read:\n%s", c.kernel, c.sets[i], src)
			}
			if strings.Contains(src, "if (k_t + ") {
				t.Errorf("%s %s: a guard on the next tile is left:\n%s", c.kernel, c.sets[i], src)
			}
		}
	}
}

// TestPrefetchIllegal: prefetch takes 0 to 3, and needs lmem and a tile
// loop.
func TestPrefetchIllegal(t *testing.T) {
	matmul, _ := benchInstance(t, "matmul", []int{64, 64}, []int{32})
	prob := problemOf(t, matmul, nil)
	wantIllegal(t, prob, "lszx=8,lszy=8,lmem=1,tw0=8,prefetch=4", "want 0, 1, 2 or 3")
	wantIllegal(t, prob, "lszx=8,lszy=8,tw0=8,prefetch=3", "needs lmem=1")
	wantIllegal(t, prob, "lszx=8,lszy=8,lmem=1,prefetch=3", "no compute loop is split into tiles")
}
