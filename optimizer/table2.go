package optimizer

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/transforms"
)

// Table2Spec describes the kernel and device a Table 2 space is built for.
// The zero value of each device field works.
type Table2Spec struct {
	// Domain is the number of points per dimension of the single-point
	// launch, x first: 1 to 3 entries, each at least 1. Required.
	Domain []int
	// Loops is the number of iterations of each loop of the main compute
	// loop nest, outermost first: 0 to 3 entries. A value <= 0 means the
	// length is not known before the run. Default none: no compute loop.
	Loops []int
	// MaxWorkGroup is the device's largest work-group (product of local
	// sizes). Default 0: 1024.
	MaxWorkGroup int
	// MaxWorkItems is the device's largest local size per dimension.
	// Default 0: 1024.
	MaxWorkItems [3]int
	// CPU says that the device is a CPU: vec then ranges over 4, 8 and 16
	// (SIMD registers of 128 to 512 bits) instead of 2 and 4 (a GPU's 64-
	// and 128-bit loads), and the GPU techniques (prefetch, warp, gswz)
	// are left out. Default false: a GPU.
	CPU bool
	// Transposable says that the kernel reads a tile along a compute loop
	// after a global id (a[idy][k]), so that ltrans can act
	// (transforms.Transposable). Default false: ltrans is left out.
	Transposable bool
	// Halo says that the kernel, without compute loops, reads arrays in a
	// neighbourhood of the point that lmem stages in local memory
	// (transforms.Halos). Default false: lmem only with compute loops.
	Halo bool
	// Special says that the kernel computes special functions (rsqrt,
	// sqrt, exp, ...) or divides floats (transforms.SpecialFunctions), so
	// that ftz can act. Default false: ftz is 0.
	Special bool
	// Fission says that a compute loop of the kernel accumulates a sum of
	// terms that read different array elements (transforms.Fissionable),
	// so that fission can give each term's tiles a tile loop of their own.
	// Default false: fission is left out.
	Fission bool
	// Fixed pins parameters to one value each, whether or not the value is
	// among the candidates (the passes still judge it legal or not); the
	// search then runs over the others. A value outside the range its
	// parameter can take for the domain, loops and device (a zero local or
	// block size, a local size above the work-group) is an error naming
	// the pin and the range. Default nil: nothing pinned.
	Fixed map[transforms.Name]int
}

// SpaceVersion names the version of the Table 2 space (the parameters,
// their order and ranges): it is part of every records key (Problem.Key),
// so that records of another space are never applied to this one (they are
// marked stale). Bump it whenever the space changes; TestSpaceVersion
// fails when the space of a few kernels changes while it stays the same.
const SpaceVersion = "table2-9"

// Limits of the Table 2 ranges.
const (
	maxLocal = 1024 // largest local size per dimension
	maxTile  = 256  // largest tile size
	maxTiles = 7    // most non-zero tile sizes per loop
	maxSz    = 6    // most global sizes per dimension (1, 2, ..., 32 blocks per work-item)
)

var blockSizes = []int{1, 2, 4, 8, 16}

// cpuBlocksX are the block sizes along x on a CPU device: runs of up to
// four 16-wide vectors (vec) per row of a work-item's block.
var cpuBlocksX = []int{1, 2, 4, 8, 16, 32, 64}
var unrollFactors = []int{1, 2, 4, 8, 16}

// Table2 builds the space of the optimizer's parameters (the paper's
// Table 2 and transforms' interleave extension, named as in
// transforms.Params) for a kernel, and the function that turns a point of
// it into transforms.Params. Only the parameters the kernel has are in the
// space (those of transforms.Relevant). Their order and ranges, N_d being
// the points along dimension d and L_i the length of compute loop i:
//
//	bszx bszy bszz   {1, 2, 4, 8, 16}, at most N_d; on a CPU bszx also 32
//	                 and 64 (several vectors of vec points per row).
//	fullunroll       {0, 1}; only 0 when every bsz is 1 (nothing to unroll).
//	interleave       {0, 1}; only 0 when every bsz is 1 (no effect).
//	vw               1, and with interleave the runs 2 and 4 below the
//	                 largest bsz (a run as long as every block is the
//	                 layout of interleave 0).
//	lszx szx         then lszy szy, then lszz szz:
//	  lsz_d          powers of two from 1 to the smallest of MaxWorkItems[d],
//	                 1024 and N_d/bsz_d (blocks) rounded up to a power of two,
//	                 with lszx*lszy*lszz <= MaxWorkGroup. A work-group never
//	                 has more work-items than there are blocks in a dimension:
//	                 such groups only add idle work-items, so they are left
//	                 out (this is why bsz comes before lsz).
//	  sz_d           the work-items that give each one 1, 2, 4, ..., 32
//	                 blocks: ceil(blocks/2^k) rounded up to a multiple of
//	                 lsz_d, for k = 0..5, distinct, ascending. The largest is
//	                 the most work-items transforms allows.
//	tw0 tw1 tw2      0 (no tiling) and up to 7 tile sizes below L_i and at
//	                 most 256: for each power of two t = 2, 4, ..., the
//	                 divisor of L_i nearest to t in ratio if one lies within
//	                 a factor 1.5 of t (a tile that divides its loop needs no
//	                 bound check), else t; the smallest are dropped beyond 7.
//	                 For L_i unknown, the powers of two 4..256. A loop
//	                 with loops inside it (a nest of two or more) takes
//	                 1 too: a tile of one iteration, the loops inside it
//	                 staged through local memory (3DCONV 128's best: its
//	                 z loop in tiles of 1, y and x in tiles of 16, where
//	                 tiles of 2 along z take twice the local memory and
//	                 ran 1.8x slower on an H200).
//	uf               {1, 2, 4, 8, 16} dividing the innermost loop's tile:
//	                 tw of the last loop if not 0, else its length (all five
//	                 when that is unknown). Absent without compute loops.
//	lmem             {0, 1}; only 0 without compute loops, unless Halo.
//	lcopy            {0, 1} with lmem, else 0: copies into local memory as
//	                 loops (1) or straight-line code (0).
//	vec              1, and the vector widths (2 and 4 on a GPU, 4, 8 and
//	                 16 on a CPU) that divide the run of points along x (bszx,
//	                 or min(vw, bszx) with interleave) and N_x.
//	pack             {0, 1} with lmem, else 0.
//	ltrans           {0, 1} with lmem when the kernel is Transposable, else 0.
//	prefetch         {0, 1, 2} with lmem and a tiled loop (some tw > 0) on a
//	                 GPU, else 0 (3, the register prefetch with no branch,
//	                 is pinned only: timed by hand, not through the pass).
//	warp             0, and on a GPU with two or more dimensions the widths
//	                 w in {1, 2, 4, 8, 16} below min(lszx, 32) with w
//	                 dividing lszx and 32/w dividing lszy.
//	gswz             1, and on a GPU with two or more dimensions the bands
//	                 g in {2, 4, 8} that divide the szy/lszy rows of groups
//	                 when there are two or more columns (szx/lszx).
//	split            1, and on a GPU for a kernel of 1 or 2 dimensions
//	                 whose nest has a loop of known length L_0 the parts
//	                 S in {2, 4, 8, 16, 32} that divide L_0 into parts of
//	                 L_0/S iterations that tw0 (when not 0) divides, with
//	                 the work-group of S times lszx*lszy work-items within
//	                 MaxWorkGroup and S within MaxWorkItems of the dimension
//	                 after the kernel's. Absent without compute loops.
//	ftz              {0, 1} on a GPU for a kernel that computes special
//	                 functions or divides floats (Special), else 0: the
//	                 build option -cl-denorms-are-zero.
//	fission          {0, 1} with lmem and a tiled loop on a GPU for a kernel
//	                 whose accumulation's terms read different elements
//	                 (Fission), else 0: one tile loop per term. Absent
//	                 without compute loops.
//	coff             {0, 1} with lmem on a GPU, else 0: each round of a
//	                 copy into local memory as the work-item's element plus
//	                 constants.
//
// The order puts each parameter right after those its range reads, which
// keeps the memo tables of the counting small (a 3D space of 3e9 points is
// counted in a few milliseconds).
//
// Constraints the ranges cannot express (those of transforms.Validate that
// depend on the kernel's code, such as local memory use) are checked when a
// point is evaluated: such points are counted as Illegal.
func Table2(spec Table2Spec) (*autotune.Space, func(autotune.Point) transforms.Params, error) {
	dims, loops := len(spec.Domain), len(spec.Loops)
	if dims < 1 || dims > 3 {
		return nil, nil, fmt.Errorf("optimizer: Table2: %d global dimensions, want 1 to 3", dims)
	}
	if loops > 3 {
		return nil, nil, fmt.Errorf("optimizer: Table2: %d compute loops, want at most 3", loops)
	}
	for d, n := range spec.Domain {
		if n < 1 {
			return nil, nil, fmt.Errorf("optimizer: Table2: domain size %d along %c, want at least 1", n, "xyz"[d])
		}
	}
	maxWG := spec.MaxWorkGroup
	if maxWG <= 0 {
		maxWG = maxLocal
	}
	name := func(n transforms.Name) string { return string(n) }

	var params []autotune.Param
	for d := 0; d < dims; d++ {
		n := spec.Domain[d]
		var r []int
		sizes := blockSizes
		if d == 0 && spec.CPU {
			sizes = cpuBlocksX
		}
		for _, b := range sizes {
			if b <= n {
				r = append(r, b)
			}
		}
		params = append(params, autotune.Param{Name: name(transforms.Block(d)), Range: func(autotune.Point) []int { return r }})
	}
	{
		// fullunroll and interleave only act on blocks of several points.
		var deps []string
		for d := 0; d < dims; d++ {
			deps = append(deps, name(transforms.Block(d)))
		}
		blockFlag := func(p autotune.Point) []int {
			for _, n := range deps {
				if p.Get(n) > 1 {
					return []int{0, 1}
				}
			}
			return []int{0}
		}
		runs := func(p autotune.Point) []int {
			r := []int{1}
			if p.Get(name(transforms.Interleave)) == 0 {
				return r
			}
			largest := 1
			for _, n := range deps {
				largest = max(largest, p.Get(n))
			}
			for _, v := range []int{2, 4} {
				if v < largest {
					r = append(r, v)
				}
			}
			return r
		}
		params = append(params,
			autotune.Param{Name: name(transforms.FullUnroll), Deps: deps, Range: blockFlag},
			autotune.Param{Name: name(transforms.Interleave), Deps: deps, Range: blockFlag},
			autotune.Param{Name: name(transforms.VW), Deps: append([]string{name(transforms.Interleave)}, deps...), Range: runs},
			vecParam(spec))
	}
	for d := 0; d < dims; d++ {
		n := spec.Domain[d]
		limit := maxLocal
		if w := spec.MaxWorkItems[d]; w > 0 {
			limit = min(limit, w)
		}
		bsz, lsz := name(transforms.Block(d)), name(transforms.Local(d))
		deps := []string{bsz}
		for e := 0; e < d; e++ {
			deps = append(deps, name(transforms.Local(e)))
		}
		params = append(params, autotune.Param{Name: lsz, Deps: deps, Range: func(p autotune.Point) []int {
			blocks := ceilDiv(n, p.Get(bsz))
			group := 1
			for _, n := range deps[1:] {
				group *= p.Get(n)
			}
			var r []int
			for l := 1; l <= limit && l <= maxWG/group; l *= 2 {
				r = append(r, l)
				if l >= blocks {
					break
				}
			}
			return r
		}})
		if d == 1 {
			params = append(params, warpParam(spec))
		}
		params = append(params, autotune.Param{Name: name(transforms.Global(d)), Deps: []string{bsz, lsz}, Range: func(p autotune.Point) []int {
			return globalSizes(ceilDiv(n, p.Get(bsz)), p.Get(lsz))
		}})
		if d == 1 {
			params = append(params, swizzleParam(spec))
		}
	}
	for i, l := range spec.Loops {
		r := tileSizes(l)
		if i < len(spec.Loops)-1 && l != 1 {
			r = slices.Insert(r, 1, 1)
		}
		params = append(params, autotune.Param{Name: name(transforms.Tile(i)), Range: func(autotune.Point) []int { return r }})
	}
	if loops > 0 {
		last := name(transforms.Tile(loops - 1))
		length := spec.Loops[loops-1]
		params = append(params, autotune.Param{Name: name(transforms.UF), Deps: []string{last}, Range: func(p autotune.Point) []int {
			t := p.Get(last)
			if t == 0 {
				t = length
			}
			if t <= 0 {
				return unrollFactors
			}
			var r []int
			for _, u := range unrollFactors {
				if u <= t && t%u == 0 {
					r = append(r, u)
				}
			}
			return r
		}})
	}
	lmem := []int{0}
	if loops > 0 || spec.Halo {
		lmem = []int{0, 1}
	}
	params = append(params, autotune.Param{Name: name(transforms.LMem), Range: func(autotune.Point) []int { return lmem }})
	withLMem := func(r []int) func(autotune.Point) []int {
		return func(p autotune.Point) []int {
			if p.Get(name(transforms.LMem)) == 1 {
				return r
			}
			return []int{0}
		}
	}
	params = append(params, autotune.Param{Name: name(transforms.LCopy), Deps: []string{name(transforms.LMem)}, Range: withLMem([]int{0, 1})})
	if loops > 0 {
		params = append(params, autotune.Param{Name: name(transforms.Pack), Deps: []string{name(transforms.LMem)}, Range: withLMem([]int{0, 1})})
		trans := []int{0}
		if spec.Transposable {
			trans = []int{0, 1}
		}
		params = append(params, autotune.Param{Name: name(transforms.LTrans), Deps: []string{name(transforms.LMem)}, Range: withLMem(trans)})
		params = append(params, tiledParam(transforms.Prefetch, loops, !spec.CPU, []int{0, 1, 2}))
		params = append(params, splitParam(spec, maxWG))
	}
	ftz := []int{0}
	if spec.Special && !spec.CPU {
		ftz = []int{0, 1}
	}
	params = append(params, autotune.Param{Name: name(transforms.FTZ), Range: func(autotune.Point) []int { return ftz }})
	if loops > 0 {
		params = append(params, tiledParam(transforms.Fission, loops, spec.Fission && !spec.CPU, []int{0, 1}))
	}
	coff := []int{0}
	if !spec.CPU {
		coff = []int{0, 1}
	}
	params = append(params, autotune.Param{Name: name(transforms.COff), Deps: []string{name(transforms.LMem)}, Range: withLMem(coff)})

	for n := range spec.Fixed {
		found := false
		for _, p := range params {
			found = found || p.Name == string(n)
		}
		if !found {
			return nil, nil, pinErrorf("optimizer: cannot pin %s: the kernel's Table 2 parameters are %s", n, paramNames(params))
		}
	}
	if err := checkPins(spec, maxWG); err != nil {
		return nil, nil, err
	}
	for i := range params {
		if v, ok := spec.Fixed[transforms.Name(params[i].Name)]; ok {
			params[i].Range = func(autotune.Point) []int { return []int{v} }
		}
	}
	s, err := autotune.NewSpace(params...)
	if err != nil {
		return nil, nil, err
	}
	names := s.Names()
	toParams := func(p autotune.Point) transforms.Params {
		var tp transforms.Params
		for i, n := range names {
			if i < p.Len() {
				// Only negative values fail, which no range holds.
				_ = tp.Set(transforms.Name(n), p.Value(i))
			}
		}
		return tp
	}
	return s, toParams, nil
}

// vecParam is vec's range: the vector widths that divide the run of points
// along x and the points along x.
func vecParam(spec Table2Spec) autotune.Param {
	name := func(n transforms.Name) string { return string(n) }
	widths := []int{2, 4}
	if spec.CPU {
		widths = []int{4, 8, 16}
	}
	bszx, il, vw := name(transforms.BszX), name(transforms.Interleave), name(transforms.VW)
	return autotune.Param{Name: name(transforms.Vec), Deps: []string{bszx, il, vw}, Range: func(p autotune.Point) []int {
		run := p.Get(bszx)
		if p.Get(il) == 1 {
			run = min(run, p.Get(vw))
		}
		r := []int{1}
		for _, w := range widths {
			if w <= run && run%w == 0 && spec.Domain[0]%w == 0 {
				r = append(r, w)
			}
		}
		return r
	}}
}

// splitParam is split's range: 1, and on a GPU for a kernel of 1 or 2
// dimensions the numbers of parts that divide the outermost compute loop
// evenly into parts that its tile divides, within the device's work-group.
func splitParam(spec Table2Spec, maxWG int) autotune.Param {
	dims := len(spec.Domain)
	var deps []string
	for d := 0; d < dims; d++ {
		deps = append(deps, string(transforms.Local(d)))
	}
	tw0 := string(transforms.Tw0)
	deps = append(deps, tw0)
	length := spec.Loops[0]
	limit := maxLocal
	if dims < 3 && spec.MaxWorkItems[dims] > 0 {
		limit = min(limit, spec.MaxWorkItems[dims])
	}
	return autotune.Param{Name: string(transforms.Split), Deps: deps, Range: func(p autotune.Point) []int {
		r := []int{1}
		if spec.CPU || dims == 3 || length <= 0 {
			return r
		}
		group := 1
		for _, n := range deps[:dims] {
			group *= p.Get(n)
		}
		t := p.Get(tw0)
		for _, n := range []int{2, 4, 8, 16, 32} {
			if n > limit || group*n > maxWG || length%n != 0 {
				continue
			}
			if part := length / n; t > 0 && (t > part || part%t != 0) {
				continue
			}
			r = append(r, n)
		}
		return r
	}}
}

// warpParam is warp's range: 0, and on a GPU the sub-block widths that tile
// the work-group and change the layout.
func warpParam(spec Table2Spec) autotune.Param {
	lx, ly := string(transforms.LszX), string(transforms.LszY)
	return autotune.Param{Name: string(transforms.Warp), Deps: []string{lx, ly}, Range: func(p autotune.Point) []int {
		r := []int{0}
		if spec.CPU {
			return r
		}
		x, y := p.Get(lx), p.Get(ly)
		for _, w := range []int{1, 2, 4, 8, 16} {
			if w < min(x, 32) && x%w == 0 && y%(32/w) == 0 {
				r = append(r, w)
			}
		}
		return r
	}}
}

// swizzleParam is gswz's range: 1, and on a GPU the bands of rows of
// work-groups that tile the groups.
func swizzleParam(spec Table2Spec) autotune.Param {
	sx, lx, sy, ly := string(transforms.SzX), string(transforms.LszX), string(transforms.SzY), string(transforms.LszY)
	return autotune.Param{Name: string(transforms.Gswz), Deps: []string{sx, lx, sy, ly}, Range: func(p autotune.Point) []int {
		r := []int{1}
		if spec.CPU {
			return r
		}
		nx, ny := p.Get(sx)/p.Get(lx), p.Get(sy)/p.Get(ly)
		for _, g := range []int{2, 4, 8} {
			if nx >= 2 && ny%g == 0 {
				r = append(r, g)
			}
		}
		return r
	}}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// globalSizes returns the global sizes for blocks blocks and local size
// lsz: the multiples of lsz that give each work-item 1, 2, 4, ... blocks.
func globalSizes(blocks, lsz int) []int {
	var r []int
	for k := 0; k < maxSz; k++ {
		w := ceilDiv(ceilDiv(blocks, 1<<k), lsz) * lsz
		if !slices.Contains(r, w) {
			r = append(r, w)
		}
		if w == lsz {
			break
		}
	}
	slices.Sort(r)
	return r
}

// tileSizes returns the tile sizes of a compute loop of length l (<= 0:
// unknown), 0 (no tiling) first.
func tileSizes(l int) []int {
	limit := maxTile
	if l > 0 {
		limit = min(limit, l-1)
	}
	tol := math.Log2(1.5)
	var r []int
	for t := 2; t <= limit; t *= 2 {
		v := t
		if l > 0 && l%t != 0 {
			best, bestDist := 0, 0.0
			for d := 2; d <= limit; d++ {
				if l%d != 0 {
					continue
				}
				dist := math.Abs(math.Log2(float64(d) / float64(t)))
				if dist <= tol && (best == 0 || dist < bestDist || (dist == bestDist && d > best)) {
					best, bestDist = d, dist
				}
			}
			if best != 0 {
				v = best
			}
		}
		if !slices.Contains(r, v) {
			r = append(r, v)
		}
	}
	slices.Sort(r)
	if len(r) > maxTiles {
		r = r[len(r)-maxTiles:]
	}
	return append([]int{0}, r...)
}

func paramNames(ps []autotune.Param) string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// ParamOrder returns the names of every Table 2 parameter in the order of
// the space (that of a kernel of 3 dimensions and 3 compute loops; a
// kernel's space has a subsequence of it): the order of the columns of a
// recorded table (package replay).
func ParamOrder() []string {
	s, _, err := Table2(Table2Spec{Domain: []int{64, 64, 64}, Loops: []int{64, 64, 64}})
	if err != nil {
		panic("optimizer: the full Table 2 space: " + err.Error()) // constant arguments
	}
	return s.Names()
}

// tiledParam is the parameter name of a technique that acts on a tile
// loop staged in local memory (prefetch, fission): the values on with lmem
// and some tw not 0, else 0 alone.
func tiledParam(n transforms.Name, loops int, on bool, values []int) autotune.Param {
	deps := []string{string(transforms.LMem)}
	for i := range loops {
		deps = append(deps, string(transforms.Tile(i)))
	}
	return autotune.Param{Name: string(n), Deps: deps, Range: func(p autotune.Point) []int {
		if on && p.Get(deps[0]) == 1 {
			for _, tw := range deps[1:] {
				if p.Get(tw) > 0 {
					return values
				}
			}
		}
		return []int{0}
	}}
}
