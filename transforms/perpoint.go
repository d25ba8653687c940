package transforms

import "github.com/hplopt/hplopt/ast"

// expand holds a value per point: references that match are replaced by an
// element of a private array indexed by the point offsets. It returns the
// per-point reference for the current point.
func (s *state) expand(base string, t ast.Type, match func(ast.Node) bool) ast.Expr {
	name := s.fresh(base)
	var ext []int
	var idx []ast.Expr
	for d := s.dims - 1; d >= 0; d-- {
		if g := s.geom[d]; g.bsz > 1 {
			ext = append(ext, g.bsz)
			idx = append(idx, ast.Id(g.p))
		}
	}
	s.private.decls = append(s.private.decls, &ast.Decl{Name: name, Type: t, Mem: ast.Private, Extents: ext})
	s.private.perPoint[name] = true
	ref := func() ast.Expr { return &ast.Index{Array: name, Indices: cloneAll(idx)} }
	for _, part := range s.parts() {
		for i, st := range *part {
			(*part)[i] = ast.Apply(st, nil, func(c *ast.Cursor) bool {
				if match(c.Node()) {
					c.Replace(ref())
				}
				return true
			}).(ast.Stmt)
		}
	}
	return ref()
}

// cloneAll deep-copies expressions.
func cloneAll(xs []ast.Expr) []ast.Expr {
	out := make([]ast.Expr, len(xs))
	for i, x := range xs {
		out[i] = ast.CloneExpr(x)
	}
	return out
}
