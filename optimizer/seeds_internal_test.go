package optimizer

import "testing"

// TestCanonicalSeeds checks that the genetic search's seeds for GPUs and
// CPUs are points of the Table 2 space of kernels of 1 to 3 dimensions,
// with and without compute loops, and that repairing the CPU seeds keeps
// their shape.
func TestCanonicalSeeds(t *testing.T) {
	for _, c := range []struct {
		domain, loops []int
	}{
		{[]int{16384}, []int{16384}},
		{[]int{512, 512}, []int{256, 256}},
		{[]int{1024, 1024}, []int{1024}},
		{[]int{32, 32, 32}, []int{32, 32, 32}},
		{[]int{64, 64, 64}, []int{4096}},
		{[]int{2048, 2048}, nil}, // no compute loop (a stencil): no uf
		{[]int{16000003}, nil},
		{[]int{128, 128, 128}, nil},
	} {
		for _, cpu := range []bool{false, true} {
			space, _, err := Table2(Table2Spec{Domain: c.domain, Loops: c.loops, CPU: cpu})
			if err != nil {
				t.Fatal(err)
			}
			seeds := canonicalSeeds(c.domain, c.loops, cpu)
			if len(seeds) < 2 {
				t.Errorf("%v %v cpu=%v: %d seeds", c.domain, c.loops, cpu, len(seeds))
			}
			for _, m := range seeds {
				pt, err := space.PointOf(m)
				if err != nil {
					t.Errorf("%v cpu=%v: seed %v: %v", c.domain, cpu, m, err)
					continue
				}
				got := space.Repair(pt).Map()
				// Values outside the space are repaired (a tile as long as
				// its loop, a work-group larger than the blocks); the shape
				// of a CPU seed, runs of 16 points in vectors of 4 along x,
				// stays, as does the vector width of the vector shapes
				// where vectors divide the points along x.
				vec := m["vec"]
				if c.domain[0]%vec != 0 {
					vec = 1
				}
				if cpu && (got["bszx"] != m["bszx"] || got["vw"] != m["vw"] || got["lmem"] != m["lmem"] || got["vec"] != vec) {
					t.Errorf("%v %v: CPU seed %v repaired to %v", c.domain, c.loops, m, got)
				}
			}
		}
	}
}

// TestNearSeeds checks that a GPU search of a 2D kernel with a compute loop
// starts from the float4 shapes (vw 4, pack, prefetch) and the float2
// shape of 8x16 points (vw 2, warp tiles of 16) after the
// single-point setting, and that a space whose tiles cannot be transposed
// gets them with ltrans set back to 0.
func TestNearSeeds(t *testing.T) {
	for _, transposable := range []bool{true, false} {
		space, _, err := Table2(Table2Spec{Domain: []int{4096, 4096}, Loops: []int{4096}, Transposable: transposable})
		if err != nil {
			t.Fatal(err)
		}
		seeds := canonicalSeeds([]int{4096, 4096}, []int{4096}, false)
		for i, want := range []map[string]int{
			{"lszx": 16, "lszy": 16, "warp": 0, "tw0": 16, "uf": 4, "bszy": 8, "vw": 4, "lcopy": 0},
			{"lszx": 32, "lszy": 16, "warp": 2, "tw0": 8, "uf": 4, "bszy": 8, "vw": 4, "lcopy": 0},
			{"lszx": 16, "lszy": 32, "warp": 2, "tw0": 8, "uf": 8, "bszy": 8, "vw": 4, "lcopy": 0},
			{"lszx": 32, "lszy": 8, "warp": 16, "tw0": 8, "uf": 8, "bszy": 16, "vw": 2, "lcopy": 1},
		} {
			pt, err := space.PointOf(seeds[i])
			if err != nil {
				t.Fatal(err)
			}
			got := space.Repair(pt).Map()
			want["pack"], want["prefetch"], want["bszx"], want["lmem"] = 1, 1, 8, 1
			want["ltrans"] = 0
			if transposable {
				want["ltrans"] = 1
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("transposable=%v seed %d: %s=%d, want %d (%v)", transposable, i, k, got[k], v, got)
				}
			}
		}
	}
}

// TestConvSeeds checks that a GPU search of a 2D or 3D convolution (a
// compute loop along each dimension) starts from 16x2 points per work-item
// in work-groups of 2x64 (2D) or 2x32 (3D) items with tiles of 16 along y
// and x and 1 along z, then from the float2 shape, both points of the
// Table 2 space that Repair keeps as they are.
func TestConvSeeds(t *testing.T) {
	for _, c := range []struct {
		domain, loops []int
		first         map[string]int
	}{
		{[]int{2048, 2048}, []int{256, 256}, map[string]int{"lszx": 2, "lszy": 64, "bszx": 16, "bszy": 2, "tw0": 16, "tw1": 16, "vw": 1, "interleave": 0}},
		{[]int{128, 128, 128}, []int{128, 128, 128}, map[string]int{"lszx": 2, "lszy": 32, "lszz": 1, "bszx": 16, "bszy": 2, "bszz": 1, "tw0": 1, "tw1": 16, "tw2": 16, "vw": 1}},
	} {
		space, _, err := Table2(Table2Spec{Domain: c.domain, Loops: c.loops})
		if err != nil {
			t.Fatal(err)
		}
		seeds := canonicalSeeds(c.domain, c.loops, false)
		for i, want := range []map[string]int{c.first, {"lszx": 2, "lszy": 16, "bszx": 16, "bszy": 2, "vw": 2, "pack": 1}} {
			pt, err := space.PointOf(seeds[i])
			if err != nil {
				t.Fatalf("%v seed %d: %v", c.domain, i, err)
			}
			got := space.Repair(pt).Map()
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%v seed %d: %s=%d, want %d (%v)", c.domain, i, k, got[k], v, got)
				}
			}
		}
	}
}
