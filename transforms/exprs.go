package transforms

import (
	"github.com/hplopt/hplopt/ast"
)

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

// concat returns the statements of lists, one after the other, in a new
// slice.
func concat(lists ...[]ast.Stmt) []ast.Stmt {
	var out []ast.Stmt
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
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

func cloneAll(xs []ast.Expr) []ast.Expr {
	out := make([]ast.Expr, len(xs))
	for i, x := range xs {
		out[i] = ast.CloneExpr(x)
	}
	return out
}
