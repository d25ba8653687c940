package transforms

import "github.com/hplopt/hplopt/ast"

// affine is an integer expression as a constant plus a sum of terms, each
// a coefficient times an atom: a variable, a predefined identifier, or a
// subexpression that is not linear (a product of two variables, a
// division or remainder that does not fold), keyed by its text. The
// vectorization and packing passes compare the subscripts of neighbouring
// points with it: two subscripts with the same terms differ by a constant.
type affine struct {
	c     int64
	terms map[string]int64
}

// affineOf returns the affine form of the integer expression e.
func affineOf(e ast.Expr) affine {
	switch e := e.(type) {
	case *ast.IntLit:
		return affine{c: e.Value}
	case *ast.Unary:
		if e.Op == ast.Neg {
			return affineOf(e.X).scale(-1)
		}
	case *ast.Binary:
		x, y := affineOf(e.X), affineOf(e.Y)
		switch e.Op {
		case ast.Add:
			return x.add(y, 1)
		case ast.Sub:
			return x.add(y, -1)
		case ast.Mul:
			if len(x.terms) == 0 {
				return y.scale(x.c)
			}
			if len(y.terms) == 0 {
				return x.scale(y.c)
			}
		case ast.Div, ast.Rem:
			if len(x.terms) == 0 && len(y.terms) == 0 && y.c != 0 {
				if e.Op == ast.Div {
					return affine{c: x.c / y.c}
				}
				return affine{c: x.c % y.c}
			}
		}
	}
	return affine{terms: map[string]int64{ast.ExprString(e): 1}}
}

func (a affine) scale(k int64) affine {
	out := affine{c: a.c * k}
	if k != 0 && len(a.terms) > 0 {
		out.terms = map[string]int64{}
		for t, v := range a.terms {
			out.terms[t] = v * k
		}
	}
	return out
}

func (a affine) add(b affine, sign int64) affine {
	out := affine{c: a.c + sign*b.c, terms: map[string]int64{}}
	for t, v := range a.terms {
		out.terms[t] += v
	}
	for t, v := range b.terms {
		out.terms[t] += sign * v
	}
	for t, v := range out.terms {
		if v == 0 {
			delete(out.terms, t)
		}
	}
	return out
}

// diff returns a - b when it is a constant.
func (a affine) diff(b affine) (int64, bool) {
	d := a.add(b, -1)
	return d.c, len(d.terms) == 0
}

// alignment returns the largest power of two, up to 64, that divides the
// value of a for any values of its atoms, given the known alignment of
// some of them (the others count as 1).
func (a affine) alignment(known map[string]int64) int64 {
	g := int64(64)
	fit := func(v int64) {
		if v < 0 {
			v = -v
		}
		for v != 0 && v%g != 0 {
			g /= 2
		}
	}
	fit(a.c)
	for t, v := range a.terms {
		k := known[t]
		if k <= 0 {
			k = 1
		}
		fit(v * k)
	}
	return g
}

// typeOf returns the type of e given the types of the variables and arrays.
func typeOf(e ast.Expr, types map[string]ast.Type) ast.Type {
	switch e := e.(type) {
	case *ast.Ident:
		if t, ok := types[e.Name]; ok {
			return t
		}
		return ast.Int // loop counters
	case *ast.IntLit, *ast.Special:
		return ast.Int
	case *ast.FloatLit:
		return e.Type
	case *ast.Index:
		return types[e.Array]
	case *ast.Load:
		return types[e.Ref.Array]
	case *ast.Lane:
		return typeOf(e.X, types)
	case *ast.Vector:
		return e.Type
	case *ast.Cast:
		return e.Type
	case *ast.Unary:
		if e.Op == ast.Not {
			return ast.Bool
		}
		return typeOf(e.X, types)
	case *ast.Binary:
		if e.Op.IsComparison() || e.Op == ast.And || e.Op == ast.Or {
			return ast.Bool
		}
		return ast.Arith(typeOf(e.X, types), typeOf(e.Y, types))
	case *ast.Call:
		t := ast.Int
		for _, a := range e.Args {
			t = ast.Arith(t, typeOf(a, types))
		}
		return t
	}
	return ast.Invalid
}

// kernelTypes returns the type of every array and variable of k.
func kernelTypes(k *ast.Kernel) map[string]ast.Type {
	types := map[string]ast.Type{}
	for _, q := range k.Params {
		types[q.Name] = q.Type
	}
	ast.Inspect(k.Body, func(n ast.Node) bool {
		if d, ok := n.(*ast.Decl); ok {
			types[d.Name] = d.Type
		}
		return true
	})
	return types
}
