package transforms

import "github.com/hplopt/hplopt/ast"

// refs reports whether stmts reference the variable name.
func refs(stmts []ast.Stmt, name string) bool {
	found := false
	for _, st := range stmts {
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				found = found || n.Name == name
			case *ast.Decl:
				found = found || n.Name == name
			case *ast.For:
				found = found || n.Var == name
			}
			return !found
		})
	}
	return found
}

// refsArray reports whether stmts reference the array name.
func refsArray(stmts []ast.Stmt, name string) bool {
	found := false
	for _, st := range stmts {
		ast.Inspect(st, func(n ast.Node) bool {
			if ix, ok := n.(*ast.Index); ok && ix.Array == name {
				found = true
			}
			return !found
		})
	}
	return found
}

// localTemp reports whether name is a temporary of stmts: its first
// reference is an unconditional top-level assignment name = e that does not
// read name, so no value flows into stmts through it.
func localTemp(stmts []ast.Stmt, name string, isArray bool) bool {
	for _, st := range stmts {
		touches := func(xs []ast.Stmt) bool {
			if isArray {
				return refsArray(xs, name)
			}
			return refs(xs, name)
		}
		if !touches([]ast.Stmt{st}) {
			continue
		}
		if d, ok := st.(*ast.Decl); ok && d.Name == name {
			return true // a declaration starts a new variable
		}
		a, ok := st.(*ast.Assign)
		if !ok || a.Op != ast.Set {
			return false
		}
		rhs := []ast.Stmt{&ast.Assign{LHS: ast.Id("_"), RHS: a.RHS}}
		if touches(rhs) {
			return false
		}
		switch l := a.LHS.(type) {
		case *ast.Ident:
			return !isArray && l.Name == name
		case *ast.Index:
			if !isArray || l.Array != name {
				return false
			}
			for _, ix := range l.Indices {
				if touches([]ast.Stmt{&ast.Assign{LHS: ast.Id("_"), RHS: ix}}) {
					return false
				}
			}
			return true
		}
		return false
	}
	return true
}
