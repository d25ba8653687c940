package transforms

import (
	"fmt"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/patterns"
)

var tiling = &Pass{
	Name: "tiling",
	Doc: `Splits each loop of the main compute nest into a tile loop and an element
loop (Figure 4), with the bound min(tile+tW, end) when tW does not divide the
loop. Tile loops are hoisted outside the element loops; when that reorders
iterations (any loop but the outermost is split) the body must be a reduction.
A triangular loop (a bound that is a global id or an enclosing nest loop's
counter plus a constant) has tile loops that run over the bounds of the whole
work-group, the same for all its work-items (barriers may sit in them), and
element loops clipped to the work-item's bounds; the points of a block whose
bound differs from the work-item's are guarded. With split=S, the outermost
loop falls into S parts of equal length, each tiled by tw0 (one tile a part
when tw0 is 0), which must divide it.`,
	Run: func(s *state) error {
		s.measureLoops()
		for i, l := range s.loops {
			t := s.p.Tile[i]
			if t > 0 && l.known && t > l.length {
				return illegal("tw%d=%d exceeds the %d iterations of loop %s", i, t, l.length, l.Var)
			}
			if t > 0 && !l.known && l.most > 0 && t > l.most {
				return illegal("tw%d=%d exceeds the at most %d iterations of loop %s", i, t, l.most, l.Var)
			}
			if i == 0 && s.nparts > 1 {
				if err := s.tileParts(l, t); err != nil {
					return err
				}
				continue
			}
			if t > 0 && (!l.known || t < l.length) {
				l.split, l.T = true, t
				l.tile = s.fresh(l.Var + "_t")
			} else if l.known {
				l.T = l.length
			}
		}
		for i, l := range s.loops {
			if l.split && i > 0 {
				if why := reduction(s.body); why != "" {
					return illegal("tw%d=%d reorders the iterations of the loop nest, but its body is not a reduction: %s", i, l.T, why)
				}
				break
			}
		}
		for _, l := range s.loops {
			e := &ast.For{Var: l.Var, Lo: l.Lo, Hi: l.Hi, Step: ast.IntConst(1), Role: ast.ElementLoop}
			if l.lower != nil {
				e.Lo = s.itemBound(l.lower, false)
			}
			if l.upper != nil {
				e.Hi = s.itemBound(l.upper, true)
			}
			if l.split {
				end := ast.Sum(ast.Id(l.tile), ast.IntConst(int64(l.T)))
				switch {
				case l.lower != nil:
					e.Lo = ast.Max(ast.Id(l.tile), e.Lo)
				default:
					e.Lo = ast.Id(l.tile)
				}
				if l.known && l.length%l.T == 0 {
					e.Hi = end
				} else {
					e.Hi = ast.Min(end, e.Hi)
				}
			}
			l.elem = e
		}
		return nil
	},
}

// measureLoops sets the trip counts of the nest's loops that prob.Ints
// fixes (known, length), and for a triangular loop the largest trip count
// of any point (most), 0 when it is not known either.
func (s *state) measureLoops() {
	loops := s.loops
	if s.outer != nil {
		loops = append([]*nestLoop{s.outer}, loops...)
	}
	for _, l := range loops {
		lo, okLo := evalInt(l.Lo, s.prob.Ints)
		hi, okHi := evalInt(l.Hi, s.prob.Ints)
		if l.lower == nil && l.upper == nil {
			if okLo && okHi {
				l.known, l.length = true, max(0, hi-lo)
				l.Lo, l.Hi = ast.IntConst(int64(lo)), ast.IntConst(int64(hi))
			}
			continue
		}
		if l.lower != nil {
			lo, okLo = s.boundRange(l.lower, false)
		} else if okLo {
			l.Lo = ast.IntConst(int64(lo))
		}
		if l.upper != nil {
			hi, okHi = s.boundRange(l.upper, true)
		} else if okHi {
			l.Hi = ast.IntConst(int64(hi))
		}
		if okLo && okHi {
			l.most = max(0, hi-lo)
		}
	}
}

// counterRange returns the smallest and largest value the counter of the
// nest loop with pattern index idx takes, if they are known.
func (s *state) counterRange(idx int) (first, last int, ok bool) {
	for _, l := range append([]*nestLoop{s.outer}, s.loops...) {
		if l == nil || l.index != idx {
			continue
		}
		lo, okLo := evalInt(l.Lo, s.prob.Ints)
		hi, okHi := evalInt(l.Hi, s.prob.Ints)
		if l.lower != nil {
			lo, okLo = s.boundRange(l.lower, false)
		}
		if l.upper != nil {
			hi, okHi = s.boundRange(l.upper, true)
		}
		return lo, hi - 1, okLo && okHi
	}
	return 0, 0, false
}

// boundRange returns the smallest (largest, when upper) value a triangular
// bound takes over the domain.
func (s *state) boundRange(b *patterns.Subscript, upper bool) (int, bool) {
	v := int(b.Offset)
	if b.Kind == patterns.ID || b.Kind == patterns.IDCounter {
		if upper {
			v += s.geom[b.Dim].N - 1
		}
	}
	if b.Kind == patterns.Counter || b.Kind == patterns.IDCounter {
		first, last, ok := s.counterRange(b.Loop)
		if !ok {
			return 0, false
		}
		if upper {
			v += last
		} else {
			v += first
		}
	}
	return v, true
}

// nestLoopOf returns the nest loop, or the outer loop, with pattern index
// idx, or nil.
func (s *state) nestLoopOf(idx int) *nestLoop {
	for _, l := range s.loops {
		if l.index == idx {
			return l
		}
	}
	if s.outer != nil && s.outer.index == idx {
		return s.outer
	}
	return nil
}

// groupBound is a triangular bound's smallest value (largest, when upper)
// over the points of the work-group's current block and the current tiles
// of the enclosing nest loops: the same for every work-item of the group,
// so that the tile loop it bounds may hold barriers.
func (s *state) groupBound(b *patterns.Subscript, upper bool) ast.Expr {
	var e ast.Expr = ast.IntConst(b.Offset)
	if b.Kind == patterns.ID || b.Kind == patterns.IDCounter {
		g := s.geom[b.Dim]
		e = ast.Sum(ast.Id(g.c), e)
		if upper {
			e = ast.Sum(e, ast.IntConst(int64(g.lsz*g.bsz-1)))
		}
	}
	if b.Kind == patterns.Counter || b.Kind == patterns.IDCounter {
		e = ast.Sum(s.counterBound(b.Loop, upper), e)
	}
	return e
}

// counterBound is the smallest value (largest, when upper) of the counter
// of the nest loop with pattern index idx in its current tile, or over its
// whole range when it is not split: a bound for the loops inside it.
func (s *state) counterBound(idx int, upper bool) ast.Expr {
	l := s.nestLoopOf(idx)
	switch {
	case l == s.outer: // the same for the whole work-group at a time
		return ast.Id(l.Var)
	case l.split && !upper:
		return ast.Id(l.tile)
	case l.split:
		return ast.Sum(ast.Id(l.tile), ast.IntConst(int64(l.T-1)))
	case !upper && l.lower != nil:
		return s.groupBound(l.lower, false)
	case !upper:
		return ast.CloneExpr(l.Lo)
	case l.upper != nil:
		return ast.Sum(s.groupBound(l.upper, true), ast.IntConst(-1))
	}
	return ast.Sum(ast.CloneExpr(l.Hi), ast.IntConst(-1))
}

// itemBound is a triangular bound's smallest value (largest, when upper)
// over the work-item's points: the bound of its element loop. A counter in
// the bound is the enclosing element loop's, in scope there.
func (s *state) itemBound(b *patterns.Subscript, upper bool) ast.Expr {
	var e ast.Expr = ast.IntConst(b.Offset)
	if b.Kind == patterns.ID || b.Kind == patterns.IDCounter {
		e = ast.Sum(s.extremeCoord(b.Dim, upper), e)
	}
	if b.Kind == patterns.Counter || b.Kind == patterns.IDCounter {
		e = ast.Sum(ast.Id(s.nestLoopOf(b.Loop).Var), e)
	}
	return e
}

// extremeCoord is the coordinate of the work-item's first point (last, when
// last) along dimension d: its block base b, or b plus the step of its last
// point.
func (s *state) extremeCoord(d int, last bool) ast.Expr {
	g := s.geom[d]
	if !last || g.bsz == 1 {
		return ast.Id(g.b)
	}
	return ast.Sum(ast.Id(g.b), ast.Substitute(s.pointStep(d), map[string]ast.Expr{g.p: ast.IntConst(int64(g.bsz - 1))}))
}

// bounds are the conditions that keep each point within the triangular
// bounds of loop l (j2 >= b_x + p_x for a lower bound idx): for a loop run
// over the work-group's range (the outer loop), or with blocked, only
// along dimensions with blocks of several points.
func (s *state) bounds(l *nestLoop, blocked bool) []ast.Expr {
	var conds []ast.Expr
	for _, b := range []*patterns.Subscript{l.lower, l.upper} {
		if b == nil || b.Kind != patterns.ID && b.Kind != patterns.IDCounter || blocked && s.geom[b.Dim].bsz == 1 {
			continue
		}
		var e ast.Expr = ast.Sum(s.coord(b.Dim), ast.IntConst(b.Offset))
		if b.Kind == patterns.IDCounter {
			e = ast.Sum(e, ast.Id(s.nestLoopOf(b.Loop).Var))
		}
		if b == l.lower {
			conds = append(conds, ast.Bin(ast.Ge, ast.Id(l.Var), e))
		} else {
			conds = append(conds, ast.Bin(ast.Lt, ast.Id(l.Var), e))
		}
	}
	return conds
}

// pointBounds are the conditions that keep each point of a work-item
// within the triangular bounds of the nest loops, where the element loops
// bound the work-item's first or last point only: along a dimension with
// blocks of several points.
func (s *state) pointBounds() []ast.Expr {
	var conds []ast.Expr
	for _, l := range s.loops {
		conds = append(conds, s.bounds(l, true)...)
	}
	return conds
}

// tileBase is the first iteration of loop l's current tile.
// For the outer loop, run sequentially around the nest, it is the counter
// itself: its "tile" is one iteration.
func (l *nestLoop) tileBase() ast.Expr {
	switch {
	case l.split:
		return ast.Id(l.tile)
	case l.outer:
		return ast.Id(l.Var)
	}
	return ast.CloneExpr(l.Lo)
}

// reduction returns "" if the statements' iterations can be reordered: every
// assignment either sets a temporary before it is read in the same
// iteration, or accumulates (+=, -=) into a location that nothing else in the
// body reads. Otherwise it says why not.
func reduction(body []ast.Stmt) string {
	why := ""
	for _, st := range body {
		ast.Inspect(st, func(n ast.Node) bool {
			a, ok := n.(*ast.Assign)
			if !ok || why != "" {
				return why == ""
			}
			switch a.Op {
			case ast.Set:
				id, ok := a.LHS.(*ast.Ident)
				if !ok || !localTemp(body, id.Name, false) {
					why = fmt.Sprintf("%s is assigned with = but is not a temporary", ast.ExprString(a.LHS))
				}
			case ast.AddSet, ast.SubSet:
				name, isArray := "", false
				switch l := a.LHS.(type) {
				case *ast.Ident:
					name = l.Name
				case *ast.Index:
					name, isArray = l.Array, true
				}
				reads := 0
				for _, other := range body {
					ast.Inspect(other, func(m ast.Node) bool {
						switch m := m.(type) {
						case *ast.Ident:
							if !isArray && m.Name == name {
								reads++
							}
						case *ast.Index:
							if isArray && m.Array == name {
								reads++
							}
						}
						return true
					})
				}
				if reads > 1 {
					why = fmt.Sprintf("%s accumulates but is also read in the loop body", ast.ExprString(a.LHS))
				}
			default:
				why = fmt.Sprintf("%s %s is not an accumulation", ast.ExprString(a.LHS), a.Op)
			}
			return why == ""
		})
	}
	return why
}

// tileParts tiles the outermost loop l of the nest for split (the splitting
// pass): its iterations fall into s.nparts contiguous parts of equal
// length, each tiled by tw0 = t, or one tile a part when t is 0. The parts
// must run the same number of tiles, so that every work-item of a group
// meets the same barriers.
func (s *state) tileParts(l *nestLoop, t int) error {
	n := s.nparts
	switch {
	case s.outer != nil:
		return illegal("split=%d: the nest lies in loop %s, which holds other statements around it; only a nest at the top of the compute section is split", n, s.outer.Var)
	case l.lower != nil || l.upper != nil:
		return illegal("split=%d: the bounds of loop %s differ from point to point", n, l.Var)
	case !l.known:
		return illegal("split=%d: the length of loop %s is not known", n, l.Var)
	case l.length%n != 0:
		return illegal("split=%d does not divide the %d iterations of loop %s: the parts would differ in length", n, l.length, l.Var)
	}
	part := l.length / n
	if t == 0 {
		t = part
	}
	switch {
	case t > part:
		return illegal("tw0=%d exceeds the %d iterations of a part of loop %s (split=%d)", t, part, l.Var, n)
	case part%t != 0:
		return illegal("tw0=%d does not divide the %d iterations of a part of loop %s (split=%d): the parts' tiles would not line up", t, part, l.Var, n)
	}
	l.split, l.T = true, t
	l.tile = s.fresh(l.Var + "_t")
	return nil
}
