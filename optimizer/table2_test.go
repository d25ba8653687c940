package optimizer

import (
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/transforms"
)

func TestTileSizes(t *testing.T) {
	for _, tc := range []struct {
		l    int
		want []int
	}{
		{1024, []int{0, 4, 8, 16, 32, 64, 128, 256}},
		{1000, []int{0, 4, 8, 20, 40, 50, 125, 250}},
		{100, []int{0, 2, 4, 10, 20, 25, 50}},
		{7, []int{0, 2, 4}},
		{3, []int{0, 2}},
		{2, []int{0}},
		{1, []int{0}},
		{0, []int{0, 4, 8, 16, 32, 64, 128, 256}}, // unknown length
		{96, []int{0, 2, 4, 8, 16, 32, 48}},
	} {
		if got := tileSizes(tc.l); !slices.Equal(got, tc.want) {
			t.Errorf("tileSizes(%d) = %v, want %v", tc.l, got, tc.want)
		}
	}
}

func TestGlobalSizes(t *testing.T) {
	for _, tc := range []struct {
		blocks, lsz int
		want        []int
	}{
		{1024, 64, []int{64, 128, 256, 512, 1024}},
		{1024, 1, []int{32, 64, 128, 256, 512, 1024}},
		{1000, 64, []int{64, 128, 256, 512, 1024}},
		{1000, 16, []int{32, 64, 128, 256, 512, 1008}},
		{3, 4, []int{4}},
		{1, 1, []int{1}},
	} {
		if got := globalSizes(tc.blocks, tc.lsz); !slices.Equal(got, tc.want) {
			t.Errorf("globalSizes(%d, %d) = %v, want %v", tc.blocks, tc.lsz, got, tc.want)
		}
	}
}

func TestTable2Errors(t *testing.T) {
	for _, tc := range []struct {
		spec Table2Spec
		want string
	}{
		{Table2Spec{}, "0 global dimensions"},
		{Table2Spec{Domain: []int{1, 2, 3, 4}}, "4 global dimensions"},
		{Table2Spec{Domain: []int{8}, Loops: []int{1, 2, 3, 4}}, "4 compute loops"},
		{Table2Spec{Domain: []int{8, 0}}, "domain size 0 along y"},
	} {
		if _, _, err := Table2(tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Table2(%+v): err = %v, want %q", tc.spec, err, tc.want)
		}
	}
}

func TestTable2Names(t *testing.T) {
	for _, tc := range []struct {
		dims, loops int
		want        string
	}{
		{1, 0, "bszx,fullunroll,interleave,vw,vec,lszx,szx,lmem,lcopy,ftz,coff"},
		{2, 1, "bszx,bszy,fullunroll,interleave,vw,vec,lszx,szx,lszy,warp,szy,gswz,tw0,uf,lmem,lcopy,pack,ltrans,prefetch,split,ftz,fission,coff"},
		{3, 3, "bszx,bszy,bszz,fullunroll,interleave,vw,vec,lszx,szx,lszy,warp,szy,gswz,lszz,szz,tw0,tw1,tw2,uf,lmem,lcopy,pack,ltrans,prefetch,split,ftz,fission,coff"},
	} {
		spec := Table2Spec{Domain: make([]int, tc.dims), Loops: make([]int, tc.loops)}
		for i := range spec.Domain {
			spec.Domain[i] = 64
		}
		s, _, err := Table2(spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(s.Names(), ","); got != tc.want {
			t.Errorf("dims %d loops %d: names %s, want %s", tc.dims, tc.loops, got, tc.want)
		}
		// Same parameters as transforms.Relevant.
		var rel []string
		for _, n := range transforms.Relevant(tc.dims, tc.loops) {
			rel = append(rel, string(n))
		}
		names := s.Names()
		slices.Sort(rel)
		slices.Sort(names)
		if !slices.Equal(rel, names) {
			t.Errorf("dims %d loops %d: names %v, transforms.Relevant %v", tc.dims, tc.loops, names, rel)
		}
	}
}

// checkTable2 checks p against the documented Table 2 rules, independently
// of the space's ranges.
func checkTable2(t *testing.T, spec Table2Spec, tp transforms.Params) {
	t.Helper()
	maxWG := spec.MaxWorkGroup
	if maxWG == 0 {
		maxWG = 1024
	}
	wg := 1
	anyBlock := false
	for d, n := range spec.Domain {
		sz, lsz, bsz := tp.Global[d], tp.Local[d], tp.Block[d]
		sizes := []int{1, 2, 4, 8, 16}
		if d == 0 && spec.CPU {
			sizes = append(sizes, 32, 64)
		}
		if !slices.Contains(sizes, bsz) || bsz > n {
			t.Fatalf("%v: bsz along %d", tp, d)
		}
		anyBlock = anyBlock || bsz > 1
		blocks := (n + bsz - 1) / bsz
		lim := 1024
		if w := spec.MaxWorkItems[d]; w > 0 {
			lim = min(lim, w)
		}
		if lsz < 1 || lsz&(lsz-1) != 0 || lsz > lim || (lsz > 1 && lsz/2 >= blocks) {
			t.Fatalf("%v: lsz along %d", tp, d)
		}
		wg *= lsz
		if sz < lsz || sz%lsz != 0 || sz > (blocks+lsz-1)/lsz*lsz {
			t.Fatalf("%v: sz along %d", tp, d)
		}
	}
	for d := len(spec.Domain); d < 3; d++ {
		if tp.Global[d] != 0 || tp.Local[d] != 0 || tp.Block[d] != 0 {
			t.Fatalf("%v: values for missing dimension %d", tp, d)
		}
	}
	if wg > maxWG {
		t.Fatalf("%v: work-group of %d", tp, wg)
	}
	if (tp.FullUnroll || tp.Interleave) && !anyBlock {
		t.Fatalf("%v: fullunroll or interleave without blocks", tp)
	}
	for i := range 3 {
		tw := tp.Tile[i]
		if i >= len(spec.Loops) {
			if tw != 0 {
				t.Fatalf("%v: tile for missing loop %d", tp, i)
			}
			continue
		}
		// A tile of 1 only along a loop with loops inside it.
		outer := i < len(spec.Loops)-1
		if l := spec.Loops[i]; tw != 0 && !(tw == 1 && outer) && (tw < 2 || tw > 256 || (l > 0 && tw >= l)) {
			t.Fatalf("%v: tw%d", tp, i)
		}
	}
	run := tp.Block[0]
	if tp.Interleave {
		run = min(run, max(1, tp.Chunk))
	}
	if v := tp.Vec; v != 0 && (v < 2 || v > 16 || run%v != 0 || spec.Domain[0]%v != 0 || (spec.CPU && v == 2) || (!spec.CPU && v > 4)) {
		t.Fatalf("%v: vec", tp)
	}
	if !tp.LocalMem && (tp.Pack || tp.Transpose || tp.Prefetch != 0 || tp.LoopCopy || tp.CopyOffsets) {
		t.Fatalf("%v: lmem's extensions without lmem", tp)
	}
	if tp.CopyOffsets && spec.CPU {
		t.Fatalf("%v: coff on a CPU", tp)
	}
	if tp.Transpose && !spec.Transposable {
		t.Fatalf("%v: ltrans on a kernel that is not transposable", tp)
	}
	if tp.Prefetch != 0 && (spec.CPU || tp.Prefetch > 2 || tp.Tile == [3]int{}) {
		t.Fatalf("%v: prefetch", tp)
	}
	if w := tp.Warp; w != 0 {
		x, y := tp.Local[0], tp.Local[1]
		if spec.CPU || len(spec.Domain) < 2 || 32%w != 0 || w >= min(x, 32) || x%w != 0 || y%(32/w) != 0 {
			t.Fatalf("%v: warp", tp)
		}
	}
	if g := tp.Swizzle; g != 0 {
		if spec.CPU || len(spec.Domain) < 2 || g > 8 || tp.Global[0]/tp.Local[0] < 2 || (tp.Global[1]/tp.Local[1])%g != 0 {
			t.Fatalf("%v: gswz", tp)
		}
	}
	if n := tp.Split; n != 0 {
		l := 0
		if len(spec.Loops) > 0 {
			l = spec.Loops[0]
		}
		if spec.CPU || len(spec.Domain) == 3 || l <= 0 || n < 2 || n > 32 || n&(n-1) != 0 || wg*n > maxWG || l%n != 0 ||
			tp.Tile[0] != 0 && (l/n)%tp.Tile[0] != 0 {
			t.Fatalf("%v: split", tp)
		}
	}
	if n := len(spec.Loops); n == 0 {
		if tp.Unroll != 0 || tp.LocalMem && !spec.Halo {
			t.Fatalf("%v: uf or lmem without loops (or a halo)", tp)
		}
	} else {
		T := tp.Tile[n-1]
		if T == 0 {
			T = spec.Loops[n-1]
		}
		if !slices.Contains([]int{1, 2, 4, 8, 16}, tp.Unroll) || (T > 0 && T%tp.Unroll != 0) {
			t.Fatalf("%v: uf", tp)
		}
	}
}

// bruteTable2 counts a 1D or 2D Table 2 space by listing a superset of it
// and filtering with the documented rules.
func bruteTable2(spec Table2Spec) int {
	pow2 := []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}
	type geo struct{ b, l, s int }
	var perDim [][]geo
	for d, n := range spec.Domain {
		var g []geo
		lim := 1024
		if w := spec.MaxWorkItems[d]; w > 0 {
			lim = w
		}
		sizes := []int{1, 2, 4, 8, 16}
		if d == 0 && spec.CPU {
			sizes = append(sizes, 32, 64)
		}
		for _, b := range sizes {
			if b > n {
				continue
			}
			blocks := (n + b - 1) / b
			for _, l := range pow2 {
				if l > lim || (l > 1 && l/2 >= blocks) {
					continue
				}
				for s := l; s <= (blocks+l-1)/l*l; s += l {
					// s gives each work-item 2^k blocks for some k < 6.
					ok := false
					for k := range 6 {
						if (((blocks+(1<<k)-1)>>k)+l-1)/l*l == s {
							ok = true
						}
					}
					if ok {
						g = append(g, geo{b, l, s})
					}
				}
			}
		}
		perDim = append(perDim, g)
	}
	maxWG := spec.MaxWorkGroup
	if maxWG == 0 {
		maxWG = 1024
	}
	count := 0
	chosen := make([]geo, len(perDim))
	var rec func(d, wg, largest int)
	rec = func(d, wg, largest int) {
		if d == len(perDim) {
			// vec's widths that divide a run of points along x.
			vecs := func(run int) int {
				n := 1
				widths := []int{2, 4}
				if spec.CPU {
					widths = []int{4, 8, 16}
				}
				for _, w := range widths {
					if w <= run && run%w == 0 && spec.Domain[0]%w == 0 {
						n++
					}
				}
				return n
			}
			bx := chosen[0].b
			n := vecs(bx)
			if largest > 1 {
				// fullunroll x (interleave 0, or interleave 1 with runs
				// vw of 1, 2 and 4 shorter than the largest block), each
				// with its vec widths.
				runs := vecs(bx)
				for _, v := range []int{1, 2, 4} {
					if v == 1 || v < largest {
						runs += vecs(min(v, bx))
					}
				}
				n = 2 * runs
			}
			rest := 1
			// coff 0, or 0 and 1 on a GPU, with lmem.
			coff := 2
			if spec.CPU {
				coff = 1
			}
			if spec.Halo {
				rest = 1 + 2*coff // lmem 0, or lmem 1 with lcopy 0 or 1
			}
			if len(spec.Loops) > 0 {
				// tw (one loop) x uf x (lmem 0, or lmem 1 with lcopy 0 or
				// 1, pack 0 or 1, ltrans 0 or 1 when transposable, and
				// prefetch 0, 1 or 2 on a GPU with a tile).
				rest = 0
				for _, tw := range tileSizes(spec.Loops[0]) {
					T := tw
					if T == 0 {
						T = spec.Loops[0]
					}
					// split 1, and on a GPU the parts that divide the
					// loop into parts the tile divides, within the
					// work-group.
					splits := 1
					if l := spec.Loops[0]; !spec.CPU && len(spec.Domain) < 3 && l > 0 {
						for _, n := range []int{2, 4, 8, 16, 32} {
							if wg*n <= maxWG && l%n == 0 && (tw == 0 || (l/n)%tw == 0) {
								splits++
							}
						}
					}
					lmem := 2 * 2 * coff
					if spec.Transposable {
						lmem *= 2
					}
					if tw > 0 && !spec.CPU {
						lmem *= 3
					}
					for _, u := range []int{1, 2, 4, 8, 16} {
						if u <= T && T%u == 0 {
							rest += (1 + lmem) * splits
						}
					}
				}
			}
			if len(perDim) >= 2 && !spec.CPU {
				// warp x gswz.
				x, y := chosen[0], chosen[1]
				warps := 1
				for _, w := range []int{1, 2, 4, 8, 16} {
					if w < min(x.l, 32) && x.l%w == 0 && y.l%(32/w) == 0 {
						warps++
					}
				}
				bands := 1
				for _, g := range []int{2, 4, 8} {
					if x.s/x.l >= 2 && (y.s/y.l)%g == 0 {
						bands++
					}
				}
				rest *= warps * bands
			}
			count += n * rest
			return
		}
		for _, g := range perDim[d] {
			if wg*g.l <= maxWG {
				chosen[d] = g
				rec(d+1, wg*g.l, max(largest, g.b))
			}
		}
	}
	rec(0, 1, 1)
	return count
}

func TestTable2Small(t *testing.T) {
	for _, spec := range []Table2Spec{
		{Domain: []int{8}},
		{Domain: []int{8, 5}, Halo: true},
		{Domain: []int{100}, Loops: []int{12}},
		{Domain: []int{100}, Loops: []int{12}, CPU: true},
		{Domain: []int{21, 9}, Loops: []int{6}, MaxWorkGroup: 64, MaxWorkItems: [3]int{32, 8}, Transposable: true},
		{Domain: []int{64, 8}, Loops: []int{6}, MaxWorkGroup: 64, CPU: true},
	} {
		s, toParams, err := Table2(spec)
		if err != nil {
			t.Fatal(err)
		}
		size := s.Size()
		if want := bruteTable2(spec); size.Cmp(big.NewInt(int64(want))) != 0 {
			t.Errorf("%+v: Size = %v, brute force %d", spec, size, want)
		}
		seen := map[string]bool{}
		for i := range size.Int64() {
			p := s.At(big.NewInt(i))
			if seen[p.Key()] {
				t.Fatalf("At(%d) = %v repeats", i, p)
			}
			seen[p.Key()] = true
			if !s.Contains(p) {
				t.Fatalf("At(%d) = %v not contained", i, p)
			}
			checkTable2(t, spec, toParams(p))
		}
		t.Logf("%+v: %v points", spec, size)
	}
}

func TestTable2Large(t *testing.T) {
	spec := Table2Spec{Domain: []int{512, 512, 512}, Loops: []int{1000, 64, 7}, MaxWorkGroup: 256, MaxWorkItems: [3]int{256, 256, 64}}
	s, toParams, err := Table2(spec)
	if err != nil {
		t.Fatal(err)
	}
	size := s.Size()
	if size.Cmp(big.NewInt(1e9)) < 0 {
		t.Errorf("3D space of %v points, expected more than 1e9", size)
	}
	t.Logf("3D space: %v points", size)
	r := autotune.NewRand(11)
	for range 3000 {
		p := s.Sample(r)
		checkTable2(t, spec, toParams(p))
	}

	// The paper's mxm, 2D: 1024x1024 points, k = 1024.
	spec = Table2Spec{Domain: []int{1024, 1024}, Loops: []int{1024}}
	s, toParams, err = Table2(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("2D mxm space: %v points", s.Size())
	for range 3000 {
		checkTable2(t, spec, toParams(s.Sample(r)))
	}
	// The baseline launch is a point of the space (uf=1 stands for no
	// unrolling).
	base := transforms.Params{Global: [3]int{1024, 1024}, Local: [3]int{64, 1}, Block: [3]int{1, 1}, Unroll: 1}
	p, err := s.PointOf(base.Map(2, 1))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Contains(p) {
		t.Errorf("baseline %v not in the space", p)
	}
	if got := toParams(p); got != base {
		t.Errorf("toParams(%v) = %v, want %v", p, got, base)
	}
}

func BenchmarkSizeTable2_3D(b *testing.B) {
	for b.Loop() {
		s, _, err := Table2(Table2Spec{Domain: []int{512, 512, 512}, Loops: []int{1000, 64, 7}})
		if err != nil {
			b.Fatal(err)
		}
		s.Size()
	}
}

func BenchmarkSample(b *testing.B) {
	s, _, _ := Table2(Table2Spec{Domain: []int{512, 512, 512}, Loops: []int{1000, 64, 7}})
	r := autotune.NewRand(1)
	for b.Loop() {
		s.Sample(r)
	}
}
