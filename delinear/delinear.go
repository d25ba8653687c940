// Package delinear recovers the dimensions of arrays that a kernel indexes
// with linearized subscripts. OpenCL C kernels, and DSL kernels written the
// same way, pass matrices as flat arrays and index them a[i*n + k], or
// x[(z*ny + y)*nx + x]; the access-pattern analysis, and with it the
// optimizer, needs a[i][k] and x[z][y][x]. Delinearize rewrites one into the
// other, as a pass from kernel to kernel:
//
//   - every subscript of a one-dimensional array argument is read as a
//     polynomial over the ids, the loop counters, the int scalar arguments
//     and the predefined sizes (private ints initialized once from those,
//     int base = row*n, are followed);
//   - the products of scalar arguments that multiply ids and counters (n,
//     ny*nx) must form one chain, each dividing the next: they are the
//     strides, and their quotients the inner extents (x: [?][ny][nx]); an
//     array indexed with constant strides only (pos[4*i + 2]) is
//     delinearized against those;
//   - each subscript is split along the strides, and each inner part must
//     be shown to stay within its extent, 0 <= k < n, from the ranges of
//     the ids (0 <= idx < szx, narrowed by the guards around the reference,
//     if (i < n)) and of the loop counters (their bounds);
//   - the outermost extent is the largest value the outer part reaches,
//     plus one: an expression over the scalars and the global size (a
//     guard's bound, when there is one, rather than the global size).
//
// The rewrite is exact by construction: the new subscripts, linearized with
// the extents, are the old polynomial (Delinearize checks it), and the code
// generator linearizes with extents equal to the scalars' values. What the
// range proofs add is that a[i][k] is the element of row i the analysis
// thinks it is. Scalar arguments and sizes are taken to be positive; where
// Options.Values gives a value, the proofs use it instead, and the result
// holds for those values. An array whose subscripts do not fit (a non-affine
// subscript, strides that do not nest, a part that may leave its row) keeps
// its linear subscripts, with the reason in Array.Linear, and is analysed
// as before.
//
// Limits: all references to an array must split along the same strides,
// else the array stays linear; strides are either products of scalars or,
// when no scalar multiplies an id or counter, constants (an array indexed
// a[4*i*n + 4*k + c] mixes both and stays linear); arrays get at most three
// dimensions. Guards are read from conditions that are conjunctions (&&) of
// integer comparisons isolating one id or counter with coefficient 1 (i <
// n, x + 1 < nx, j >= i); an else branch is bounded only by a single
// negated comparison. Ranges through division, modulo, min, max or array
// reads are unknown. Private ints are followed when set once, at their
// declaration, from scalars, ids and the counters of the loops around them.
// The outermost extent is the smallest bound found (a stencil writing rows
// 1 to ny-2 gets ny-1 rows), an expression with min and max where bounds
// differ by more than a constant.
package delinear

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/hplopt/hplopt/ast"
)

// Options are the known values and user-given shapes a delinearization may
// use. The zero value delinearizes symbolically.
type Options struct {
	// Values are known values of int scalar arguments, by name, and of
	// predefined sizes, by their names (szx, szy, szz for the global size).
	// Range proofs use them where given; default none.
	Values map[string]int64
	// Shapes are array extents given by the user, slowest first, by array
	// name. A one-dimensional shape keeps the array linear; a shape of the
	// rank found must agree with the inner extents found; another shape
	// delinearizes the array against its own strides, with the values of
	// the scalars in its subscripts. Default none.
	Shapes map[string][]int
}

// Array is what Delinearize found for one array argument.
type Array struct {
	Name string
	// Rank is the array's number of dimensions in the result.
	Rank int
	// Extents are the array's extents, slowest first, as expressions over
	// the int scalar arguments and the predefined sizes (or constants, from
	// a shape); an entry is nil where no extent could be inferred (the
	// caller must give a shape).
	Extents []ast.Expr
	// Linear says why an array with linearized subscripts keeps them; it
	// is empty when the array was delinearized or its subscripts have no
	// strides to recover.
	Linear string
}

// Result is a delinearized kernel and what was found for each array.
type Result struct {
	Kernel *ast.Kernel
	Arrays []*Array // one per array argument, in argument order
}

// Array returns the entry for the array argument name, or nil.
func (r *Result) Array(name string) *Array {
	for _, a := range r.Arrays {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Shapes evaluates every array's extents with values (int scalar
// arguments by name, sizes by their predefined names).
func (r *Result) Shapes(values map[string]int64) (map[string][]int, error) {
	out := map[string][]int{}
	for _, a := range r.Arrays {
		dims := make([]int, len(a.Extents))
		for d, e := range a.Extents {
			if e == nil {
				return nil, fmt.Errorf("delinear: kernel %s: the extent %d of %s is not known: give its shape", r.Kernel.Name, d, a.Name)
			}
			v, err := Eval(e, values)
			if err != nil {
				return nil, fmt.Errorf("delinear: kernel %s: extent %d of %s (%s): %v", r.Kernel.Name, d, a.Name, ast.ExprString(e), err)
			}
			if v <= 0 || v > math.MaxInt32 {
				return nil, fmt.Errorf("delinear: kernel %s: extent %d of %s (%s) is %d, not a positive int", r.Kernel.Name, d, a.Name, ast.ExprString(e), v)
			}
			dims[d] = int(v)
		}
		out[a.Name] = dims
	}
	return out, nil
}

// Eval evaluates an integer expression over int scalars and predefined
// sizes with the given values: constants, + - * / %, min and max.
func Eval(e ast.Expr, values map[string]int64) (int64, error) {
	switch e := e.(type) {
	case *ast.IntLit:
		return e.Value, nil
	case *ast.Ident:
		if v, ok := values[e.Name]; ok {
			return v, nil
		}
		return 0, fmt.Errorf("no value for %s", e.Name)
	case *ast.Special:
		if v, ok := values[e.Name()]; ok {
			return v, nil
		}
		return 0, fmt.Errorf("no value for %s (%s(%d))", e.Name(), e.CFunc(), e.Dim)
	case *ast.Unary:
		if e.Op == ast.Neg {
			v, err := Eval(e.X, values)
			return -v, err
		}
	case *ast.Binary:
		x, err := Eval(e.X, values)
		if err != nil {
			return 0, err
		}
		y, err := Eval(e.Y, values)
		if err != nil {
			return 0, err
		}
		switch e.Op {
		case ast.Add:
			return x + y, nil
		case ast.Sub:
			return x - y, nil
		case ast.Mul:
			return x * y, nil
		case ast.Div, ast.Rem:
			if y == 0 {
				return 0, fmt.Errorf("division by zero in %s", ast.ExprString(e))
			}
			if e.Op == ast.Div {
				return x / y, nil
			}
			return x % y, nil
		}
	case *ast.Call:
		if (e.Func == "min" || e.Func == "max") && len(e.Args) > 0 {
			var out int64
			for i, a := range e.Args {
				v, err := Eval(a, values)
				if err != nil {
					return 0, err
				}
				if i == 0 || e.Func == "min" && v < out || e.Func == "max" && v > out {
					out = v
				}
			}
			return out, nil
		}
	}
	return 0, fmt.Errorf("cannot evaluate %s", ast.ExprString(e))
}

type atomKind int

const (
	scalarAtom atomKind = iota // an int scalar argument or a predefined size
	indexAtom                  // an id or a loop counter
	opaqueAtom                 // any other int subexpression: no known range
)

type atom struct {
	kind atomKind
	expr ast.Expr
}

// site is where a reference is: the loops around it, outermost first, and
// the guards that hold there.
type site struct {
	loops  []*ast.For
	guards []guard
}

// guard bounds an index atom: lo <= atom or atom < hi (one of them set).
type guard struct {
	atom   string
	lo, hi poly
}

// ref is one reference to an array argument.
type ref struct {
	node  *ast.Index
	subs  []poly // one per subscript
	site  *site
	where string // the reference as written, for messages
}

// loopInfo is a loop's bounds as polynomials, read outside the loop.
type loopInfo struct {
	lo, hi poly
	ok     bool // the counter has the range [lo, hi): positive step, not assigned in the body
}

type delin struct {
	k        *ast.Kernel
	values   map[string]int64
	atoms    map[string]*atom
	assigned map[string]bool // variables assigned anywhere, loop counters included
	setInto  map[string]bool // variables assigned by an assignment statement
	subst    map[string]poly // private ints set once from atoms that do not change
	loops    map[*ast.For]loopInfo
	refs     map[string][]*ref // by array, in post-order (inner references first)
	order    []*ref
}

// Delinearize returns a copy of k whose one-dimensional array arguments
// indexed with linearized subscripts are multi-dimensional where that is
// provably the same element (see the package documentation), with every
// array's extents. k is not modified.
func Delinearize(k *ast.Kernel, opts Options) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("delinear: kernel %s: internal error: %v", k.Name, r)
		}
	}()
	d := &delin{
		k: ast.Clone(k), values: opts.Values, atoms: map[string]*atom{}, assigned: map[string]bool{}, setInto: map[string]bool{},
		subst: map[string]poly{}, loops: map[*ast.For]loopInfo{}, refs: map[string][]*ref{},
	}
	ast.Inspect(d.k.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Assign:
			if id, ok := n.LHS.(*ast.Ident); ok {
				d.assigned[id.Name] = true
				d.setInto[id.Name] = true
			}
		case *ast.For:
			d.assigned[n.Var] = true
		}
		return true
	})
	d.block(d.k.Body, &site{})
	res = &Result{Kernel: d.k}
	decisions := map[string]*decision{}
	for _, p := range d.k.Params {
		if p.Rank == 0 {
			continue
		}
		a := &Array{Name: p.Name, Rank: p.Rank}
		res.Arrays = append(res.Arrays, a)
		if p.Rank > 1 {
			a.Extents = d.extents(d.refs[p.Name], p.Rank)
			continue
		}
		dec := d.decide(p.Name, nil)
		if shape, ok := opts.Shapes[p.Name]; ok {
			if dec, err = d.shaped(p, dec, shape); err != nil {
				return nil, err
			}
		}
		decisions[p.Name] = dec
		a.Rank, a.Linear = dec.rank, dec.why
		a.Extents = dec.extents
		if a.Extents == nil {
			a.Extents = append([]ast.Expr{d.outer(dec)}, dec.inner()...)
		}
	}
	for name := range opts.Shapes {
		if p := k.Param(name); p == nil || p.Rank == 0 {
			return nil, fmt.Errorf("delinear: kernel %s: a shape is given for %s, which is not an array argument", k.Name, name)
		}
		if p := k.Param(name); p.Rank > 1 {
			a := res.Array(name)
			shape := opts.Shapes[name]
			if len(shape) != p.Rank {
				return nil, fmt.Errorf("delinear: kernel %s: the shape of %s has %d dimensions; the array has %d", k.Name, name, len(shape), p.Rank)
			}
			a.Extents = intExprs(shape)
		}
	}
	// Rewrite inner references first: an outer subscript's opaque parts
	// hold them, and are copied when it is rebuilt.
	for _, r := range d.order {
		dec := decisions[r.node.Array]
		if dec == nil || dec.rank < 2 {
			continue
		}
		parts := dec.parts[r]
		r.node.Indices = make([]ast.Expr, len(parts))
		for i, q := range parts {
			r.node.Indices[i] = q.expr(d.atomExpr)
		}
	}
	for _, p := range d.k.Params {
		if dec := decisions[p.Name]; dec != nil && dec.rank != p.Rank {
			p.Rank = dec.rank
			p.Extents = nil // a specialized kernel's extents no longer fit
		}
	}
	d.dropUnused()
	return res, nil
}

// dropUnused deletes the declarations of the private ints that were
// followed into subscripts and are no longer read (int c = (z*ny + y)*nx +
// x, once in[c] is in[z][y][x]). Their initial values read no array, so
// nothing else changes.
func (d *delin) dropUnused() {
	used := map[string]bool{}
	ast.Inspect(d.k.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			used[id.Name] = true
		}
		return true
	})
	ast.Apply(d.k.Body, func(c *ast.Cursor) bool {
		if dl, ok := c.Node().(*ast.Decl); ok && c.InList() {
			if _, ok := d.subst[dl.Name]; ok && !used[dl.Name] {
				c.Delete()
			}
		}
		return true
	}, nil)
}

func intExprs(xs []int) []ast.Expr {
	out := make([]ast.Expr, len(xs))
	for i, x := range xs {
		out[i] = ast.IntConst(int64(x))
	}
	return out
}

func (d *delin) atomExpr(key string) ast.Expr { return ast.CloneExpr(d.atoms[key].expr) }

// ---- walking the kernel ----

func (d *delin) block(b *ast.Block, s *site) {
	for _, st := range b.List {
		d.stmt(st, s)
	}
}

func (d *delin) stmt(st ast.Stmt, s *site) {
	switch st := st.(type) {
	case *ast.Decl:
		if st.Init == nil {
			return
		}
		d.refsIn(st.Init, s)
		if st.Type == ast.Int && len(st.Extents) == 0 && !d.assigned[st.Name] {
			if p := d.poly(st.Init, s); p != nil && d.invariant(p, s) {
				d.subst[st.Name] = p
			}
		}
	case *ast.Assign:
		d.refsIn(st.RHS, s)
		d.refsIn(st.LHS, s)
	case *ast.Block:
		d.block(st, s)
	case *ast.Compute:
		d.block(st.Body, s)
	case *ast.If:
		d.refsIn(st.Cond, s)
		d.block(st.Then, d.guarded(s, st.Cond, false))
		if st.Else != nil {
			d.block(st.Else, d.guarded(s, st.Cond, true))
		}
	case *ast.While:
		d.refsIn(st.Cond, s)
		d.block(st.Body, s)
	case *ast.For:
		for _, e := range []ast.Expr{st.Lo, st.Hi, st.Step} {
			d.refsIn(e, s)
		}
		info := loopInfo{lo: d.poly(st.Lo, s), hi: d.poly(st.Hi, s)}
		step := d.poly(st.Step, s)
		info.ok = info.lo != nil && info.hi != nil && !d.setInto[st.Var] && d.positive(step)
		d.loops[st] = info
		inner := &site{loops: append(s.loops[:len(s.loops):len(s.loops)], st)}
		for _, g := range s.guards {
			// A guard on the counter, or bounding an atom by it, held
			// before the loop, not in it.
			if g.atom != st.Var && !mentions(g.lo, st.Var) && !mentions(g.hi, st.Var) {
				inner.guards = append(inner.guards, g)
			}
		}
		d.block(st.Body, inner)
	case *ast.Barrier:
	}
}

func mentions(p poly, key string) bool {
	for m := range p {
		if indexOf(factors(m), key) >= 0 {
			return true
		}
	}
	return false
}

// positive reports whether a loop step is known to be at least 1.
func (d *delin) positive(step poly) bool {
	if step == nil {
		return false
	}
	return d.nonNegative(step.add(constant(1), -1))
}

// invariant reports whether p, the value of a private int at its
// declaration, is the same wherever the variable is visible: it reads no
// opaque atom, and only counters of loops around the declaration that
// their bodies do not assign.
func (d *delin) invariant(p poly, s *site) bool {
	for m := range p {
		for _, f := range factors(m) {
			switch d.atoms[f].kind {
			case opaqueAtom:
				return false
			case indexAtom:
				if id, ok := d.atoms[f].expr.(*ast.Ident); ok && (d.loopOf(id.Name, s) == nil || d.setInto[id.Name]) {
					return false
				}
			}
		}
	}
	return true
}

// refsIn records the references to array arguments in e, inner ones first.
func (d *delin) refsIn(e ast.Expr, s *site) {
	ast.Inspect(e, func(n ast.Node) bool {
		ix, ok := n.(*ast.Index)
		if !ok {
			return true
		}
		for _, i := range ix.Indices {
			d.refsIn(i, s)
		}
		if p := d.k.Param(ix.Array); p != nil && p.Rank > 0 {
			r := &ref{node: ix, site: s, where: ast.ExprString(ix)}
			for _, i := range ix.Indices {
				r.subs = append(r.subs, d.poly(i, s))
			}
			d.refs[ix.Array] = append(d.refs[ix.Array], r)
			d.order = append(d.order, r)
		}
		return false
	})
}

// loopOf returns the innermost loop around s with counter name.
func (d *delin) loopOf(name string, s *site) *ast.For {
	for i := len(s.loops) - 1; i >= 0; i-- {
		if s.loops[i].Var == name {
			return s.loops[i]
		}
	}
	return nil
}

// guarded returns the site inside an if: the then branch (or, with neg,
// the else branch) adds the bounds the condition puts on index atoms.
func (d *delin) guarded(s *site, cond ast.Expr, neg bool) *site {
	var conds []ast.Expr
	var split func(e ast.Expr)
	split = func(e ast.Expr) {
		if b, ok := e.(*ast.Binary); ok && b.Op == ast.And && !neg {
			split(b.X)
			split(b.Y)
			return
		}
		conds = append(conds, e)
	}
	split(cond)
	if neg && len(conds) != 1 {
		return s
	}
	out := &site{loops: s.loops, guards: s.guards[:len(s.guards):len(s.guards)]}
	flip := map[ast.Op]ast.Op{ast.Lt: ast.Ge, ast.Ge: ast.Lt, ast.Le: ast.Gt, ast.Gt: ast.Le}
	for _, c := range conds {
		b, ok := c.(*ast.Binary)
		if !ok {
			continue
		}
		op := b.Op
		if neg {
			if op, ok = flip[op]; !ok {
				continue
			}
		}
		x, y := d.poly(b.X, s), d.poly(b.Y, s)
		if x == nil || y == nil || !d.isInt(b.X) || !d.isInt(b.Y) {
			continue
		}
		out.guards = append(out.guards, d.bounds(x.add(y, -1), op)...)
	}
	return out
}

// isInt reports whether e is an integer expression (comparisons of floats
// bound nothing).
func (d *delin) isInt(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FloatLit, *ast.Call:
			ok = false
		case *ast.Cast:
			ok = ok && n.Type == ast.Int
			return false
		case *ast.Ident:
			if p := d.k.Param(n.Name); p != nil && p.Type != ast.Int {
				ok = false
			}
			if dl := d.k.Decl(n.Name); dl != nil && dl.Type != ast.Int {
				ok = false
			}
		case *ast.Index:
			if p := d.k.Param(n.Array); p != nil && p.Type != ast.Int {
				ok = false
			}
			if dl := d.k.Decl(n.Array); dl != nil && dl.Type != ast.Int {
				ok = false
			}
			return false
		}
		return ok
	})
	return ok
}

// bounds reads p op 0, where p has one index atom with coefficient 1 or -1,
// as a bound on that atom.
func (d *delin) bounds(p poly, op ast.Op) []guard {
	var key string
	var coef int64
	rest := poly{}
	for m, c := range p {
		fs := factors(m)
		if len(fs) == 1 && d.atoms[fs[0]].kind == indexAtom && key == "" && (c == 1 || c == -1) {
			key, coef = fs[0], c
			continue
		}
		rest[m] = c
	}
	if key == "" || mentions(rest, key) {
		return nil
	}
	// a + rest op 0 is a op -rest; -a + rest op 0 is rest op a, a
	// (reversed op) rest.
	if coef == 1 {
		rest = rest.scale(-1)
	} else {
		op = map[ast.Op]ast.Op{ast.Lt: ast.Gt, ast.Le: ast.Ge, ast.Gt: ast.Lt, ast.Ge: ast.Le, ast.Eq: ast.Eq}[op]
	}
	// Now a op rest.
	switch op {
	case ast.Lt:
		return []guard{{atom: key, hi: rest}}
	case ast.Le:
		return []guard{{atom: key, hi: rest.add(constant(1), 1)}}
	case ast.Gt:
		return []guard{{atom: key, lo: rest.add(constant(1), 1)}}
	case ast.Ge:
		return []guard{{atom: key, lo: rest}}
	case ast.Eq:
		return []guard{{atom: key, lo: rest}, {atom: key, hi: rest.add(constant(1), 1)}}
	}
	return nil
}

// ---- polynomials of subscripts ----

func (d *delin) intern(key string, kind atomKind, e ast.Expr) poly {
	if d.atoms[key] == nil {
		d.atoms[key] = &atom{kind: kind, expr: e}
	}
	return atomPoly(key)
}

// opaque makes e an atom of its own, keyed by its text.
func (d *delin) opaque(e ast.Expr) poly {
	return d.intern("#"+ast.ExprString(e), opaqueAtom, e)
}

// sizeOf is the predefined size bounding an id: szx for idx.
func sizeOf(s *ast.Special) *ast.Special {
	k := map[ast.SpecialKind]ast.SpecialKind{ast.GlobalID: ast.GlobalSize, ast.LocalID: ast.LocalSize, ast.GroupID: ast.NumGroups}[s.Kind]
	return &ast.Special{Kind: k, Dim: s.Dim}
}

// poly reads an integer expression at site s as a polynomial; nil if the
// coefficients grow too large.
func (d *delin) poly(e ast.Expr, s *site) poly {
	switch e := e.(type) {
	case *ast.IntLit:
		return constant(e.Value)
	case *ast.Special:
		switch e.Kind {
		case ast.GlobalID, ast.LocalID, ast.GroupID:
			return d.intern(e.Name(), indexAtom, e)
		}
		return d.intern(e.Name(), scalarAtom, e)
	case *ast.Ident:
		if p := d.k.Param(e.Name); p != nil && p.Rank == 0 && p.Type == ast.Int {
			return d.intern(e.Name, scalarAtom, e)
		}
		if d.loopOf(e.Name, s) != nil {
			return d.intern(e.Name, indexAtom, e)
		}
		if p, ok := d.subst[e.Name]; ok {
			return p
		}
	case *ast.Unary:
		if e.Op == ast.Neg {
			if x := d.poly(e.X, s); x != nil {
				return x.scale(-1)
			}
		}
	case *ast.Binary:
		switch e.Op {
		case ast.Add, ast.Sub, ast.Mul:
			x, y := d.poly(e.X, s), d.poly(e.Y, s)
			var out poly
			switch e.Op {
			case ast.Add:
				out = x.add(y, 1)
			case ast.Sub:
				out = x.add(y, -1)
			default:
				out = x.mul(y)
			}
			if out != nil {
				return out
			}
		}
	}
	return d.opaque(e)
}

// ---- ranges ----

// maxCands bounds the candidate bounds kept for one expression.
const maxCands = 8

// atomBounds returns candidate lower (inclusive) and upper (exclusive)
// bounds of an index atom at site s.
func (d *delin) atomBounds(key string, s *site) (lo, hi []poly) {
	switch e := d.atoms[key].expr.(type) {
	case *ast.Special:
		size := sizeOf(e)
		lo = []poly{constant(0)}
		hi = []poly{d.intern(size.Name(), scalarAtom, size)}
	case *ast.Ident:
		f := d.loopOf(e.Name, s)
		if f == nil || !d.loops[f].ok {
			return nil, nil
		}
		lo, hi = []poly{d.loops[f].lo}, []poly{d.loops[f].hi}
	}
	for _, g := range s.guards {
		if g.atom != key {
			continue
		}
		if g.lo != nil {
			lo = append(lo, g.lo)
		}
		if g.hi != nil {
			hi = append(hi, g.hi)
		}
	}
	return lo, hi
}

// extremes returns candidate bounds of q at site s: each is a valid upper
// bound (inclusive) if upper, a lower bound otherwise. Nil means none is
// known (q reads an opaque atom, is not affine, or has a coefficient of
// unknown sign).
func (d *delin) extremes(q poly, s *site, upper bool, depth int) []poly {
	if q == nil || depth > 4 {
		return nil
	}
	out := []poly{constant(0)}
	for _, m := range q.monomials() {
		c := q[m]
		var idx, sc []string
		for _, f := range factors(m) {
			if d.atoms[f].kind == scalarAtom {
				if v, ok := d.values[f]; ok && v <= 0 {
					return nil
				}
				sc = append(sc, f)
			} else {
				idx = append(idx, f)
			}
		}
		coef := poly{monomial(sc): c}
		var cands []poly
		switch {
		case len(idx) == 0:
			cands = []poly{constant(1)}
		case len(idx) > 1 || d.atoms[idx[0]].kind == opaqueAtom:
			return nil
		default:
			lo, hi := d.atomBounds(idx[0], s)
			if (c > 0) == upper {
				for _, h := range hi {
					cands = append(cands, d.extremes(h.add(constant(1), -1), s, true, depth+1)...)
				}
			} else {
				for _, l := range lo {
					cands = append(cands, d.extremes(l, s, false, depth+1)...)
				}
			}
		}
		if len(cands) == 0 {
			return nil
		}
		var next []poly
		for _, r := range out {
			for _, x := range cands {
				if t := r.add(coef.mul(x), 1); t != nil && len(next) < maxCands {
					next = append(next, t)
				}
			}
		}
		out = next
	}
	return out
}

// nonNegative reports whether p >= 0 is shown: with the known values put
// in, p is a constant >= 0, or the sum of its constant and its other
// coefficients, all of them non-negative, is (every remaining atom being a
// positive scalar).
func (d *delin) nonNegative(p poly) bool {
	if p == nil {
		return false
	}
	q := d.evalKnown(p)
	if q == nil {
		return false
	}
	low := q[""]
	for m, c := range q {
		if m == "" {
			continue
		}
		for _, f := range factors(m) {
			if d.atoms[f].kind != scalarAtom {
				return false
			}
		}
		if c < 0 {
			return false
		}
		low += c
	}
	return low >= 0
}

// evalKnown puts the known values of scalar atoms into p.
func (d *delin) evalKnown(p poly) poly {
	out := poly{}
	for m, c := range p {
		var rest []string
		for _, f := range factors(m) {
			if v, ok := d.values[f]; ok && d.atoms[f].kind == scalarAtom {
				if abs(c) > overflow/max(abs(v), 1) {
					return nil
				}
				c *= v
			} else {
				rest = append(rest, f)
			}
		}
		k := monomial(rest)
		out[k] += c
		if out[k] == 0 {
			delete(out, k)
		}
	}
	return out
}

// within reports whether 0 <= q < ext holds at s; if not shown, open says
// whether some bound is not shown false either (values of the sizes or
// scalars might decide it).
func (d *delin) within(q, ext poly, s *site) (ok, open bool) {
	check := func(ps []poly) (bool, bool) {
		open := len(ps) == 0
		for _, p := range ps {
			if d.nonNegative(p) {
				return true, false
			}
			open = open || !d.nonNegative(p.scale(-1).add(constant(1), -1))
		}
		return false, open
	}
	if ok, open := check(d.extremes(q, s, false, 0)); !ok {
		return false, open
	}
	var highs []poly
	for _, h := range d.extremes(q, s, true, 0) {
		highs = append(highs, ext.add(constant(1), -1).add(h, -1))
	}
	return check(highs)
}

// ---- deciding an array's shape ----

// term is one stride: coef times a monomial of scalar atoms.
type term struct {
	coef int64
	mono string
}

func (t term) poly() poly { return poly{t.mono: t.coef} }

// divides reports whether t divides the term c*m (m's scalar part sc) and
// returns the quotient.
func (t term) divides(c int64, sc string) (int64, string, bool) {
	if c%t.coef != 0 {
		return 0, "", false
	}
	rest, ok := divides(t.mono, sc)
	return c / t.coef, rest, ok
}

// decision is the shape chosen for one array.
type decision struct {
	rank    int
	strides []term          // innermost (1 excluded) first: S_{rank-2}, ..., S_0
	parts   map[*ref][]poly // the subscript along each dimension, slowest first
	why     string          // why the array stays linear
	extents []ast.Expr      // set by a user shape
	refs    []*ref
	d       *delin
}

// inner returns the inner extents, S_{d-1}/S_d.
func (dec *decision) inner() []ast.Expr {
	var out []ast.Expr
	for j := len(dec.strides) - 1; j >= 0; j-- {
		out = append(out, dec.extent(j).expr(dec.d.atomExpr))
	}
	return out
}

// extent is the extent of the dimension whose stride is strides[j-1]
// (strides[-1] being 1): strides[j] / strides[j-1].
func (dec *decision) extent(j int) poly {
	prev := term{1, ""}
	if j > 0 {
		prev = dec.strides[j-1]
	}
	c, m, _ := prev.divides(dec.strides[j].coef, dec.strides[j].mono)
	return poly{m: c}
}

// linear is the decision to keep the array one-dimensional.
func (d *delin) linear(refs []*ref, why string) *decision {
	dec := &decision{rank: 1, parts: map[*ref][]poly{}, why: why, refs: refs, d: d}
	for _, r := range refs {
		dec.parts[r] = r.subs
	}
	return dec
}

// scalarPart splits a monomial into its scalar atoms and its other atoms.
func (d *delin) scalarPart(m string) (sc string, idx []string) {
	var s []string
	for _, f := range factors(m) {
		if d.atoms[f].kind == scalarAtom {
			s = append(s, f)
		} else {
			idx = append(idx, f)
		}
	}
	return monomial(s), idx
}

// decide chooses the shape of the one-dimensional array name from its
// references, against the given strides or, if nil, against those its
// subscripts show.
func (d *delin) decide(name string, strides []term) *decision {
	refs := d.refs[name]
	for _, r := range refs {
		if r.subs[0] == nil {
			return d.linear(refs, fmt.Sprintf("the subscript of %s is too large to analyse", r.where))
		}
		for m := range r.subs[0] {
			if _, idx := d.scalarPart(m); len(idx) > 1 {
				return d.linear(refs, fmt.Sprintf("the subscript of %s is not affine in the ids and loop counters", r.where))
			}
		}
	}
	if strides == nil {
		var why string
		if strides, why = d.strides(refs); why != "" {
			return d.linear(refs, why)
		}
	}
	if len(strides) == 0 {
		return d.linear(refs, "")
	}
	if len(strides) > 2 {
		return d.linear(refs, fmt.Sprintf("its subscripts have %d strides; arrays have at most 3 dimensions", len(strides)))
	}
	dec := &decision{rank: len(strides) + 1, strides: strides, parts: map[*ref][]poly{}, refs: refs, d: d}
	for _, r := range refs {
		parts := dec.split(r.subs[0])
		// The parts, linearized again, must be the subscript.
		sum := poly{}
		for dim, q := range parts {
			sum = sum.add(q.mul(dec.stride(dim)), 1)
		}
		if !sum.equal(r.subs[0]) {
			return d.linear(refs, fmt.Sprintf("the subscript of %s does not split along the strides", r.where))
		}
		for dim := 1; dim < dec.rank; dim++ {
			ext := dec.extent(dec.rank - 1 - dim)
			if ok, open := d.within(parts[dim], ext, r.site); !ok {
				why := fmt.Sprintf("cannot show that %s stays within its row: 0 <= %s < %s", r.where, ast.ExprString(parts[dim].expr(d.atomExpr)), ast.ExprString(ext.expr(d.atomExpr)))
				if open && (d.unvalued(parts[dim], r.site) || d.unvalued(ext, r.site)) {
					why += " (the values of the sizes may decide it)"
				}
				return d.linear(refs, why)
			}
		}
		dec.parts[r] = parts
	}
	return dec
}

// unvalued reports whether the range of p at s depends on a scalar or a
// size without a known value.
func (d *delin) unvalued(p poly, s *site) bool {
	for _, b := range d.extremes(p, s, true, 0) {
		for m := range b {
			for _, f := range factors(m) {
				if _, ok := d.values[f]; !ok {
					return true
				}
			}
		}
	}
	return false
}

// stride returns the stride of dimension dim as a polynomial.
func (dec *decision) stride(dim int) poly {
	j := dec.rank - 2 - dim
	if j < 0 {
		return constant(1)
	}
	return dec.strides[j].poly()
}

// split divides a subscript along the strides: each term goes to the
// dimension of the largest stride dividing it. With constant strides, a
// non-negative constant term is split in mixed radix.
func (dec *decision) split(p poly) []poly {
	parts := make([]poly, dec.rank)
	for i := range parts {
		parts[i] = poly{}
	}
	d := dec.d
	add := func(dim int, c int64, m string) {
		parts[dim] = parts[dim].add(poly{m: c}, 1)
	}
	for m, c := range p {
		sc, idx := d.scalarPart(m)
		if m == "" && c > 0 && dec.strides[0].mono == "" {
			for j := len(dec.strides) - 1; j >= 0; j-- {
				if q := c / dec.strides[j].coef; q != 0 {
					add(dec.rank-2-j, q, "")
					c -= q * dec.strides[j].coef
				}
			}
			if c != 0 {
				add(dec.rank-1, c, "")
			}
			continue
		}
		placed := false
		for j := len(dec.strides) - 1; j >= 0 && !placed; j-- {
			if qc, qm, ok := dec.strides[j].divides(c, sc); ok {
				add(dec.rank-2-j, qc, monomial(append(factors(qm), idx...)))
				placed = true
			}
		}
		if !placed {
			add(dec.rank-1, c, m)
		}
	}
	return parts
}

// strides finds the strides of an array's subscripts: the monomials of
// scalars in its terms, which must nest (n divides n*m); or, with none, the
// constant coefficients of its ids and counters.
func (d *delin) strides(refs []*ref) ([]term, string) {
	monos := map[string]bool{}
	consts := map[int64]bool{}
	for _, r := range refs {
		for m, c := range r.subs[0] {
			sc, idx := d.scalarPart(m)
			if sc != "" {
				monos[sc] = true
			}
			if len(idx) > 0 && abs(c) > 1 {
				consts[abs(c)] = true
			}
		}
	}
	var out []term
	if len(monos) > 0 {
		for m := range monos {
			out = append(out, term{1, m})
		}
		sort.Slice(out, func(i, j int) bool {
			di, dj := len(factors(out[i].mono)), len(factors(out[j].mono))
			if di != dj {
				return di < dj
			}
			return out[i].mono < out[j].mono
		})
	} else {
		for c := range consts {
			out = append(out, term{c, ""})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].coef < out[j].coef })
	}
	for j := 1; j < len(out); j++ {
		c, m, ok := out[j-1].divides(out[j].coef, out[j].mono)
		if !ok || c == 1 && m == "" {
			a, b := out[j-1].poly().expr(d.atomExpr), out[j].poly().expr(d.atomExpr)
			return nil, fmt.Sprintf("its strides %s and %s do not nest", ast.ExprString(a), ast.ExprString(b))
		}
	}
	return out, ""
}

// ---- extents ----

// upperBounds returns candidate values of max(q)+1 at s, those without
// predefined sizes first if there are any such.
func (d *delin) upperBounds(q poly, s *site) []poly {
	var plain, sized []poly
	for _, h := range d.extremes(q, s, true, 0) {
		h = h.add(constant(1), 1)
		if d.hasSize(h) {
			sized = append(sized, h)
		} else {
			plain = append(plain, h)
		}
	}
	if len(plain) > 0 {
		return plain
	}
	return sized
}

func (d *delin) hasSize(p poly) bool {
	for m := range p {
		for _, f := range factors(m) {
			if _, ok := d.atoms[f].expr.(*ast.Special); ok {
				return true
			}
		}
	}
	return false
}

// reduce keeps, among candidates that differ by a constant, the smallest
// (min) or the largest (!min).
func reduce(ps []poly, min bool) []poly {
	var out []poly
next:
	for _, p := range ps {
		for i, q := range out {
			if c, ok := p.add(q, -1).isConst(); ok {
				if min && c < 0 || !min && c > 0 {
					out[i] = p
				}
				continue next
			}
		}
		out = append(out, p)
	}
	return out
}

func (d *delin) call(f string, ps []poly) ast.Expr {
	if len(ps) == 1 {
		return ps[0].expr(d.atomExpr)
	}
	out := &ast.Call{Func: f}
	for _, p := range ps {
		out.Args = append(out.Args, p.expr(d.atomExpr))
	}
	return out
}

// outerExtent is the extent of a dimension from the subscripts along it:
// the largest value any reaches, plus one; nil if unknown.
func (d *delin) outerExtent(subs []poly, sites []*site) ast.Expr {
	var per [][]poly
	for i, q := range subs {
		c := reduce(d.upperBounds(q, sites[i]), true)
		if len(c) == 0 {
			return nil
		}
		per = append(per, c)
	}
	if len(per) == 0 {
		return nil
	}
	// Each reference's tightest bound; the largest over references.
	var single []poly
	var exprs []ast.Expr
	for _, c := range per {
		if len(c) == 1 {
			single = append(single, c[0])
		} else {
			exprs = append(exprs, d.call("min", c))
		}
	}
	for _, p := range reduce(single, false) {
		exprs = append(exprs, p.expr(d.atomExpr))
	}
	seen := map[string]bool{}
	var uniq []ast.Expr
	for _, e := range exprs {
		if s := ast.ExprString(e); !seen[s] {
			seen[s] = true
			uniq = append(uniq, e)
		}
	}
	sort.SliceStable(uniq, func(i, j int) bool { return ast.ExprString(uniq[i]) < ast.ExprString(uniq[j]) })
	if len(uniq) == 1 {
		return uniq[0]
	}
	return &ast.Call{Func: "max", Args: uniq}
}

// outer is the outermost extent of a decision's array.
func (d *delin) outer(dec *decision) ast.Expr {
	var subs []poly
	var sites []*site
	for _, r := range dec.refs {
		subs = append(subs, dec.parts[r][0])
		sites = append(sites, r.site)
	}
	return d.outerExtent(subs, sites)
}

// extents infers every extent of a multi-dimensional array argument.
func (d *delin) extents(refs []*ref, rank int) []ast.Expr {
	out := make([]ast.Expr, rank)
	for dim := range out {
		var subs []poly
		var sites []*site
		for _, r := range refs {
			subs = append(subs, r.subs[dim])
			sites = append(sites, r.site)
		}
		out[dim] = d.outerExtent(subs, sites)
	}
	return out
}

// shaped applies a user's shape to the decision for array p.
func (d *delin) shaped(p *ast.Param, dec *decision, shape []int) (*decision, error) {
	fail := func(format string, args ...any) (*decision, error) {
		return nil, fmt.Errorf("delinear: kernel %s: shape %s of %s: %s", d.k.Name, shapeString(shape), p.Name, fmt.Sprintf(format, args...))
	}
	for _, e := range shape {
		if e <= 0 {
			return fail("extents must be positive")
		}
	}
	switch {
	case len(shape) > 3:
		return fail("arrays have 1 to 3 dimensions")
	case len(shape) == 1:
		dec = d.linear(dec.refs, "a one-dimensional shape was given")
	case dec.rank == len(shape):
		for j := range dec.strides {
			e := dec.extent(j)
			v, err := Eval(e.expr(d.atomExpr), d.values)
			if err != nil {
				return fail("checking the extent %s found in the subscripts: %v", ast.ExprString(e.expr(d.atomExpr)), err)
			}
			if want := shape[len(shape)-1-j]; v != int64(want) {
				return fail("the subscripts give dimension %d the extent %s = %d, not %d", len(shape)-1-j, ast.ExprString(e.expr(d.atomExpr)), v, want)
			}
		}
	default:
		// Delinearize against the shape's strides, with the scalars'
		// values in the subscripts.
		for _, r := range d.refs[p.Name] {
			r.subs[0] = d.evalKnown(r.subs[0])
			for m := range r.subs[0] {
				if sc, _ := d.scalarPart(m); sc != "" {
					return fail("the subscript of %s needs the value of %s", r.where, strings.ReplaceAll(sc, sep, ", "))
				}
			}
		}
		var strides []term
		s := int64(1)
		for j := len(shape) - 1; j > 0; j-- {
			s *= int64(shape[j])
			strides = append(strides, term{s, ""})
		}
		dec = d.decide(p.Name, strides)
		if dec.why != "" {
			return fail("%s", dec.why)
		}
	}
	dec.extents = intExprs(shape)
	return dec, nil
}

func shapeString(shape []int) string {
	s := make([]string, len(shape))
	for i, e := range shape {
		s[i] = fmt.Sprint(e)
	}
	return strings.Join(s, "x")
}
