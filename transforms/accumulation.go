package transforms

import "github.com/hplopt/hplopt/ast"

var accumulation = &Pass{
	Name:     "accumulation",
	Requires: []*Pass{promotion},
	Doc: `Splits the accumulation of a sum of products into a private variable in the
body of the main compute loop nest (acc += x*y + u*v, acc -= x*y - u*v,
acc = acc + (x*y + u*v)) into one accumulation per term (acc += x*y;
acc += u*v), so that the OpenCL compiler contracts each into one fused
multiply-add: two instructions for the four operations instead of a
multiply, a multiply-add and an add. It acts on sums of two or more
products, all of floating-point values, accumulated into a variable that
private memory holds (a promoted element, a per-point value, a private
variable of the kernel) and that the terms do not read; an accumulation into
global or local memory is left alone (each term would read and write it).
The split reassociates the additions: such variants differ from the
single-point kernel by rounding, within the tolerance every variant's
output is checked with.`,
	Run: func(s *state) error {
		if len(s.loops) == 0 {
			return nil
		}
		sp := splitter{types: kernelTypes(s.k), private: map[string]bool{}}
		collect := func(n ast.Node) bool {
			if d, ok := n.(*ast.Decl); ok {
				sp.types[d.Name] = d.Type
				if d.Mem == ast.Private {
					sp.private[d.Name] = true
				}
			}
			return true
		}
		ast.Inspect(s.k.Body, collect)
		for _, st := range concat(s.private.decls, s.hoisted, s.pre, s.opre, s.body) {
			ast.Inspect(st, collect)
		}
		s.body = sp.stmts(s.body)
		return nil
	},
}

// splitter splits accumulations of sums (the accumulation pass).
type splitter struct {
	types   map[string]ast.Type // of the kernel's variables and arguments
	private map[string]bool     // the variables declared in private memory
}

// stmts returns list with its accumulations of sums split, at every depth.
func (sp splitter) stmts(list []ast.Stmt) []ast.Stmt {
	out := make([]ast.Stmt, 0, len(list))
	for _, st := range list {
		switch st := st.(type) {
		case *ast.Assign:
			if split := sp.split(st); split != nil {
				out = append(out, split...)
				continue
			}
		case *ast.Block:
			st.List = sp.stmts(st.List)
		case *ast.If:
			st.Then.List = sp.stmts(st.Then.List)
			if st.Else != nil {
				st.Else.List = sp.stmts(st.Else.List)
			}
		case *ast.For:
			st.Body.List = sp.stmts(st.Body.List)
		case *ast.While:
			st.Body.List = sp.stmts(st.Body.List)
		}
		out = append(out, st)
	}
	return out
}

// term is one term of a flattened sum, subtracted when neg.
type term struct {
	x   ast.Expr
	neg bool
}

// split returns the accumulations a splits into, or nil when a stays as it
// is.
func (sp splitter) split(a *ast.Assign) []ast.Stmt {
	var acc string
	switch l := a.LHS.(type) {
	case *ast.Ident:
		acc = l.Name
	case *ast.Index:
		acc = l.Array
	}
	if !sp.private[acc] || !typeOf(a.LHS, sp.types).IsFloat() {
		return nil
	}
	// The sum accumulated, and whether it is subtracted.
	var sum ast.Expr
	neg := false
	switch a.Op {
	case ast.AddSet, ast.SubSet:
		sum, neg = a.RHS, a.Op == ast.SubSet
	case ast.Set:
		b, ok := a.RHS.(*ast.Binary)
		lhs := ast.ExprString(a.LHS)
		switch {
		case !ok:
			return nil
		case (b.Op == ast.Add || b.Op == ast.Sub) && ast.ExprString(b.X) == lhs:
			sum, neg = b.Y, b.Op == ast.Sub
		case b.Op == ast.Add && ast.ExprString(b.Y) == lhs:
			sum = b.X
		default:
			return nil
		}
	default:
		return nil
	}
	terms := flattenSum(sum, neg, nil)
	products := 0
	for _, t := range terms {
		if readsVar(t.x, acc) || !typeOf(t.x, sp.types).IsFloat() {
			return nil
		}
		if b, ok := t.x.(*ast.Binary); ok && b.Op == ast.Mul {
			products++
		}
	}
	if products < 2 {
		return nil // nothing to fuse beyond what the compiler contracts already
	}
	out := make([]ast.Stmt, len(terms))
	for i, t := range terms {
		op := ast.AddSet
		if t.neg {
			op = ast.SubSet
		}
		out[i] = &ast.Assign{LHS: ast.CloneExpr(a.LHS), Op: op, RHS: t.x}
	}
	return out
}

// flattenSum appends to out the terms of the sum x, negated when neg,
// left to right.
func flattenSum(x ast.Expr, neg bool, out []term) []term {
	if b, ok := x.(*ast.Binary); ok && (b.Op == ast.Add || b.Op == ast.Sub) {
		out = flattenSum(b.X, neg, out)
		return flattenSum(b.Y, neg != (b.Op == ast.Sub), out)
	}
	return append(out, term{x, neg})
}

// readsVar reports whether x reads the variable or array name.
func readsVar(x ast.Expr, name string) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			found = found || n.Name == name
		case *ast.Index:
			found = found || n.Array == name
		}
		return !found
	})
	return found
}
