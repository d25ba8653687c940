package transforms

import (
	"strconv"

	"github.com/hplopt/hplopt/ast"
)

var unrolling = &Pass{
	Name:     "unrolling",
	Requires: []*Pass{tiling, assembly},
	Doc: `Unrolls the innermost element loop by uf (Figure 9), with a remainder loop
when uf does not divide every tile, and, with fullunroll, unrolls the loops
over the points of a block completely, turning each per-point private array
into one scalar per point.`,
	Run: func(s *state) error {
		if uf := s.p.Unroll; uf > 1 {
			if len(s.loops) == 0 {
				return illegal("uf=%d: no compute loop to unroll", uf)
			}
			l := s.loops[len(s.loops)-1]
			if l.T > 0 && uf > l.T {
				return illegal("uf=%d exceeds the %d iterations of a tile of loop %s", uf, l.T, l.Var)
			}
			s.unroll(l, uf)
		}
		if s.p.FullUnroll && s.points > 1 {
			s.comp.Body = ast.Apply(s.comp.Body, nil, func(c *ast.Cursor) bool {
				f, ok := c.Node().(*ast.For)
				if !ok || f.Role != ast.PointLoop {
					return true
				}
				n := int(f.Hi.(*ast.IntLit).Value)
				var copies []ast.Stmt
				for i := 0; i < n; i++ {
					copies = append(copies, ast.SubstituteStmt(f.Body, map[string]ast.Expr{f.Var: ast.IntConst(int64(i))}))
				}
				c.Replace(ast.NewBlock(copies...))
				return true
			}).(*ast.Block)
			s.scalarize()
		}
		return nil
	},
}

// unroll replaces loop l's element loop by a loop stepping uf iterations at a
// time with uf copies of the body, and a remainder loop when needed.
func (s *state) unroll(l *nestLoop, uf int) {
	e := l.elem
	exact := false
	switch {
	case l.split && l.known:
		exact = l.T%uf == 0 && l.length%l.T == 0
	case !l.split && l.known:
		exact = l.length%uf == 0
	}
	body := e.Body
	var copies []ast.Stmt
	for j := 0; j < uf; j++ {
		copies = append(copies, ast.SubstituteStmt(body, map[string]ast.Expr{l.Var: ast.Sum(ast.Id(l.Var), ast.IntConst(int64(j)))}))
	}
	main := &ast.For{Var: l.Var, Lo: e.Lo, Hi: e.Hi, Step: ast.IntConst(int64(uf)), Body: ast.NewBlock(copies...), Role: ast.ElementLoop}
	var repl ast.Stmt = main
	if !exact {
		// main loop: lo + (hi-lo)/uf*uf; remainder: the rest, one by one
		span := ast.Bin(ast.Sub, ast.CloneExpr(e.Hi), ast.CloneExpr(e.Lo))
		end := ast.Sum(ast.CloneExpr(e.Lo), ast.Product(ast.Bin(ast.Div, span, ast.IntConst(int64(uf))), ast.IntConst(int64(uf))))
		main.Hi = end
		rest := &ast.For{Var: l.Var, Lo: ast.CloneExpr(end), Hi: ast.CloneExpr(e.Hi), Step: ast.IntConst(1), Body: body, Role: ast.ElementLoop}
		repl = ast.NewBlock(main, rest)
	}
	s.comp.Body = ast.Apply(s.comp.Body, nil, func(c *ast.Cursor) bool {
		if c.Node() == ast.Node(e) {
			c.Replace(repl)
		}
		return true
	}).(*ast.Block)
}

// scalarize turns per-point private arrays indexed by constants into
// scalars: v_p[1][2] becomes v_p_1_2.
func (s *state) scalarize() {
	scalarName := func(ix *ast.Index) (string, bool) {
		name := ix.Array
		for _, i := range ix.Indices {
			l, ok := i.(*ast.IntLit)
			if !ok {
				return "", false
			}
			name += "_" + strconv.FormatInt(l.Value, 10)
		}
		return name, true
	}
	s.comp.Body = ast.Apply(s.comp.Body, nil, func(c *ast.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.Index:
			if s.private.perPoint[n.Array] {
				if name, ok := scalarName(n); ok {
					c.Replace(ast.Id(name))
				}
			}
		case *ast.Decl:
			if s.private.perPoint[n.Name] && len(n.Extents) > 0 {
				var decls []ast.Stmt
				var rec func(prefix string, ext []int)
				rec = func(prefix string, ext []int) {
					if len(ext) == 0 {
						decls = append(decls, &ast.Decl{Name: prefix, Type: n.Type, Mem: ast.Private, Width: n.Width})
						return
					}
					for i := 0; i < ext[0]; i++ {
						rec(prefix+"_"+strconv.Itoa(i), ext[1:])
					}
				}
				rec(n.Name, n.Extents)
				c.Replace(ast.NewBlock()) // placeholder, flattened below
				c.InsertAfter(decls...)
			}
		}
		return true
	}).(*ast.Block)
	// Drop the empty placeholder blocks left by replaced declarations.
	var list []ast.Stmt
	for _, st := range s.comp.Body.List {
		if b, ok := st.(*ast.Block); ok && len(b.List) == 0 {
			continue
		}
		list = append(list, st)
	}
	s.comp.Body.List = list
}
