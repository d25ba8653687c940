package transforms

import (
	"fmt"

	"github.com/hplopt/hplopt/ast"
)

var tiling = &Pass{
	Name: "tiling",
	Doc: `Splits each loop of the main compute nest into a tile loop and an element
loop (Figure 4), with the bound min(tile+tW, end) when tW does not divide the
loop. Tile loops are hoisted outside the element loops; when that reorders
iterations (any loop but the outermost is split) the body must be a reduction.`,
	Run: func(s *state) error {
		for i, l := range s.loops {
			lo, okLo := evalInt(l.Lo, s.prob.Ints)
			hi, okHi := evalInt(l.Hi, s.prob.Ints)
			if okLo && okHi {
				l.known, l.length = true, max(0, hi-lo)
				l.Lo, l.Hi = ast.IntConst(int64(lo)), ast.IntConst(int64(hi))
			}
			t := s.p.Tile[i]
			if t > 0 && l.known && t > l.length {
				return illegal("tw%d=%d exceeds the %d iterations of loop %s", i, t, l.length, l.Var)
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
			if l.split {
				e.Lo = ast.Id(l.tile)
				end := ast.Sum(ast.Id(l.tile), ast.IntConst(int64(l.T)))
				if l.known && l.length%l.T == 0 {
					e.Hi = end
				} else {
					e.Hi = ast.Min(end, ast.CloneExpr(l.Hi))
				}
			}
			l.elem = e
		}
		return nil
	},
}

// tileBase is the first iteration of loop l's current tile.
func (l *nestLoop) tileBase() ast.Expr {
	if l.split {
		return ast.Id(l.tile)
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
