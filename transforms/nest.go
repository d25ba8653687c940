package transforms

import (
	"slices"

	"github.com/hplopt/hplopt/ast"
)

// nest is the compute section split around its main loop nest: the
// statements before the nest (pre), the nest's loops and the body of the
// innermost one, and the statements after the nest (post). The declarations
// at the top of pre and post are hoisted out of them, so that each part can
// be placed on its own (once per point, around the tile loops) and still see
// every variable.
type nest struct {
	pre, body, post []ast.Stmt
	loops           []*nestLoop // outermost first; none when the compute section has no loop the passes can follow
	hoisted         []ast.Stmt  // the declarations of pre and post, without their initial values
}

// nestLoop is one loop of the main compute loop nest. newState sets where it
// is and its bounds; tiling decides its tiles and makes its element loop.
type nestLoop struct {
	index  int // in patterns.Info.Loops
	Var    string
	Lo, Hi ast.Expr
	length int      // trip count, when known
	known  bool     // length is known
	T      int      // tile size (= length when not tiled; 0 when unknown)
	split  bool     // the loop is split into tiles
	tile   string   // the tile loop's counter, when split
	elem   *ast.For // the element loop, made by tiling
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
		s.loops = append(s.loops, &nestLoop{index: s.loopOf(f), Var: f.Var, Lo: f.Lo, Hi: f.Hi})
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

// hoist moves the declarations at the top of pre and post to hoisted; those
// with an initial value leave an assignment in their place.
func (s *state) hoist() {
	for _, part := range []*[]ast.Stmt{&s.pre, &s.post} {
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

// BoundInts returns the names of the int arguments (keys of prob.Ints)
// that the bounds of the main compute loop nest read, sorted: the only int
// values the passes read (LoopLengths, tiling), so the only ones on which
// the variants made for a setting, and the loop lengths a search space is
// built from, depend. Other int arguments are passed to the kernel as they
// are, like the float ones. With no nest, the result is empty.
func BoundInts(prob *Problem) ([]string, error) {
	s, err := newState(prob, Baseline(prob))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range s.loops {
		for _, e := range []ast.Expr{l.Lo, l.Hi} {
			ast.Inspect(e, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					if _, ok := prob.Ints[id.Name]; ok && !slices.Contains(names, id.Name) {
						names = append(names, id.Name)
					}
				}
				return true
			})
		}
	}
	slices.Sort(names)
	return names, nil
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
