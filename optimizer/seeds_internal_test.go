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
