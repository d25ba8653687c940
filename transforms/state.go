package transforms

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/patterns"
)

// Pass is one stage of the optimizer: what it does, what it reads, and its
// rewrite of the variant under construction.
type Pass struct {
	Name     string
	Doc      string
	Requires []string // passes whose results this one reads
	Run      func(*state) error
}

// Pipeline is the order in which the passes run: the paper's five stages,
// then the assembly of the compute section from their results.
var Pipeline = []*Pass{tiling, localMemory, coarsening, privateMemory, assembly, unrolling, cleanup}

// nestLoop is one loop of the main compute loop nest.
type nestLoop struct {
	index  int // in patterns.Info.Loops
	Var    string
	Lo, Hi ast.Expr
	length int  // trip count, when known
	known  bool // length is known
	T      int  // tile size (= length when not tiled; 0 when unknown)
	split  bool // the loop is split into tiles
	tile   string
	elem   *ast.For // the element loop, made by tiling
}

// dimGeom is the work distribution along one dimension (coarsening).
type dimGeom struct {
	N, sz, lsz, bsz int
	cyclic          bool   // a work-item visits several blocks
	guard           bool   // some points of a block can fall outside N
	c, b, p         string // group block base, work-item block base, point offset
}

// expansion is a value held per point: a private variable live across the
// parts of the compute section, or a promoted array element.
type expansion struct {
	name string   // the name in the rewritten code (an array when points > 1)
	typ  ast.Type // element type
}

type state struct {
	prob   *Problem
	p      Params
	k      *ast.Kernel // the clone being rewritten
	comp   *ast.Compute
	info   *patterns.Info
	dims   int
	names  map[string]bool
	points int // points per block

	pre, body, post []ast.Stmt
	loops           []*nestLoop
	geom            [3]dimGeom

	decls      []ast.Stmt            // declarations hoisted to the top of compute
	expanded   map[string]*expansion // variable name -> per-point storage
	loads      []ast.Stmt            // promoted elements: loads before pre, per point
	stores     []ast.Stmt            // and stores after post
	staging    []ast.Stmt            // copies into local memory, per tile
	localBytes int64
	staged     []string
	promoted   []string
	inner      *ast.Block // the element loops' innermost body slot, filled by assembly
}

// fresh returns a name not used in the kernel, based on base.
func (s *state) fresh(base string) string {
	name := base
	for i := 2; s.names[name]; i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	s.names[name] = true
	return name
}

func newState(prob *Problem, p Params) (*state, error) {
	if prob == nil || prob.Kernel == nil {
		return nil, fmt.Errorf("transforms: no kernel")
	}
	k := ast.Clone(prob.Kernel)
	s := &state{prob: prob, p: p, k: k, dims: len(prob.Domain), names: map[string]bool{}, expanded: map[string]*expansion{}}
	if s.dims < 1 || s.dims > 3 {
		return nil, fmt.Errorf("transforms: kernel %s: the domain has %d dimensions; want 1 to 3", k.Name, s.dims)
	}
	for _, q := range k.Params {
		if q.Rank > 0 && len(q.Extents) != q.Rank {
			return nil, fmt.Errorf("transforms: kernel %s: array %s has no extents; specialize the kernel first", k.Name, q.Name)
		}
		s.names[q.Name] = true
	}
	ast.Inspect(k.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Decl:
			s.names[n.Name] = true
		case *ast.For:
			s.names[n.Var] = true
		case *ast.Ident:
			s.names[n.Name] = true
		}
		return true
	})
	s.comp = k.Compute()
	if s.comp == nil {
		return nil, fmt.Errorf("transforms: kernel %s: %w", k.Name, patterns.ErrNoCompute)
	}
	info, err := patterns.Analyze(k)
	if err != nil {
		return nil, err
	}
	s.info = info
	if err := s.checkGeometry(); err != nil {
		return nil, err
	}
	s.splitNest()
	if err := s.checkKernel(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *state) checkGeometry() error {
	p := s.p
	wg := 1
	s.points = 1
	for d := 0; d < 3; d++ {
		axis := "xyz"[d : d+1]
		if d >= s.dims {
			if p.Global[d] > 1 || p.Local[d] > 1 || p.Block[d] > 1 {
				return illegal("the kernel has %d dimension(s); sz%s, lsz%s and bsz%s must be unset", s.dims, axis, axis, axis)
			}
			continue
		}
		g := dimGeom{N: s.prob.Domain[d], sz: p.Global[d], lsz: p.Local[d], bsz: p.Block[d]}
		if g.N < 1 {
			return illegal("domain size %d along %s", g.N, axis)
		}
		if g.sz < 1 || g.lsz < 1 || g.bsz < 1 {
			return illegal("sz%s=%d, lsz%s=%d and bsz%s=%d must all be at least 1", axis, g.sz, axis, g.lsz, axis, g.bsz)
		}
		if g.sz%g.lsz != 0 {
			return illegal("the local size lsz%s=%d does not divide the global size sz%s=%d", axis, g.lsz, axis, g.sz)
		}
		if lim := s.prob.MaxWorkItems[d]; lim > 0 && g.lsz > lim {
			return illegal("lsz%s=%d exceeds the device's %d work-items along %s", axis, g.lsz, lim, axis)
		}
		if g.bsz > g.N {
			return illegal("bsz%s=%d exceeds the %d points along %s", axis, g.bsz, g.N, axis)
		}
		blocks := (g.N + g.bsz - 1) / g.bsz
		if g.sz > (blocks+g.lsz-1)/g.lsz*g.lsz {
			return illegal("sz%s=%d work-items for %d block(s) of %d points along %s: more work-groups than work", axis, g.sz, blocks, g.bsz, axis)
		}
		g.c, g.b, g.p = s.fresh("c_"+axis), s.fresh("b_"+axis), s.fresh("p_"+axis)
		span := g.sz * g.bsz
		g.cyclic = (g.N+span-1)/span > 1
		g.guard = g.N%span != 0
		wg *= g.lsz
		s.points *= g.bsz
		s.geom[d] = g
	}
	if p.Chunk < 0 {
		return illegal("vw=%d", p.Chunk)
	}
	if p.Interleave {
		for d := 0; d < s.dims; d++ {
			if c := s.chunk(d); s.geom[d].bsz%c != 0 {
				return illegal("runs of vw=%d points do not divide the block bsz%s=%d", c, "xyz"[d:d+1], s.geom[d].bsz)
			}
		}
	}
	if lim := s.prob.MaxWorkGroup; lim > 0 && wg > lim {
		return illegal("work-groups of %d work-items exceed the device's %d", wg, lim)
	}
	if p.Unroll < 0 {
		return illegal("uf=%d", p.Unroll)
	}
	return nil
}

// splitNest finds the main compute loop nest: the first loop at the top of
// the compute section and the loops perfectly nested in it.
func (s *state) splitNest() {
	list := s.comp.Body.List
	first := -1
	if len(s.info.Unsupported) == 0 {
		for i, st := range list {
			if _, ok := st.(*ast.For); ok {
				first = i
				break
			}
		}
	}
	if first < 0 {
		s.pre = list
		return
	}
	s.pre = list[:first]
	s.post = list[first+1:]
	f := list[first].(*ast.For)
	for {
		s.loops = append(s.loops, &nestLoop{index: patterns.LoopOf(s.info, f), Var: f.Var, Lo: f.Lo, Hi: f.Hi})
		if len(f.Body.List) == 1 {
			if g, ok := f.Body.List[0].(*ast.For); ok && len(s.loops) < 3 {
				f = g
				continue
			}
		}
		break
	}
	s.body = f.Body.List
}

// Loops returns the number of loops in the main compute loop nest of prob's
// kernel: the loops that tile sizes tw0, tw1, tw2 apply to.
func Loops(prob *Problem) (int, error) {
	l, err := LoopLengths(prob)
	return len(l), err
}

// LoopLengths returns the trip counts of the loops of the main compute loop
// nest, outermost first (0 where a count is not known from prob.Ints). The
// nest is empty when the kernel has no loop or the analysis cannot follow
// its compute section.
func LoopLengths(prob *Problem) ([]int, error) {
	s, err := newState(prob, Baseline(prob))
	if err != nil {
		return nil, err
	}
	out := make([]int, len(s.loops))
	for i, l := range s.loops {
		lo, ok1 := evalInt(l.Lo, prob.Ints)
		hi, ok2 := evalInt(l.Hi, prob.Ints)
		if ok1 && ok2 {
			out[i] = max(0, hi-lo)
		}
	}
	return out, nil
}

// checkKernel rejects settings that would change the meaning of code the
// passes cannot see through.
func (s *state) checkKernel() error {
	p := s.p
	base := true
	for d := 0; d < s.dims; d++ {
		if s.geom[d].sz*s.geom[d].bsz != s.geom[d].N || s.geom[d].bsz != 1 {
			base = false
		}
	}
	// Identifiers other than global ids and sizes inside compute, and
	// global ids outside it, tie the code to the single-point geometry.
	var inside []string
	ast.Inspect(s.comp, func(n ast.Node) bool {
		if sp, ok := n.(*ast.Special); ok && sp.Kind != ast.GlobalID && sp.Kind != ast.GlobalSize {
			inside = append(inside, sp.Name())
		}
		return true
	})
	var outside []string
	for _, st := range s.k.Body.List {
		if _, ok := st.(*ast.Compute); ok {
			continue
		}
		ast.Inspect(st, func(n ast.Node) bool {
			if sp, ok := n.(*ast.Special); ok && (sp.Kind == ast.GlobalID || sp.Kind == ast.GlobalSize) {
				outside = append(outside, sp.Name())
			}
			return true
		})
	}
	if !base && len(inside) > 0 {
		return illegal("the compute section uses %s, so only the single-point distribution (one point per work-item) is legal", inside[0])
	}
	if !base && len(outside) > 0 {
		return illegal("code outside the compute section uses %s, so only the single-point distribution is legal", outside[0])
	}
	if !base {
		if v := s.usedAfterCompute(); v != "" {
			return illegal("variable %s is assigned in the compute section and used after it, so only the single-point distribution is legal", v)
		}
	}
	if len(s.loops) == 0 {
		why := "the compute section has no loop"
		if len(s.info.Unsupported) > 0 {
			why = "the compute section cannot be analysed: " + s.info.Unsupported[0]
		}
		for i, t := range p.Tile {
			if t > 0 {
				return illegal("tw%d=%d: %s", i, t, why)
			}
		}
		if p.Unroll > 1 {
			return illegal("uf=%d: %s", p.Unroll, why)
		}
		if p.LocalMem {
			return illegal("lmem=1: %s", why)
		}
		return nil
	}
	for i := len(s.loops); i < 3; i++ {
		if p.Tile[i] > 0 {
			return illegal("tw%d=%d: the main compute loop nest has %d loop(s)", i, p.Tile[i], len(s.loops))
		}
	}
	return nil
}

// usedAfterCompute returns a variable assigned in the compute section and
// read by the code after it, or "".
func (s *state) usedAfterCompute() string {
	assigned := map[string]bool{}
	ast.Inspect(s.comp, func(n ast.Node) bool {
		if a, ok := n.(*ast.Assign); ok {
			if id, ok := a.LHS.(*ast.Ident); ok {
				assigned[id.Name] = true
			}
		}
		return true
	})
	after := false
	found := ""
	for _, st := range s.k.Body.List {
		if st == ast.Stmt(s.comp) {
			after = true
			continue
		}
		if !after {
			continue
		}
		ast.Inspect(st, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && assigned[id.Name] && found == "" {
				found = id.Name
			}
			return true
		})
	}
	return found
}

// evalInt evaluates an integer expression of constants and known int
// arguments.
func evalInt(e ast.Expr, ints map[string]int) (int, bool) {
	switch e := e.(type) {
	case *ast.IntLit:
		return int(e.Value), true
	case *ast.Ident:
		v, ok := ints[e.Name]
		return v, ok
	case *ast.Binary:
		x, ok1 := evalInt(e.X, ints)
		y, ok2 := evalInt(e.Y, ints)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch e.Op {
		case ast.Add:
			return x + y, true
		case ast.Sub:
			return x - y, true
		case ast.Mul:
			return x * y, true
		case ast.Div:
			if y != 0 {
				return x / y, true
			}
		case ast.Rem:
			if y != 0 {
				return x % y, true
			}
		}
	case *ast.Unary:
		if e.Op == ast.Neg {
			x, ok := evalInt(e.X, ints)
			return -x, ok
		}
	}
	return 0, false
}

// refs reports whether stmts reference the variable name.
func refs(stmts []ast.Stmt, name string) bool {
	found := false
	for _, st := range stmts {
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				found = found || n.Name == name
			case *ast.Decl:
				found = found || n.Name == name
			case *ast.For:
				found = found || n.Var == name
			}
			return !found
		})
	}
	return found
}

// refsArray reports whether stmts reference the array name.
func refsArray(stmts []ast.Stmt, name string) bool {
	found := false
	for _, st := range stmts {
		ast.Inspect(st, func(n ast.Node) bool {
			if ix, ok := n.(*ast.Index); ok && ix.Array == name {
				found = true
			}
			return !found
		})
	}
	return found
}

// localTemp reports whether name is a temporary of stmts: its first
// reference is an unconditional top-level assignment name = e that does not
// read name, so no value flows into stmts through it.
func localTemp(stmts []ast.Stmt, name string, isArray bool) bool {
	for _, st := range stmts {
		touches := func(xs []ast.Stmt) bool {
			if isArray {
				return refsArray(xs, name)
			}
			return refs(xs, name)
		}
		if !touches([]ast.Stmt{st}) {
			continue
		}
		if d, ok := st.(*ast.Decl); ok && d.Name == name {
			return true // a declaration starts a new variable
		}
		a, ok := st.(*ast.Assign)
		if !ok || a.Op != ast.Set {
			return false
		}
		rhs := []ast.Stmt{&ast.Assign{LHS: ast.Id("_"), RHS: a.RHS}}
		if touches(rhs) {
			return false
		}
		switch l := a.LHS.(type) {
		case *ast.Ident:
			return !isArray && l.Name == name
		case *ast.Index:
			if !isArray || l.Array != name {
				return false
			}
			for _, ix := range l.Indices {
				if touches([]ast.Stmt{&ast.Assign{LHS: ast.Id("_"), RHS: ix}}) {
					return false
				}
			}
			return true
		}
		return false
	}
	return true
}

func (s *state) variant() *Variant {
	v := &Variant{Kernel: s.k, LocalBytes: s.localBytes, Staged: s.staged, Promoted: s.promoted}
	for d := 0; d < s.dims; d++ {
		v.Global = append(v.Global, s.geom[d].sz)
		v.Local = append(v.Local, s.geom[d].lsz)
	}
	s.k.WorkGroup = append([]int(nil), v.Local...)
	sort.Strings(v.Staged)
	sort.Strings(v.Promoted)
	return v
}

// axis returns "x", "y" or "z".
func axis(d int) string { return strings.ToLower("XYZ"[d : d+1]) }
