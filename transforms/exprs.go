package transforms

import "github.com/hplopt/hplopt/ast"

// evalInt evaluates an integer expression of constants and known int
// arguments.
func evalInt(e ast.Expr, ints map[string]int) (int, bool) {
	switch e := e.(type) {
	case *ast.IntLit:
		return int(e.Value), true
	case *ast.Ident:
		v, ok := ints[e.Name]
		return v, ok
	case *ast.Binary:
		x, ok1 := evalInt(e.X, ints)
		y, ok2 := evalInt(e.Y, ints)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch e.Op {
		case ast.Add:
			return x + y, true
		case ast.Sub:
			return x - y, true
		case ast.Mul:
			return x * y, true
		case ast.Div:
			if y != 0 {
				return x / y, true
			}
		case ast.Rem:
			if y != 0 {
				return x % y, true
			}
		}
	case *ast.Unary:
		if e.Op == ast.Neg {
			x, ok := evalInt(e.X, ints)
			return -x, ok
		}
	}
	return 0, false
}

// all is the conjunction of conds, nil for none.
func all(conds []ast.Expr) ast.Expr {
	var c ast.Expr
	for _, x := range conds {
		if c == nil {
			c = x
		} else {
			c = &ast.Binary{Op: ast.And, X: c, Y: x}
		}
	}
	return c
}
