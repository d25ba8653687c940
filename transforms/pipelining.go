package transforms

import (
	"github.com/hplopt/hplopt/ast"
)

var pipelining = &Pass{
	Name:     "pipelining",
	Requires: []*Pass{staging, assembly},
	Doc: `With prefetch, overlaps the copy of the next tile of the staged arrays with
the computation on the current one, in the innermost tile loop that holds
the copies: the first tile is copied before the loop. prefetch=1 reads the
next tile into private registers before the computation and stores them into
local memory after it (two barriers per tile, as without it); prefetch=2
double-buffers the local arrays (a leading dimension of 2): the next tile is
copied into the half the computation does not read, with one barrier per
tile; prefetch=3 is prefetch=1 with no branch around the reads and the
stores: the last step reads its own tile again (its base k_t + (k_t + T <
N) * T) and stores it where it already is, so that the compiler has no
branch to move the reads behind. Illegal without lmem or without a tiled
loop, and when the doubled arrays exceed the device's local memory.`,
	Run: func(s *state) error {
		mode := s.p.Prefetch
		if mode == 0 {
			return nil
		}
		switch {
		case mode > 3:
			return illegal("prefetch=%d: want 0, 1, 2 or 3", mode)
		case !s.p.LocalMem:
			return illegal("prefetch=%d needs lmem=1", mode)
		case s.tileLoop == nil:
			return illegal("prefetch=%d: no compute loop is split into tiles, so there is no next tile to copy", mode)
		}
		t := s.tileLoop
		body := t.Body.List // copies..., barrier, nest, barrier
		nc := len(s.local.copies)
		copies, nest := body[:nc], body[nc+1]
		next := ast.Sum(ast.Id(t.Var), ast.CloneExpr(t.Step))
		at := func(st ast.Stmt, tile ast.Expr) ast.Stmt {
			return ast.SubstituteStmt(st, map[string]ast.Expr{t.Var: tile})
		}
		hasNext := func() ast.Expr { return ast.Bin(ast.Lt, ast.CloneExpr(next), ast.CloneExpr(t.Hi)) }
		var prologue, loads, stores []ast.Stmt
		if mode == 2 {
			local := map[string]bool{}
			for _, st := range s.local.decls {
				d := st.(*ast.Decl)
				d.Extents = append([]int{2}, d.Extents...)
				local[d.Name] = true
			}
			s.local.bytes *= 2
			if lim := s.prob.LocalMem; lim > 0 && s.local.bytes+s.split.bytes > lim {
				return illegal("prefetch=2 doubles the local memory to %d bytes; the device has %d", s.local.bytes+s.split.bytes, lim)
			}
			cur := s.fresh("cur")
			half := func(st ast.Stmt, h ast.Expr) ast.Stmt { return withLeading(st, local, h) }
			for _, c := range copies {
				prologue = append(prologue, half(at(c, ast.CloneExpr(t.Lo)), ast.IntConst(0)))
				loads = append(loads, half(at(c, next), ast.Bin(ast.Sub, ast.IntConst(1), ast.Id(cur))))
			}
			nest = half(nest, ast.Id(cur))
			count := ast.Bin(ast.Div, ast.Bin(ast.Sub, ast.Id(t.Var), ast.CloneExpr(t.Lo)), ast.CloneExpr(t.Step))
			t.Body.List = []ast.Stmt{
				ast.IntDecl(cur, ast.Bin(ast.Rem, count, ast.IntConst(2))),
				&ast.If{Cond: hasNext(), Then: ast.NewBlock(loads...)},
				nest,
				&ast.Barrier{Local: true},
			}
		} else {
			types := kernelTypes(s.k)
			var regs []ast.Stmt
			// prefetch=3 reads the tile at the base pf: the next one, or
			// the current one again in the last step.
			var pf string
			from := next
			if mode == 3 {
				pf = s.fresh("k_pf")
				from = ast.Id(pf)
			}
			for _, c := range copies {
				prologue = append(prologue, at(c, ast.CloneExpr(t.Lo)))
				l, st, r := s.throughRegisters(at(c, ast.CloneExpr(from)), types)
				loads, stores, regs = append(loads, l), append(stores, st), append(regs, r...)
			}
			s.comp.Body.List = append(regs, s.comp.Body.List...)
			var base []ast.Stmt
			load, store := ast.Stmt(&ast.If{Cond: hasNext(), Then: ast.NewBlock(loads...)}), ast.Stmt(&ast.If{Cond: hasNext(), Then: ast.NewBlock(stores...)})
			if mode == 3 {
				base = []ast.Stmt{ast.IntDecl(pf, ast.Sum(ast.Id(t.Var), ast.Bin(ast.Mul, hasNext(), ast.CloneExpr(t.Step))))}
				load, store = ast.NewBlock(loads...), ast.NewBlock(stores...)
			}
			t.Body.List = append(base, load, nest, &ast.Barrier{Local: true}, store, &ast.Barrier{Local: true})
		}
		prologue = append(prologue, &ast.Barrier{Local: true})
		s.comp.Body = ast.Apply(s.comp.Body, nil, func(c *ast.Cursor) bool {
			if c.Node() == ast.Node(t) {
				c.InsertBefore(prologue...)
			}
			return true
		}).(*ast.Block)
		return nil
	},
}

// withLeading returns st with every reference to the local arrays named in
// local given the leading subscript h.
func withLeading(st ast.Stmt, local map[string]bool, h ast.Expr) ast.Stmt {
	return ast.Apply(st, nil, func(c *ast.Cursor) bool {
		if ix, ok := c.Node().(*ast.Index); ok && local[ix.Array] && len(ix.Indices) > 0 {
			if id, ok := ix.Indices[0].(*ast.Ident); !ok || id != h {
				ix.Indices = append([]ast.Expr{ast.CloneExpr(h)}, ix.Indices...)
			}
		}
		return true
	}).(ast.Stmt)
}

// throughRegisters splits a copy into local memory (straight-line rounds
// or a copy loop) into the reads of its elements into private registers and
// the stores of the registers into local memory: one register per round, a
// private array indexed by the counter of a copy loop.
func (s *state) throughRegisters(copy ast.Stmt, types map[string]ast.Type) (load, store ast.Stmt, regs []ast.Stmt) {
	var split func(st ast.Stmt, reg func(*ast.Assign) ast.Expr) (ast.Stmt, ast.Stmt)
	split = func(st ast.Stmt, reg func(*ast.Assign) ast.Expr) (ast.Stmt, ast.Stmt) {
		l, r := ast.Clone(st), ast.Clone(st)
		var made ast.Expr
		l = ast.Apply(l, nil, func(c *ast.Cursor) bool {
			if a, ok := c.Node().(*ast.Assign); ok {
				made = reg(a)
				c.Replace(&ast.Assign{LHS: made, Op: ast.Set, RHS: a.RHS})
			}
			return true
		}).(ast.Stmt)
		r = ast.Apply(r, nil, func(c *ast.Cursor) bool {
			if a, ok := c.Node().(*ast.Assign); ok {
				c.Replace(&ast.Assign{LHS: a.LHS, Op: ast.Set, RHS: ast.CloneExpr(made)})
			}
			return true
		}).(ast.Stmt)
		return l, r
	}
	var ls, ss []ast.Stmt
	switch c := copy.(type) {
	case *ast.Block: // straight-line rounds
		for _, round := range c.List {
			l, r := split(round, func(a *ast.Assign) ast.Expr {
				name := s.fresh("pf_" + a.LHS.(*ast.Index).Array)
				regs = append(regs, &ast.Decl{Name: name, Type: types[a.LHS.(*ast.Index).Array], Mem: ast.Private})
				return ast.Id(name)
			})
			ls, ss = append(ls, l), append(ss, r)
		}
		load, store = ast.NewBlock(ls...), ast.NewBlock(ss...)
	case *ast.For: // a copy loop: a register array indexed by its counter
		trips := int(c.Hi.(*ast.IntLit).Value)
		load, store = split(c, func(a *ast.Assign) ast.Expr {
			arr := a.LHS.(*ast.Index).Array
			name := s.fresh("pf_" + arr)
			regs = append(regs, &ast.Decl{Name: name, Type: types[arr], Mem: ast.Private, Extents: []int{trips}})
			return &ast.Index{Array: name, Indices: []ast.Expr{ast.Id(c.Var)}}
		})
	default:
		panic("a copy into local memory that is neither rounds nor a loop")
	}
	return load, store, regs
}
