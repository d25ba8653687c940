package transforms_test

import (
	"strings"
	"testing"

	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/transforms"
)

// TestFission checks that fission=1 splits SYR2K's tile loop into two,
// each staging only its term's two tiles (l_a and l_b, then l_b2 and
// l_a2), with their prologue copies, prefetch registers and vector reads,
// that fission=2 keeps one loop that uses the first term's tiles before
// the second's in each step, and that such variants, across prefetch 0 to 2, unrolled points or not,
// packed reads or not, split and vectors, compute the single-point
// kernel's result on the OpenCL device.
func TestFission(t *testing.T) {
	s, err := opencl.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in, size := benchInstance(t, "syr2k", []int{64, 64}, []int{32})
	prob := problemOf(t, in, s.Device)
	settings := []string{
		"lszx=8,lszy=8,bszx=2,bszy=2,fullunroll=1,lmem=1,tw0=8,fission=1",
		"lszx=8,lszy=8,bszx=4,bszy=4,fullunroll=1,interleave=1,vw=4,lmem=1,tw0=8,uf=4,ltrans=1,pack=1,prefetch=1,fission=1",
		"lszx=4,lszy=16,bszx=4,bszy=2,fullunroll=1,interleave=1,vw=2,lmem=1,lcopy=1,tw0=8,uf=8,ltrans=1,pack=1,prefetch=2,warp=2,fission=1",
		"lszx=8,lszy=8,bszx=2,bszy=2,fullunroll=0,lmem=1,tw0=16,uf=2,prefetch=1,fission=1",
		"lszx=8,lszy=8,bszx=4,bszy=1,vec=4,fullunroll=1,lmem=1,tw0=8,prefetch=1,fission=1",
		"lszx=8,lszy=8,bszx=2,bszy=2,fullunroll=1,lmem=1,tw0=8,prefetch=1,split=2,fission=1",
	}
	// fission=2: one tile loop, each step the two terms' steps in turn.
	for _, set := range settings[:4] {
		settings = append(settings, strings.Replace(set, "fission=1", "fission=2", 1))
	}
	vs, ps := variantsOf(t, prob, settings)
	for i, v := range vs {
		src, err := codegen.Source(v.Kernel)
		if err != nil {
			t.Fatal(err)
		}
		var loops []string // the tile loops, from "for" to the closing brace
		for rest := src; ; {
			i := strings.Index(rest, "for (int k_t = ")
			if i < 0 {
				break
			}
			body := braced(rest[i:])
			loops, rest = append(loops, body), rest[i+len(body):]
		}
		if strings.Contains(settings[i], "fission=2") {
			// One loop; in it, the first term's tiles before the second's.
			if len(loops) != 1 {
				t.Errorf("%s: %d tile loops, want 1:\n%s", settings[i], len(loops), src)
				continue
			}
			last1 := max(strings.LastIndex(loops[0], "l_a["), strings.LastIndex(loops[0], "l_b["))
			first2 := min(strings.Index(loops[0], "l_b2["), strings.Index(loops[0], "l_a2["))
			if first2 < 0 || last1 > first2 {
				t.Errorf("%s: the second term's tiles are used before the first's last use:\n%s", settings[i], loops[0])
			}
			continue
		}
		if len(loops) != 2 {
			t.Errorf("%s: %d tile loops, want 2:\n%s", settings[i], len(loops), src)
			continue
		}
		// Each loop reads and writes only its term's tiles.
		for j, want := range [][2]string{{"l_a[", "l_b["}, {"l_b2[", "l_a2["}} {
			for _, w := range want {
				if !strings.Contains(loops[j], w) {
					t.Errorf("%s: tile loop %d does not use %s", settings[i], j+1, w)
				}
			}
			for _, other := range [][2]string{{"l_b2[", "l_a2["}, {"l_a[", "l_b["}}[j] {
				if strings.Contains(loops[j], other) {
					t.Errorf("%s: tile loop %d uses %s, the other term's tile:\n%s", settings[i], j+1, other, loops[j])
				}
			}
		}
		// With prefetch, the second term's first tile is copied after
		// the first loop.
		if !strings.Contains(settings[i], "prefetch") {
			continue
		}
		if between := src[strings.Index(src, loops[0])+len(loops[0]) : strings.Index(src, loops[1])]; !strings.Contains(between, "l_b2[") || !strings.Contains(between, "barrier") {
			t.Errorf("%s: no copy of l_b2's first tile and barrier between the loops:\n%s", settings[i], between)
		}
	}
	runBatch(t, s, in, size, vs, ps)
}

// TestFissionIllegal: fission needs lmem and a tile loop, and a loop
// whose local arrays fall in two groups at least: MATMUL's one product
// reads its two tiles together.
func TestFissionIllegal(t *testing.T) {
	syr2k, _ := benchInstance(t, "syr2k", []int{64, 64}, []int{32})
	matmul, _ := benchInstance(t, "matmul", []int{64, 64}, []int{32})
	for _, c := range []struct {
		prob *transforms.Problem
		set  string
		want string
	}{
		{problemOf(t, syr2k, nil), "lszx=8,lszy=8,fission=1", "needs lmem=1"},
		{problemOf(t, syr2k, nil), "lszx=8,lszy=8,lmem=1,fission=1", "no compute loop is split into tiles"},
		{problemOf(t, matmul, nil), "lszx=8,lszy=8,lmem=1,tw0=8,prefetch=1,fission=1", "in one group: nothing to split"},
		{problemOf(t, matmul, nil), "lszx=8,lszy=8,lmem=1,tw0=8,prefetch=1,fission=2", "in one group: nothing to split"},
		{problemOf(t, syr2k, nil), "lszx=8,lszy=8,lmem=1,tw0=8,fission=3", "want 0, 1 or 2"},
	} {
		wantIllegal(t, c.prob, c.set, c.want)
	}
}

// braced returns the prefix of s up to the brace that closes its first
// opening brace.
func braced(s string) string {
	depth := 0
	for i, c := range s {
		switch c {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return s[:i+1]
			}
		}
	}
	return s
}

// TestFissionable: of the paper's kernels only SYR2K accumulates a sum of
// terms that read different elements (a[y][k]*b[x][k] + b[y][k]*a[x][k]);
// SYRK's a[y][k]*a[x][k] and NBODY's sums of one body's terms do not.
func TestFissionable(t *testing.T) {
	for _, name := range []string{"conv1d", "conv2d", "conv3d", "matmul", "nbody", "dcs3d", "syrk", "syr2k"} {
		b, err := kernels.Find(name)
		if err != nil {
			t.Fatal(err)
		}
		size := b.Sizes["tiny"]
		in, err := b.Instance(size, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := transforms.Fissionable(problemOf(t, in, nil)), name == "syr2k"; got != want {
			t.Errorf("%s: Fissionable %v, want %v", name, got, want)
		}
	}
}
