package transforms_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
)

// randKernel is a random single-point kernel with the arguments to run it:
// what randomKernel makes for the fuzz tests of the passes.
type randKernel struct {
	kernel *hpl.Kernel
	// args makes a fresh copy of the arguments (the same contents each
	// time), in parameter order.
	args   func() []any
	global []int        // the single-point launch, x first
	size   kernels.Size // the launch and the compute loops' lengths, for randomParams
	outs   []int        // the indices of the outputs in args
}

// randomKernel builds a random valid DSL kernel from r: 1 to 3 global
// dimensions; inputs of rank 1 to 3 read with subscripts of the shapes the
// pattern analysis knows (an id or a loop counter plus a constant, both,
// a constant, a private int set from an id) and some it does not (a
// remainder, a min, a read through another array); 0 to 2 nested compute
// loops with constant or int-argument bounds; private scalars; a bounds
// guard around the work with a launch larger than the domain; a
// data-dependent if; a while loop. Every work-item writes its own elements
// of the outputs only, and every read stays inside its array (the extents
// are the largest subscripts plus one), so that any legal variant must
// compute what the kernel as written does.
func randomKernel(r *rand.Rand) (*randKernel, error) {
	g := &kgen{r: r, maxSub: map[string][]int{}}
	dims := 1 + r.IntN(3)
	sizes := [][]int{{1, 2, 3, 5, 8, 13, 16, 24, 33, 64}, {1, 2, 3, 5, 8, 12, 17}, {1, 2, 3, 4, 7}}
	for d := 0; d < dims; d++ {
		g.n = append(g.n, pickInt(r, sizes[d]...))
	}
	nloops := r.IntN(3)
	for i := 0; i < nloops; i++ {
		g.loops = append(g.loops, 1+r.IntN(9))
	}
	g.guard = r.IntN(3) == 0
	global := append([]int(nil), g.n...)
	if g.guard {
		global[0] = g.n[0] + 1 + r.IntN(7)
	}
	nin := 1 + r.IntN(3)
	for i := 0; i < nin; i++ {
		g.inRank = append(g.inRank, 1+r.IntN(3))
	}
	g.twoOut = r.IntN(3) == 0
	g.exotic = r.IntN(2) == 0
	kernel, err := hpl.NewKernel("rk", g.body)
	if err != nil {
		return nil, fmt.Errorf("the generator made an invalid kernel: %w", err)
	}
	// The extents: the largest subscript plus one, for inputs; the domain
	// for outputs (slowest first).
	outExt := make([]int, dims)
	for d := 0; d < dims; d++ {
		outExt[d] = g.n[dims-1-d]
	}
	seed := r.Uint64()
	rk := &randKernel{kernel: kernel, global: global, size: kernels.Size{N: global, K: g.loops}}
	rk.args = func() []any {
		rr := rand.New(rand.NewPCG(seed, 1))
		fill := func(ext []int) *hpl.Array {
			a := hpl.NewArray(hpl.Float32, ext...)
			v := a.Float32s()
			for i := range v {
				v[i] = float32(rr.IntN(2001)-1000) / 1000
			}
			return a
		}
		args := []any{fill(outExt)}
		if g.twoOut {
			args = append(args, fill(outExt))
		}
		for i := range g.inRank {
			ext := g.maxSub[fmt.Sprintf("a%d", i)]
			e := make([]int, len(ext))
			for d := range ext {
				e[d] = ext[d] + 1
			}
			args = append(args, fill(e))
		}
		for _, l := range g.loops {
			args = append(args, int32(l))
		}
		return append(args, int32(g.n[0]))
	}
	rk.outs = []int{0}
	if g.twoOut {
		rk.outs = append(rk.outs, 1)
	}
	return rk, nil
}

// kgen is the state of one randomKernel.
type kgen struct {
	r      *rand.Rand
	n      []int // the domain, x first
	loops  []int // compute loop lengths, outermost first
	guard  bool
	inRank []int
	twoOut bool
	// exotic kernels also have what the analysis cannot follow: non-affine
	// subscripts, a data-dependent if, a while loop.
	exotic bool

	k       *hpl.K
	ins     []hpl.ArrayVar
	lens    []hpl.Var // the loops' int arguments
	ctr     []hpl.Var // the counters of the enclosing loops
	ctrLen  []int     // their lengths
	private *hpl.Var  // a private int idx + c, and its c
	privC   int
	inner   bool // a read inside a subscript is being made
	// maxSub holds the largest subscript used per input and dimension.
	maxSub map[string][]int
}

func pickInt(r *rand.Rand, xs ...int) int { return xs[r.IntN(len(xs))] }

func (g *kgen) body(k *hpl.K) {
	g.k = k
	dims := len(g.n)
	out := k.Array("out", hpl.Float32, dims)
	var out2 hpl.ArrayVar
	if g.twoOut {
		out2 = k.Array("out2", hpl.Float32, dims)
	}
	for i, rank := range g.inRank {
		name := fmt.Sprintf("a%d", i)
		g.ins = append(g.ins, k.Array(name, hpl.Float32, rank))
		g.maxSub[name] = make([]int, rank)
	}
	for i := range g.loops {
		g.lens = append(g.lens, k.Scalar(fmt.Sprintf("n%d", i), hpl.Int32))
	}
	m := k.Scalar("m", hpl.Int32) // the domain along x, for the guard
	var counters []hpl.Var
	for i := range g.loops {
		counters = append(counters, k.Int(fmt.Sprintf("j%d", i)))
	}
	ids := []any{hpl.Idx, hpl.Idy, hpl.Idz}[:dims]
	at := func(a hpl.ArrayVar) hpl.Expr { // a[idz][idy][idx]
		subs := make([]any, dims)
		for d := range subs {
			subs[d] = ids[dims-1-d]
		}
		return a.At(subs...)
	}
	k.Compute(func() {
		if g.r.IntN(3) == 0 {
			c := g.r.IntN(3)
			p := k.Int("p", hpl.Idx.Add(c))
			g.private, g.privC = &p, c
		}
		acc := k.Float("acc", 0.0)
		work := func() {
			g.nest(0, counters, acc)
			if g.exotic && g.r.IntN(3) == 0 {
				w := k.Int("w", 0)
				k.While(w.Lt(2), func() {
					k.AddTo(acc, g.term(1))
					k.AddTo(w, 1)
				})
			}
			k.Set(at(out), acc.Add(g.term(1)))
			if g.twoOut {
				k.Set(at(out2), g.term(2))
			}
		}
		if g.guard {
			k.If(hpl.Idx.Lt(m), work)
		} else {
			work()
		}
	})
}

// nest writes loops i... of the compute nest around the accumulation.
func (g *kgen) nest(i int, counters []hpl.Var, acc hpl.Var) {
	k := g.k
	if i == len(g.loops) {
		k.AddTo(acc, g.term(2))
		if g.exotic && g.r.IntN(3) == 0 {
			k.If(g.read().Gt(0.0), func() { k.AddTo(acc, g.term(1)) })
		}
		return
	}
	var lo, hi any = 0, g.lens[i]
	if g.r.IntN(2) == 0 {
		hi = g.loops[i]
	}
	if i > 0 && g.r.IntN(4) == 0 {
		lo = counters[i-1] // a triangular loop: j1 from j0
	}
	k.For(counters[i], lo, hi, func() {
		g.ctr = append(g.ctr, counters[i])
		g.ctrLen = append(g.ctrLen, g.loops[i])
		if g.r.IntN(4) == 0 { // a statement before the inner loop
			k.AddTo(acc, g.read())
		}
		g.nest(i+1, counters, acc)
		g.ctr, g.ctrLen = g.ctr[:len(g.ctr)-1], g.ctrLen[:len(g.ctrLen)-1]
	})
}

// term is a float expression of up to depth operations over reads and
// constants.
func (g *kgen) term(depth int) hpl.Expr {
	if depth <= 0 || g.r.IntN(3) == 0 {
		switch g.r.IntN(5) {
		case 0:
			return hpl.ToFloat(hpl.Idx).Mul(0.125)
		case 1:
			return g.read().Mul(float32(g.r.IntN(5)) - 2)
		}
		return g.read()
	}
	x, y := g.term(depth-1), g.term(depth-1)
	if g.r.IntN(2) == 0 {
		return x.Mul(y)
	}
	return x.Add(y)
}

// read is a read of a random input with random subscripts.
func (g *kgen) read() hpl.Expr {
	i := g.r.IntN(len(g.ins))
	name := fmt.Sprintf("a%d", i)
	subs := make([]any, g.inRank[i])
	for d := range subs {
		e, most := g.subscript()
		subs[d] = e
		g.maxSub[name][d] = max(g.maxSub[name][d], most)
	}
	return g.ins[i].At(subs...)
}

// subscript is a random int expression in range and its largest value.
func (g *kgen) subscript() (any, int) {
	r, dims := g.r, len(g.n)
	d := r.IntN(dims)
	id := []hpl.Expr{hpl.Idx, hpl.Idy, hpl.Idz}[d]
	n := g.n[d] // under the guard, the work-items past n[0] do nothing
	c := r.IntN(3)
	shapes := 6
	if g.exotic {
		shapes = 9
	}
	for {
		switch r.IntN(shapes) {
		case 0, 1: // id + c
			return id.Add(c), n - 1 + c
		case 2: // c
			return c, c
		case 3: // counter + c
			if len(g.ctr) > 0 {
				l := r.IntN(len(g.ctr))
				return g.ctr[l].Add(c), g.ctrLen[l] - 1 + c
			}
		case 4: // id + counter + c
			if len(g.ctr) > 0 {
				l := r.IntN(len(g.ctr))
				return id.Add(g.ctr[l]).Add(c), n - 1 + g.ctrLen[l] - 1 + c
			}
		case 5: // a private int set from idx
			if g.private != nil {
				return g.private.Add(c), g.n[0] - 1 + g.privC + c
			}
		case 6: // a remainder: not an affine subscript
			return id.Mul(3).Add(c).Rem(5), 4
		case 7: // a min: not affine either
			return hpl.Min(id.Add(c), 3), 3
		case 8: // through another array: indirect
			if !g.inner {
				g.inner = true
				e := hpl.ToInt(hpl.Fabs(g.read()).Mul(3.0))
				g.inner = false
				return e, 3
			}
		}
	}
}
