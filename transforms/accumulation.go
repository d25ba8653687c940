package transforms

import (
	"maps"
	"slices"

	"github.com/hplopt/hplopt/ast"
)

var accumulation = &Pass{
	Name:     "accumulation",
	Requires: []*Pass{promotion},
	Doc: `Rewrites the sums of the body of the main compute loop nest so that the
OpenCL compiler contracts them into fused multiply-adds, in three steps.
Split: the accumulation of a sum of products into a private variable
(acc += x*y + u*v, acc -= x*y - u*v, acc = acc + (x*y + u*v)) becomes one
accumulation per term (acc += x*y; acc += u*v): two instructions for the
four operations instead of a multiply, a multiply-add and an add. It acts on
sums of two or more products, all of floating-point values, accumulated into
a variable that private memory holds (a promoted element, a per-point value,
a private variable of the kernel) and that the terms do not read; an
accumulation into global or local memory is left alone (each term would read
and write it). Factor: when every accumulation into such a variable in the
nest's body has the same factor f in each term (acc += alpha*x*y), f a
floating-point variable or argument the body does not assign, and the body
reads the variable nowhere else, the terms accumulate without f into a new
private accumulator, zeroed before the nest, and acc += f * it after the
nest: one fused multiply-add a term instead of a multiply and a
multiply-add (SYRK's and SYR2K's alpha). The statements before the nest
that only set acc (acc = c[..]; acc = beta * acc) move after it when
nothing the nest changes feeds them, so that acc does not hold a register
across the nest beside the new accumulator. Order: a floating-point sum whose
first term is a product, with two or more products and another term
(x*x + y*y + z*z + e), puts the other terms first (e + x*x + y*y + z*z): a
multiply-add a product instead of a multiply, the multiply-adds and an add
(NBODY's softened distance). Each step reassociates arithmetic: such
variants differ from the single-point kernel by rounding, within the
tolerance every variant's output is checked with.`,
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
		for _, st := range concat(s.local.decls, s.private.decls, s.hoisted, s.pre, s.opre, s.body) {
			ast.Inspect(st, collect)
		}
		s.body = sp.stmts(s.body)
		// The promoted elements' loads run per point just before pre.
		init, final := []*[]ast.Stmt{&s.private.loads, &s.pre}, &s.post
		if s.outer != nil {
			init, final = []*[]ast.Stmt{&s.opre}, &s.opost
		}
		s.factorOut(sp.types, init, final)
		for i, st := range s.body {
			s.body[i] = fuseOrder(st, sp.types).(ast.Stmt)
		}
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
	sum, neg, ok := accumulated(a)
	if !ok {
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

// scaled is one accumulation of a per-point accumulator whose terms all
// carry the same invariant factor (factorOut).
type scaled struct {
	a     *ast.Assign
	terms []term
}

// factorOut takes an invariant factor out of the accumulations into
// per-point accumulators in the nest's body: when every accumulation into
// acc there (acc += f*x*y, acc -= f*u) has the factor f in each term, f a
// floating-point variable or argument the body does not assign, and the
// body reads acc nowhere else, the terms accumulate without f into a new
// per-point accumulator, zeroed before the nest, and acc += f * it after
// the nest. init and final are the statements run per point before and
// after the nest: init the lists that run in turn before it (the promoted
// elements' loads and pre, or the outer loop's opre), final post or opost;
// the statements of init that only set acc move to final (deferInit).
func (s *state) factorOut(types map[string]ast.Type, init []*[]ast.Stmt, final *[]ast.Stmt) {
	// What the body writes (the loops' counters too): neither a factor
	// nor what a deferred start reads.
	assigned := bodyWrites(s.body)
	for _, l := range s.loops {
		assigned[l.Var] = true
	}
	var order []string
	accs := map[string][]scaled{}
	bad := map[string]bool{}
	for _, st := range s.body {
		ast.Inspect(st, func(n ast.Node) bool {
			a, isAssign := n.(*ast.Assign)
			if !isAssign {
				return true
			}
			name, ok := s.accumulator(a.LHS)
			if !ok {
				return true
			}
			sum, neg, isAcc := accumulated(a)
			if !isAcc || !typeOf(a.LHS, types).IsFloat() {
				bad[name] = true
				return true
			}
			if _, seen := accs[name]; !seen {
				order = append(order, name)
			}
			accs[name] = append(accs[name], scaled{a, flattenSum(sum, neg, nil)})
			return true
		})
	}
	// Reads of the accumulators other than the accumulated elements.
	for _, st := range s.body {
		ast.Inspect(st, func(n ast.Node) bool {
			if a, ok := n.(*ast.Assign); ok {
				if name, ok := s.accumulator(a.LHS); ok && accs[name] != nil {
					if l, ok := a.LHS.(*ast.Index); ok {
						for _, x := range l.Indices {
							ast.Inspect(x, func(m ast.Node) bool { markReads(m, accs, bad); return true })
						}
					}
					ast.Inspect(a.RHS, func(m ast.Node) bool { markReads(m, accs, bad); return true })
					return false
				}
			}
			markReads(n, accs, bad)
			return true
		})
	}
	writes := maps.Clone(assigned)
	for _, st := range s.local.decls {
		if d, ok := st.(*ast.Decl); ok {
			writes[d.Name] = true
		}
	}
	for _, acc := range order {
		list := accs[acc]
		if bad[acc] {
			continue
		}
		f := commonFactor(list, types, assigned)
		if f == "" {
			continue
		}
		decl := s.privateDecl(acc)
		if decl == nil {
			continue
		}
		name := s.fresh("u_" + acc)
		s.private.decls = append(s.private.decls, &ast.Decl{Name: name, Type: decl.Type, Mem: ast.Private, Extents: append([]int(nil), decl.Extents...)})
		orig := ast.CloneExpr(list[0].a.LHS)
		ref := func() ast.Expr { return ast.Id(name) }
		if l, ok := orig.(*ast.Index); ok {
			s.private.perPoint[name] = true
			ref = func() ast.Expr { return &ast.Index{Array: name, Indices: cloneAll(l.Indices)} }
		}
		for _, sc := range list {
			var sum ast.Expr
			neg := false
			for i, t := range sc.terms {
				x := withoutFactor(t.x, f)
				switch {
				case i == 0:
					sum, neg = x, t.neg
				case t.neg == neg:
					sum = &ast.Binary{Op: ast.Add, X: sum, Y: x}
				default:
					sum = &ast.Binary{Op: ast.Sub, X: sum, Y: x}
				}
			}
			op := ast.AddSet
			if neg {
				op = ast.SubSet
			}
			*sc.a = ast.Assign{LHS: ref(), Op: op, RHS: sum}
		}
		deferred := s.deferInit(acc, init, writes)
		last := init[len(init)-1]
		*last = append(*last, &ast.Assign{LHS: ref(), Op: ast.Set, RHS: &ast.FloatLit{Value: 0, Type: decl.Type}})
		*final = append(append(deferred, &ast.Assign{
			LHS: orig, Op: ast.AddSet,
			RHS: &ast.Binary{Op: ast.Mul, X: ast.Id(f), Y: ref()},
		}), *final...)
	}
}

// bodyWrites returns the names that list writes: the variables and arrays
// it assigns, declares or counts with.
func bodyWrites(list []ast.Stmt) map[string]bool {
	w := map[string]bool{}
	for _, st := range list {
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Decl:
				w[n.Name] = true
			case *ast.For:
				w[n.Var] = true
			case *ast.Assign:
				w[writtenName(n.LHS)] = true
			}
			return true
		})
	}
	return w
}

// writtenName is the variable or array that an assignment to x writes.
func writtenName(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.Index:
		return x.Array
	case *ast.Load: // a vector store
		return x.Ref.Array
	}
	return ""
}

// readNames returns the variables and arrays that n reads (an assignment's
// left side counts for its indices, and for itself unless the assignment
// only sets it).
func readNames(n ast.Node) map[string]bool {
	r := map[string]bool{}
	var visit func(ast.Node) bool
	visit = func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.Assign:
			if l, ok := m.LHS.(*ast.Index); ok {
				for _, x := range l.Indices {
					ast.Inspect(x, visit)
				}
			}
			if m.Op != ast.Set {
				r[writtenName(m.LHS)] = true
			}
			ast.Inspect(m.RHS, visit)
			return false
		case *ast.Ident:
			r[m.Name] = true
		case *ast.Index:
			r[m.Array] = true
		}
		return true
	}
	ast.Inspect(n, visit)
	return r
}

// deferInit moves the statements of init that set the factored
// accumulator acc (acc = c[..]; acc = beta * acc) out of init and returns
// them, to run after the nest just before acc += f * u: the accumulator is
// then not live across the nest beside its unscaled twin u, which would
// double the registers the points' accumulators take (an 8x8 block: 64
// more). It moves them only when each statement of init that mentions acc
// assigns it, and none reads what the nest's body writes (writes), another
// accumulator or what a later statement of init assigns; else it moves
// nothing.
func (s *state) deferInit(acc string, init []*[]ast.Stmt, writes map[string]bool) []ast.Stmt {
	var all []ast.Stmt
	from := map[ast.Stmt]int{}
	for i, l := range init {
		for _, st := range *l {
			all = append(all, st)
			from[st] = i
		}
	}
	var moved, kept []ast.Stmt
	keptWrites := map[string]bool{}
	for i := len(all) - 1; i >= 0; i-- {
		st := all[i]
		one := []ast.Stmt{st}
		if !refs(one, acc) && !refsArray(one, acc) {
			kept = append(kept, st)
			for name := range bodyWrites([]ast.Stmt{st}) {
				keptWrites[name] = true
			}
			continue
		}
		a, isAssign := st.(*ast.Assign)
		if !isAssign {
			return nil
		}
		if name, ok := s.accumulator(a.LHS); !ok || name != acc {
			return nil
		}
		for name := range readNames(st) {
			if name != acc && (writes[name] || keptWrites[name]) {
				return nil
			}
		}
		moved = append(moved, st)
	}
	if len(moved) == 0 {
		return nil
	}
	slices.Reverse(moved)
	slices.Reverse(kept)
	for _, l := range init {
		*l = (*l)[:0:0]
	}
	for _, st := range kept {
		l := init[from[st]]
		*l = append(*l, st)
	}
	return moved
}

// markReads marks bad the accumulators that n reads.
func markReads(n ast.Node, accs map[string][]scaled, bad map[string]bool) {
	switch x := n.(type) {
	case *ast.Index:
		if accs[x.Array] != nil {
			bad[x.Array] = true
		}
	case *ast.Ident:
		if accs[x.Name] != nil {
			bad[x.Name] = true
		}
	}
}

// accumulator returns the name of the per-point accumulator x is, and
// true: an element of a per-point array indexed by the point offsets, or,
// with one point a block, a private scalar of the kernel or of promotion.
func (s *state) accumulator(x ast.Expr) (string, bool) {
	switch x := x.(type) {
	case *ast.Index:
		return x.Array, s.private.perPoint[x.Array] && s.pointIndex(x)
	case *ast.Ident:
		d := s.privateDecl(x.Name)
		return x.Name, s.points == 1 && d != nil && len(d.Extents) == 0 && d.Width <= 1
	}
	return "", false
}

// accumulated returns the sum that a adds to its left side (subtracts,
// when neg), or false when a does not accumulate: lhs += x, lhs -= x,
// lhs = lhs + x, lhs = lhs - x, lhs = x + lhs.
func accumulated(a *ast.Assign) (sum ast.Expr, neg, ok bool) {
	switch a.Op {
	case ast.AddSet, ast.SubSet:
		return a.RHS, a.Op == ast.SubSet, true
	case ast.Set:
		b, isBin := a.RHS.(*ast.Binary)
		if !isBin {
			return nil, false, false
		}
		lhs := ast.ExprString(a.LHS)
		switch {
		case (b.Op == ast.Add || b.Op == ast.Sub) && ast.ExprString(b.X) == lhs:
			return b.Y, b.Op == ast.Sub, true
		case b.Op == ast.Add && ast.ExprString(b.Y) == lhs:
			return b.X, false, true
		}
	}
	return nil, false, false
}

// pointIndex reports whether x is indexed by the point offsets alone (or
// constants): the same element in the nest's body as before and after it.
func (s *state) pointIndex(x *ast.Index) bool {
	offsets := map[string]bool{}
	for d := 0; d < s.dims; d++ {
		offsets[s.geom[d].p] = true
	}
	for _, i := range x.Indices {
		switch i := i.(type) {
		case *ast.IntLit:
		case *ast.Ident:
			if !offsets[i.Name] {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// privateDecl returns the declaration of the private variable name that
// promotion, coarsening or the kernel (hoisted from the compute section's
// statements) made, or nil.
func (s *state) privateDecl(name string) *ast.Decl {
	for _, st := range concat(s.private.decls, s.hoisted) {
		if d, ok := st.(*ast.Decl); ok && d.Name == name {
			return d
		}
	}
	return nil
}

// commonFactor returns a variable that is a factor of every term of every
// accumulation of list, of floating-point type and not assigned in the
// nest's body, or "" when there is none.
func commonFactor(list []scaled, types map[string]ast.Type, assigned map[string]bool) string {
	for _, c := range factors(list[0].terms[0].x, nil) {
		id, ok := c.(*ast.Ident)
		if !ok || assigned[id.Name] || !typeOf(id, types).IsFloat() {
			continue
		}
		all := true
		for _, sc := range list {
			for _, t := range sc.terms {
				all = all && withoutFactor(t.x, id.Name) != nil
			}
		}
		if all {
			return id.Name
		}
	}
	return ""
}

// factors appends to out the factors of the product x, left to right (x
// itself when it is not a product).
func factors(x ast.Expr, out []ast.Expr) []ast.Expr {
	if b, ok := x.(*ast.Binary); ok && b.Op == ast.Mul {
		return factors(b.Y, factors(b.X, out))
	}
	return append(out, x)
}

// withoutFactor returns the product x without its first factor that is the
// variable f, or nil when x has no such factor (or is f alone).
func withoutFactor(x ast.Expr, f string) ast.Expr {
	fs := factors(x, nil)
	if len(fs) < 2 {
		return nil
	}
	var out ast.Expr
	found := false
	for _, c := range fs {
		if id, ok := c.(*ast.Ident); ok && id.Name == f && !found {
			found = true
			continue
		}
		if out == nil {
			out = c
		} else {
			out = &ast.Binary{Op: ast.Mul, X: out, Y: c}
		}
	}
	if !found {
		return nil
	}
	return out
}

// fuseOrder rewrites the floating-point sums in x whose first term is a
// product, with two or more products and some other term, so that the
// other terms come first: p*q + r*s + t becomes t + p*q + r*s, which
// contracts into two fused multiply-adds instead of a multiply, a
// multiply-add and an add.
func fuseOrder(x ast.Node, types map[string]ast.Type) ast.Node {
	return ast.Apply(x, nil, func(c *ast.Cursor) bool {
		b, ok := c.Node().(*ast.Binary)
		if !ok || (b.Op != ast.Add && b.Op != ast.Sub) || !typeOf(b, types).IsFloat() {
			return true
		}
		terms := flattenSum(b, false, nil)
		var prods, others []term
		for _, t := range terms {
			if m, ok := t.x.(*ast.Binary); ok && m.Op == ast.Mul {
				prods = append(prods, t)
			} else {
				others = append(others, t)
			}
		}
		if len(prods) < 2 || len(others) == 0 {
			return true
		}
		if m, ok := terms[0].x.(*ast.Binary); !ok || m.Op != ast.Mul {
			return true
		}
		// A term added leads, when there is one.
		for i, t := range others {
			if !t.neg {
				others = append(append([]term{t}, others[:i]...), others[i+1:]...)
				break
			}
		}
		ordered := append(others, prods...)
		var sum ast.Expr
		for i, t := range ordered {
			switch {
			case i == 0 && t.neg:
				sum = &ast.Unary{Op: ast.Neg, X: t.x}
			case i == 0:
				sum = t.x
			case t.neg:
				sum = &ast.Binary{Op: ast.Sub, X: sum, Y: t.x}
			default:
				sum = &ast.Binary{Op: ast.Add, X: sum, Y: t.x}
			}
		}
		c.Replace(sum)
		return true
	})
}
