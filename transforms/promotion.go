package transforms

import (
	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/patterns"
)

var promotion = &Pass{
	Name:     "promotion",
	Requires: []*Pass{coarsening},
	Patterns: true,
	Doc: `Holds in private memory the elements of arrays that the compute section both
reads and writes at the point's own position (SinglePat): one private value
per point, loaded if it is read before written, and stored back after the
compute section. The load comes before the compute section, or after the
main loop nest when nothing before the nest's end reads the element (c =
beta*c + alpha*s after the loop): the value then does not hold a register
across the nest beside the sums.`,
	Run: func(s *state) error {
		for _, arr := range s.info.Arrays {
			if !arr.Read || !arr.Written || arr.Pattern != patterns.SinglePat {
				continue
			}
			if !ownElement(arr, s.dims) {
				continue
			}
			q := s.k.Param(arr.Name)
			// The element of the current point, as the coarsened code spells it.
			elem := &ast.Index{Array: arr.Name}
			for _, sub := range arr.Refs[0].Subs {
				var e ast.Expr = ast.IntConst(sub.Offset)
				if sub.Kind == patterns.ID {
					e = ast.Sum(s.coord(sub.Dim), e)
				}
				elem.Indices = append(elem.Indices, e)
			}
			whole := append(append(append([]ast.Stmt{}, s.pre...), ast.NewBlock(concat(s.opre, []ast.Stmt{ast.NewBlock(s.body...)}, s.opost)...)), s.post...)
			needLoad := !localTemp(whole, arr.Name, true)
			// Read only after the nest (c = beta*c + alpha*s): loaded there,
			// so that the value does not hold a register across the nest.
			late := !refsArray(concat(s.hoisted, s.pre, s.opre, s.body, s.opost), arr.Name)
			var ref ast.Expr
			match := func(n ast.Node) bool {
				ix, ok := n.(*ast.Index)
				return ok && ix.Array == arr.Name
			}
			if s.points > 1 {
				ref = s.expand("p_"+arr.Name, q.Type, match)
			} else {
				name := s.fresh("p_" + arr.Name)
				s.private.decls = append(s.private.decls, &ast.Decl{Name: name, Type: q.Type, Mem: ast.Private})
				ref = ast.Id(name)
				for _, part := range s.parts() {
					for i, st := range *part {
						(*part)[i] = ast.Apply(st, nil, func(c *ast.Cursor) bool {
							if match(c.Node()) {
								c.Replace(ast.Id(name))
							}
							return true
						}).(ast.Stmt)
					}
				}
			}
			if load := (&ast.Assign{LHS: ast.CloneExpr(ref), Op: ast.Set, RHS: ast.CloneExpr(elem)}); needLoad && late {
				s.post = append([]ast.Stmt{load}, s.post...)
			} else if needLoad {
				s.private.loads = append(s.private.loads, load)
			}
			s.private.stores = append(s.private.stores, &ast.Assign{LHS: elem, Op: ast.Set, RHS: ref})
			s.private.promoted = append(s.private.promoted, arr.Name)
		}
		return nil
	},
}

// ownElement reports whether every reference of arr names the same element,
// indexed by every global id of the domain: the element belongs to one point.
func ownElement(arr *patterns.Array, dims int) bool {
	first := arr.Refs[0].Subs
	ids := map[int]bool{}
	for _, sub := range first {
		switch sub.Kind {
		case patterns.ID:
			ids[sub.Dim] = true
		case patterns.Const:
		default:
			return false
		}
	}
	if len(ids) != dims {
		return false
	}
	for _, r := range arr.Refs[1:] {
		if len(r.Subs) != len(first) {
			return false
		}
		for d, sub := range r.Subs {
			if sub.Kind != first[d].Kind || sub.Dim != first[d].Dim || sub.Offset != first[d].Offset {
				return false
			}
		}
	}
	return true
}
