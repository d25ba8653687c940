package transforms

import "github.com/hplopt/hplopt/ast"

var assembly = &Pass{
	Name:     "assembly",
	Requires: []*Pass{tiling, staging, coarsening, promotion},
	Doc: `Rebuilds the compute section from the parts: the cyclic loops over the
work-group's blocks; per point, the loads and the statements before the nest;
the tile loops with the local-memory copies between barriers around the
element loops, whose body runs once per point; per point, the statements after
the nest and the stores. Without a loop nest, the copies and a barrier come
before the points' code (and a barrier after it when the work-group visits
several blocks).`,
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
	// Without a loop nest, the staged arrays are copied once per block of
	// the work-group, before the points' code; a barrier after it keeps the
	// next block's copy from overwriting what a work-item still reads.
	// A work-item visits several blocks (cyclic along some dimension).
	cyclic := false
	for d := 0; d < s.dims; d++ {
		cyclic = cyclic || s.geom[d].cyclic
	}
	repeat := false
	if len(s.loops) == 0 && len(s.local.copies) > 0 {
		inner = append(append(inner, s.local.copies...), &ast.Barrier{Local: true})
		repeat = cyclic
	}
	inner = append(inner, s.perPoint(concat(s.private.loads, s.pre))...)
	if s.outer != nil {
		inner = append(inner, s.outerLoop())
	} else if len(s.loops) > 0 {
		inner = append(inner, s.nestCode()...)
	}
	if s.split.on {
		inner = append(inner, s.combine(cyclic)...)
	} else {
		inner = append(inner, s.perPoint(concat(s.post, s.private.stores))...)
	}
	if repeat {
		inner = append(inner, &ast.Barrier{Local: true})
	}
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
	return ast.NewBlock(concat(s.local.decls, s.split.decls, s.hoisted, s.private.decls, s.remaps(), out)...)
}

// outerLoop is the outer loop around the nest: over the work-group's range
// of its bounds (the same for all its work-items, so that the nest's tiles
// may hold barriers), its statements before and after the nest run per
// point, each point within its own bounds.
func (s *state) outerLoop() ast.Stmt {
	o := s.outer
	conds := s.bounds(o, false)
	lo, hi := ast.CloneExpr(o.Lo), ast.CloneExpr(o.Hi)
	if o.lower != nil {
		lo = s.groupBound(o.lower, false)
	}
	if o.upper != nil {
		hi = s.groupBound(o.upper, true)
	}
	body := concat(s.perPoint(s.opre, conds...), s.nestCode(), s.perPoint(s.opost, cloneAll(conds)...))
	return ast.Loop(ast.UserLoop, o.Var, lo, hi, ast.IntConst(1), body...)
}

// nestCode is the nest: the tile loops with the local-memory copies between
// barriers around the element loops, whose body runs per point.
func (s *state) nestCode() []ast.Stmt {
	var nest ast.Stmt
	for i := len(s.loops) - 1; i >= 0; i-- {
		e := s.loops[i].elem
		if nest == nil {
			more := s.pointBounds()
			if s.outer != nil {
				more = append(more, s.bounds(s.outer, false)...)
			}
			e.Body = ast.NewBlock(s.perPoint(s.body, more...)...)
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
			lo, hi := ast.CloneExpr(l.Lo), ast.CloneExpr(l.Hi)
			if l.lower != nil {
				lo = s.groupBound(l.lower, false)
			}
			if l.upper != nil {
				hi = s.groupBound(l.upper, true)
			}
			if i == 0 && s.split.on {
				// The part's own contiguous range of the loop.
				n := int64(l.length / s.nparts)
				lo = ast.Sum(lo, ast.Product(ast.Id(s.part), ast.IntConst(n)))
				hi = ast.Sum(ast.CloneExpr(lo), ast.IntConst(n))
			}
			f := ast.Loop(ast.TileLoop, l.tile, lo, hi, ast.IntConst(int64(l.T)), list...)
			if s.tileLoop == nil && len(s.local.copies) > 0 {
				s.tileLoop = f
			}
			list = []ast.Stmt{f}
		}
	}
	return list
}

// perPoint wraps stmts in the loops over the points of a block, with a
// guard when points can fall outside the domain, the kernel's bounds guard
// for the point, and the conditions more, which may use the point's
// coordinates (s.coord).
func (s *state) perPoint(stmts []ast.Stmt, more ...ast.Expr) []ast.Stmt {
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
	if s.guard != nil {
		conds = append(conds, ast.Substitute(s.guard, s.pointRepl()))
	}
	conds = append(conds, more...)
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
