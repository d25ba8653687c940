package transforms

import (
	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/patterns"
)

// nest is the compute section split around its main loop nest: the
// statements before the nest (pre), the nest's loops and the body of the
// innermost one, and the statements after the nest (post). The declarations
// at the top of pre and post are hoisted out of them, so that each part can
// be placed on its own (once per point, around the tile loops) and still see
// every variable.
//
// A bounds guard around the work (patterns.Guard: if (idx < n) { ... } at
// the end of the compute section) is taken apart: the statements before it
// join pre, its body is split as the compute section would be, and its
// condition, kept in guard, is tested again for every point wherever a
// part runs (perPoint).
//
// When the first loop's body holds other statements around a loop (for
// (j2 = idx; j2 < m; j2++) { acc = 0; for (i...) acc += ...; cov[..] = acc;
// }), the nest is that inner loop, and the first loop is its outer loop,
// run sequentially around it: opre and opost are the statements before and
// after the nest in the outer loop's body. The outer loop runs over the
// work-group's range, the same for all its work-items (the nest's tiles
// may hold barriers), each point guarded by its own bounds.
type nest struct {
	pre, body, post []ast.Stmt
	loops           []*nestLoop // outermost first; none when the compute section has no loop the passes can follow
	hoisted         []ast.Stmt  // the declarations of pre and post, without their initial values
	guard           ast.Expr    // the bounds guard's condition in global ids, sizes and arguments, or nil
	outer           *nestLoop   // the sequential loop around the nest, or nil
	opre, opost     []ast.Stmt  // the outer loop's statements before and after the nest
}

// parts are the parts of the compute section the passes rewrite, in the
// order they run.
func (s *state) parts() []*[]ast.Stmt {
	return []*[]ast.Stmt{&s.pre, &s.opre, &s.body, &s.opost, &s.post}
}

// nestLoop is one loop of the main compute loop nest. newState sets where it
// is and its bounds; tiling decides its tiles and makes its element loop.
type nestLoop struct {
	index  int // in patterns.Info.Loops
	Var    string
	Lo, Hi ast.Expr
	length int  // trip count, when known
	known  bool // length is known
	// lower and upper describe a bound that depends on a global id or on
	// an enclosing nest loop's counter (a triangular loop,
	// patterns.Loop.Lower and Upper); nil for a bound fixed for the launch.
	// Such a loop's length is not known; most is the largest trip count of
	// any point, when the other bounds are known.
	lower, upper *patterns.Subscript
	most         int
	T            int      // tile size (= length when not tiled; 0 when unknown)
	split        bool     // the loop is split into tiles
	tile         string   // the tile loop's counter, when split
	elem         *ast.For // the element loop, made by tiling
	outer        bool     // the outer loop around the nest (nest.outer): one iteration at a time
}

// splitNest finds the main compute loop nest: the first loop at the top of
// the compute section and the loops perfectly nested in it.
func (s *state) splitNest() {
	list := s.comp.Body.List
	if g := s.info.Guard; g != nil && len(s.info.Unsupported) == 0 {
		list = append(append([]ast.Stmt(nil), list[:g.Index]...), list[g.Index].(*ast.If).Then.List...)
		s.guard = ast.CloneExpr(g.Cond)
	}
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
	newLoop := func(f *ast.For) *nestLoop {
		l := &nestLoop{index: s.loopOf(f), Var: f.Var, Lo: f.Lo, Hi: f.Hi}
		if l.index >= 0 {
			l.lower, l.upper = s.info.Loops[l.index].Lower, s.info.Loops[l.index].Upper
		}
		return l
	}
	if in := innerLoop(f); in >= 0 {
		s.outer = newLoop(f)
		s.outer.outer, s.outer.T = true, 1
		s.opre, s.opost = f.Body.List[:in], f.Body.List[in+1:]
		f = f.Body.List[in].(*ast.For)
	}
	for {
		l := newLoop(f)
		s.loops = append(s.loops, l)
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

// innerLoop returns the position in f's body of the loop f runs as an outer
// loop (the first loop of its body, which holds other statements too), or
// -1 when f's body is a perfect nest (one loop) or holds no loop.
func innerLoop(f *ast.For) int {
	if len(f.Body.List) < 2 {
		return -1
	}
	for i, st := range f.Body.List {
		if _, ok := st.(*ast.For); ok {
			return i
		}
	}
	return -1
}

// hoist moves the declarations at the top of pre and post (and of the
// outer loop's parts) to hoisted; those with an initial value leave an
// assignment in their place.
func (s *state) hoist() {
	for _, part := range []*[]ast.Stmt{&s.pre, &s.opre, &s.opost, &s.post} {
		var kept []ast.Stmt
		for _, st := range *part {
			d, ok := st.(*ast.Decl)
			if !ok {
				kept = append(kept, st)
				continue
			}
			if len(d.Extents) > 0 {
				s.hoisted = append(s.hoisted, d)
				continue
			}
			s.hoisted = append(s.hoisted, &ast.Decl{Name: d.Name, Type: d.Type, Mem: d.Mem})
			if d.Init != nil {
				kept = append(kept, &ast.Assign{LHS: ast.Id(d.Name), Op: ast.Set, RHS: d.Init})
			}
		}
		*part = kept
	}
}

// Loops returns the number of loops in the main compute loop nest of prob's
// kernel: the loops that tile sizes tw0, tw1, tw2 apply to.
func Loops(prob *Problem) (int, error) {
	l, err := LoopLengths(prob)
	return len(l), err
}

// LoopLengths returns the trip counts of the loops of the main compute loop
// nest, outermost first (0 where a count is not known from prob.Ints); for
// a triangular loop, whose count differs from point to point, the largest.
// The nest is empty when the kernel has no loop or the analysis cannot
// follow its compute section.
func LoopLengths(prob *Problem) ([]int, error) {
	s, err := newState(prob, Baseline(prob))
	if err != nil {
		return nil, err
	}
	s.measureLoops()
	out := make([]int, len(s.loops))
	for i, l := range s.loops {
		out[i] = l.length
		if !l.known {
			out[i] = l.most
		}
	}
	return out, nil
}
