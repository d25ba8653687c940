package transforms

import "github.com/hplopt/hplopt/ast"

var assembly = &Pass{
	Name:     "assembly",
	Requires: []*Pass{tiling, staging, coarsening, promotion},
	Doc: `Rebuilds the compute section from the parts: the cyclic loops over the
work-group's blocks; per point, the loads and the statements before the nest;
the tile loops with the local-memory copies between barriers around the
element loops, whose body runs once per point; per point, the statements after
the nest and the stores.`,
	Run: func(s *state) error {
		s.comp.Body = s.assemble()
		s.assembled = true
		return nil
	},
}

// assemble builds the compute section from the parts as they are: the
// assembly pass, and the tests' checks between the passes before it. It
// changes nothing in the state but the bodies of the element loops.
func (s *state) assemble() *ast.Block {
	var inner []ast.Stmt
	for d := 0; d < s.dims; d++ {
		g := s.geom[d]
		inner = append(inner, ast.IntDecl(g.b, s.blockBase(d)))
	}
	inner = append(inner, s.perPoint(concat(s.private.loads, s.pre))...)
	if len(s.loops) > 0 {
		var nest ast.Stmt
		for i := len(s.loops) - 1; i >= 0; i-- {
			e := s.loops[i].elem
			if nest == nil {
				e.Body = ast.NewBlock(s.perPoint(s.body)...)
			} else {
				e.Body = ast.NewBlock(nest)
			}
			nest = e
		}
		list := []ast.Stmt{nest}
		if len(s.local.copies) > 0 {
			list = append(append(append([]ast.Stmt{}, s.local.copies...), &ast.Barrier{Local: true}), nest, &ast.Barrier{Local: true})
		}
		s.tileLoop = nil
		for i := len(s.loops) - 1; i >= 0; i-- {
			l := s.loops[i]
			if l.split {
				f := ast.Loop(ast.TileLoop, l.tile, ast.CloneExpr(l.Lo), ast.CloneExpr(l.Hi), ast.IntConst(int64(l.T)), list...)
				if s.tileLoop == nil && len(s.local.copies) > 0 {
					s.tileLoop = f
				}
				list = []ast.Stmt{f}
			}
		}
		inner = append(inner, list...)
	}
	inner = append(inner, s.perPoint(concat(s.post, s.private.stores))...)
	out := inner
	for d := 0; d < s.dims; d++ {
		g := s.geom[d]
		start := ast.Product(s.groupID(d), ast.IntConst(int64(g.lsz*g.bsz)))
		if g.cyclic {
			out = []ast.Stmt{ast.Loop(ast.CyclicLoop, g.c, start, ast.IntConst(int64(g.N)), ast.IntConst(int64(g.sz*g.bsz)), out...)}
		} else {
			out = append([]ast.Stmt{ast.IntDecl(g.c, start)}, out...)
		}
	}
	return ast.NewBlock(concat(s.local.decls, s.hoisted, s.private.decls, s.remaps(), out)...)
}

// perPoint wraps stmts in the loops over the points of a block, with a
// guard when points can fall outside the domain.
func (s *state) perPoint(stmts []ast.Stmt) []ast.Stmt {
	if len(stmts) == 0 {
		return nil
	}
	body := stmts
	var conds []ast.Expr
	for d := 0; d < s.dims; d++ {
		g := s.geom[d]
		if !g.guard {
			continue
		}
		conds = append(conds, ast.Bin(ast.Lt, s.coord(d), ast.IntConst(int64(g.N))))
	}
	if c := all(conds); c != nil {
		body = []ast.Stmt{&ast.If{Cond: c, Then: ast.NewBlock(body...)}}
	}
	looped := false
	for d := 0; d < s.dims; d++ {
		g := s.geom[d]
		if g.bsz > 1 {
			body = []ast.Stmt{ast.Loop(ast.PointLoop, g.p, ast.IntConst(0), ast.IntConst(int64(g.bsz)), ast.IntConst(1), body...)}
			looped = true
		}
	}
	if !looped {
		if _, ok := body[0].(*ast.If); ok && len(body) == 1 {
			return body
		}
		return []ast.Stmt{ast.NewBlock(body...)}
	}
	return body
}

// concat returns the statements of lists, one after the other, in a new
// slice.
func concat(lists ...[]ast.Stmt) []ast.Stmt {
	var out []ast.Stmt
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
