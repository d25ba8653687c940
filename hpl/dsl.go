// Package hpl is the user-facing side of hplopt: a Go DSL in which a kernel
// is written as the code for one point of the result (the paper's
// single-point kernels), host arrays that keep their device copies coherent,
// and Eval, which runs a kernel as written or optimized for a device.
//
// Eval generates OpenCL C with package codegen and runs it through a
// runner.Session, the device's one program cache and launch path; Optimize
// and Tune are thin adapters over package optimizer, which does the search.
//
// A kernel is defined by a function that receives a builder K. The builder's
// methods read like the paper's C++: K.For is for_, K.If is if_, K.Compute is
// the compute section. Because Go has no operator overloading, arithmetic is
// written with methods: a.At(Idy, k).Mul(b.At(k, Idx)).
package hpl

import (
	"fmt"
	"math"

	"github.com/hplopt/hplopt/ast"
)

// Scalar types of arrays, variables and arguments.
const (
	Int32   = ast.Int
	Float32 = ast.Float
	Float64 = ast.Double
)

// Memory flags for arrays. Arguments default to Global, arrays declared in a
// kernel to Private.
const (
	Global   = ast.Global
	Local    = ast.Local
	Constant = ast.Constant
	Private  = ast.Private
)

// Expr is a value in a kernel: a constant, a variable, an array element, a
// predefined identifier or an operation on those. Its methods build larger
// expressions; operands may be Exprs, Vars or Go numbers.
type Expr struct {
	n ast.Expr
	t ast.Type
	k *K // the builder that made it, for error reporting; nil for predefined
}

// Node returns the expression's syntax tree.
func (e Expr) Node() ast.Expr { return e.n }

// Type returns the expression's scalar type.
func (e Expr) Type() ast.Type { return e.t }

func (e Expr) String() string { return ast.ExprString(e.n) }

// Var is a scalar: a kernel argument or a private variable.
type Var struct {
	Expr
	name string
}

// Name returns the variable's name.
func (v Var) Name() string { return v.name }

// ArrayVar is an array in a kernel: an argument or a local or private array.
type ArrayVar struct {
	name string
	t    ast.Type
	rank int
	k    *K
}

// Name returns the array's name.
func (a ArrayVar) Name() string { return a.name }

// At is the element a[i0][i1]...; it needs one subscript per dimension.
func (a ArrayVar) At(idx ...any) Expr {
	k := a.k
	if len(idx) != a.rank {
		k.fail("array %s has %d dimension(s) but is indexed with %d subscript(s)", a.name, a.rank, len(idx))
	}
	k.use(a.name)
	out := &ast.Index{Array: a.name}
	for i, x := range idx {
		e := k.expr(x)
		if e.t != ast.Int && e.t != ast.Invalid {
			k.fail("subscript %d of %s is %s, not an integer", i, a.name, e.t)
		}
		out.Indices = append(out.Indices, e.n)
	}
	return Expr{n: out, t: a.t, k: k}
}

// The paper's predefined identifiers.
var (
	Idx, Idy, Idz                = special(ast.GlobalID, 0), special(ast.GlobalID, 1), special(ast.GlobalID, 2)
	Lidx, Lidy, Lidz             = special(ast.LocalID, 0), special(ast.LocalID, 1), special(ast.LocalID, 2)
	Gidx, Gidy, Gidz             = special(ast.GroupID, 0), special(ast.GroupID, 1), special(ast.GroupID, 2)
	Szx, Szy, Szz                = special(ast.GlobalSize, 0), special(ast.GlobalSize, 1), special(ast.GlobalSize, 2)
	Lszx, Lszy, Lszz             = special(ast.LocalSize, 0), special(ast.LocalSize, 1), special(ast.LocalSize, 2)
	NGroupsx, NGroupsy, NGroupsz = special(ast.NumGroups, 0), special(ast.NumGroups, 1), special(ast.NumGroups, 2)
)

func special(kind ast.SpecialKind, dim int) Expr {
	return Expr{n: &ast.Special{Kind: kind, Dim: dim}, t: ast.Int}
}

// K builds one kernel. Its methods append statements at the current point;
// the first mistake is recorded and reported by NewKernel, naming the kernel,
// the statement and the rule broken.
type K struct {
	kernel   *ast.Kernel
	blocks   []*ast.Block        // open statement lists, innermost last
	scopes   []map[string]bool   // declared names per open block
	types    map[string]ast.Type // every declared name
	arrays   map[string]int      // rank of every array name
	compute  int                 // compute sections seen
	inComp   bool
	err      error
	stmtText string // the statement being built, for errors
}

// Kernel is a defined kernel: its syntax tree, checked.
type Kernel struct {
	ast *ast.Kernel
}

// AST returns a copy of the kernel's syntax tree.
func (k *Kernel) AST() *ast.Kernel { return ast.Clone(k.ast) }

// Name returns the kernel's name.
func (k *Kernel) Name() string { return k.ast.Name }

// Params returns the kernel's arguments.
func (k *Kernel) Params() []*ast.Param { return k.AST().Params }

// Error is a mistake in a kernel definition.
type Error struct {
	Kernel string // the kernel's name
	Stmt   string // pseudo-C of the statement being built, if any
	Rule   string // what is wrong
}

func (e *Error) Error() string {
	if e.Stmt != "" {
		return fmt.Sprintf("hpl: kernel %s: %s (at %s)", e.Kernel, e.Rule, e.Stmt)
	}
	return fmt.Sprintf("hpl: kernel %s: %s", e.Kernel, e.Rule)
}

// NewKernel defines the kernel name by running body once with a builder,
// the way HPL captures a C++ kernel. It returns an *Error for a malformed
// kernel; a panic inside body is returned as an error too.
func NewKernel(name string, body func(k *K)) (kern *Kernel, err error) {
	k := &K{
		kernel: &ast.Kernel{Name: name, Body: &ast.Block{}},
		types:  map[string]ast.Type{},
		arrays: map[string]int{},
	}
	k.blocks = []*ast.Block{k.kernel.Body}
	k.scopes = []map[string]bool{{}}
	defer func() {
		if r := recover(); r != nil {
			kern, err = nil, &Error{Kernel: name, Rule: fmt.Sprint("panic while building: ", r)}
		}
	}()
	if name == "" || !isIdent(name) {
		return nil, &Error{Kernel: name, Rule: "a kernel name must be a C identifier"}
	}
	body(k)
	if k.err != nil {
		return nil, k.err
	}
	if k.compute == 0 {
		return nil, &Error{Kernel: name, Rule: "the kernel has no Compute section: mark the code the optimizer may transform with k.Compute"}
	}
	if k.compute > 1 {
		return nil, &Error{Kernel: name, Rule: fmt.Sprintf("the kernel has %d Compute sections; it may have one", k.compute)}
	}
	return &Kernel{ast: k.kernel}, nil
}

// FromAST makes a Kernel of a syntax tree built another way than with the
// builder (package clc reads one from OpenCL C). It keeps a copy of k,
// which must have a name that is a C identifier, array parameters of 1 to
// 3 dimensions without extents (Specialize sets them), and one compute
// section at the top level of its body.
func FromAST(k *ast.Kernel) (*Kernel, error) {
	if k == nil || k.Body == nil {
		return nil, &Error{Kernel: "?", Rule: "FromAST of a nil kernel"}
	}
	bad := func(format string, args ...any) (*Kernel, error) {
		return nil, &Error{Kernel: k.Name, Rule: fmt.Sprintf(format, args...)}
	}
	if !isIdent(k.Name) {
		return bad("a kernel name must be a C identifier")
	}
	for _, p := range k.Params {
		if p.Rank < 0 || p.Rank > 3 || p.Extents != nil {
			return bad("parameter %s: want a scalar or an array of 1 to 3 dimensions without extents", p.Name)
		}
	}
	top := 0
	for _, s := range k.Body.List {
		if _, ok := s.(*ast.Compute); ok {
			top++
		}
	}
	all := 0
	ast.Inspect(k.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.Compute); ok {
			all++
		}
		return true
	})
	if top != 1 || all != 1 {
		return bad("the kernel has %d compute sections, %d of them at the top level of its body; it must have one, at the top level", all, top)
	}
	return &Kernel{ast: ast.Clone(k)}, nil
}

// MustKernel is NewKernel for kernels known to be well formed, such as
// package-level definitions; it panics on error.
func MustKernel(name string, body func(k *K)) *Kernel {
	kern, err := NewKernel(name, body)
	if err != nil {
		panic(err)
	}
	return kern
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

var reserved = map[string]bool{
	"idx": true, "idy": true, "idz": true, "lidx": true, "lidy": true, "lidz": true,
	"gidx": true, "gidy": true, "gidz": true, "szx": true, "szy": true, "szz": true,
	"lszx": true, "lszy": true, "lszz": true, "int": true, "float": true, "double": true,
	"for": true, "if": true, "else": true, "while": true, "return": true, "min": true, "max": true,
	"kernel": true, "global": true, "local": true, "constant": true, "private": true,
}

func (k *K) fail(format string, args ...any) {
	if k.err == nil {
		k.err = &Error{Kernel: k.kernel.Name, Stmt: k.stmtText, Rule: fmt.Sprintf(format, args...)}
	}
}

// declare records a new name in the innermost scope.
func (k *K) declare(name string, t ast.Type) bool {
	switch {
	case !isIdent(name):
		k.fail("%q is not a valid identifier", name)
		return false
	case reserved[name]:
		k.fail("%q is reserved (a predefined identifier or C keyword)", name)
		return false
	case k.types[name] != ast.Invalid:
		k.fail("%q is declared twice", name)
		return false
	}
	k.types[name] = t
	k.scopes[len(k.scopes)-1][name] = true
	return true
}

// use checks that name is in scope.
func (k *K) use(name string) {
	for _, s := range k.scopes {
		if s[name] {
			return
		}
	}
	if _, ok := k.types[name]; ok {
		k.fail("%s is used outside its scope", name)
	} else {
		k.fail("%s is not declared in this kernel", name)
	}
}

func (k *K) add(s ast.Stmt) {
	b := k.blocks[len(k.blocks)-1]
	b.List = append(b.List, s)
}

// nested runs body with a new open block and scope, returning the block.
func (k *K) nested(body func()) *ast.Block {
	b := &ast.Block{}
	k.blocks = append(k.blocks, b)
	k.scopes = append(k.scopes, map[string]bool{})
	if body != nil {
		body()
	}
	k.blocks = k.blocks[:len(k.blocks)-1]
	k.scopes = k.scopes[:len(k.scopes)-1]
	return b
}

func (k *K) param(name string, t ast.Type, rank int, mem ast.Mem) {
	if len(k.blocks) > 1 || len(k.kernel.Body.List) > 0 {
		k.fail("argument %s must be declared before any statement", name)
	}
	if k.declare(name, t) {
		k.kernel.Params = append(k.kernel.Params, &ast.Param{Name: name, Type: t, Rank: rank, Mem: mem})
	}
}

// Array declares an array argument of the given element type and rank
// (1 to 3), in Global memory unless a memory flag (Global or Constant) is
// given.
func (k *K) Array(name string, t ast.Type, rank int, mem ...ast.Mem) ArrayVar {
	m := ast.Global
	if len(mem) > 0 {
		m = mem[0]
	}
	if rank < 1 || rank > 3 {
		k.fail("array %s has rank %d; arrays have 1 to 3 dimensions", name, rank)
	}
	if m != ast.Global && m != ast.Constant {
		k.fail("array argument %s must be Global or Constant, not %s", name, m)
	}
	checkType(k, name, t)
	k.param(name, t, rank, m)
	k.arrays[name] = rank
	return ArrayVar{name: name, t: t, rank: rank, k: k}
}

// Scalar declares a scalar argument, passed by value.
func (k *K) Scalar(name string, t ast.Type) Var {
	checkType(k, name, t)
	k.param(name, t, 0, ast.Private)
	return Var{Expr: Expr{n: &ast.Ident{Name: name}, t: t, k: k}, name: name}
}

func checkType(k *K, name string, t ast.Type) {
	if t != ast.Int && t != ast.Float && t != ast.Double {
		k.fail("%s has type %v; use Int32, Float32 or Float64", name, t)
	}
}

// Var declares a private scalar variable of type t, initialized to init if
// given. It is visible until the end of the enclosing block.
func (k *K) Var(name string, t ast.Type, init ...any) Var {
	checkType(k, name, t)
	d := &ast.Decl{Name: name, Type: t, Mem: ast.Private}
	k.stmtText = t.CName() + " " + name
	if len(init) > 0 {
		d.Init = k.convert(k.expr(init[0]), t).n
	}
	if k.declare(name, t) {
		k.add(d)
	}
	k.stmtText = ""
	return Var{Expr: Expr{n: &ast.Ident{Name: name}, t: t, k: k}, name: name}
}

// Int declares a private int variable (the paper's Int).
func (k *K) Int(name string, init ...any) Var { return k.Var(name, ast.Int, init...) }

// Float declares a private float variable (the paper's Float).
func (k *K) Float(name string, init ...any) Var { return k.Var(name, ast.Float, init...) }

// Double declares a private double variable.
func (k *K) Double(name string, init ...any) Var { return k.Var(name, ast.Double, init...) }

// LocalArray declares an array in a kernel, in Private memory unless mem
// says Local, with constant extents.
func (k *K) LocalArray(name string, t ast.Type, mem ast.Mem, extents ...int) ArrayVar {
	checkType(k, name, t)
	if mem != ast.Private && mem != ast.Local {
		k.fail("array %s declared in a kernel must be Private or Local, not %s", name, mem)
	}
	if len(extents) < 1 || len(extents) > 3 {
		k.fail("array %s has %d dimensions; arrays have 1 to 3", name, len(extents))
	}
	for _, e := range extents {
		if e <= 0 {
			k.fail("array %s has extent %d; extents must be positive", name, e)
		}
	}
	if k.declare(name, t) {
		k.add(&ast.Decl{Name: name, Type: t, Mem: mem, Extents: extents})
		k.arrays[name] = len(extents)
	}
	return ArrayVar{name: name, t: t, rank: len(extents), k: k}
}

// expr converts an operand (Expr, Var, Go number) to an Expr.
func (k *K) expr(x any) Expr {
	switch x := x.(type) {
	case Expr:
		if x.n == nil {
			k.fail("use of an empty expression")
			return Expr{n: ast.IntConst(0), t: ast.Int, k: k}
		}
		checkUses(k, x.n)
		return x
	case Var:
		k.use(x.name)
		return x.Expr
	case int:
		if x > math.MaxInt32 || x < math.MinInt32 {
			k.fail("integer constant %d does not fit in int32", x)
		}
		return Expr{n: ast.IntConst(int64(x)), t: ast.Int, k: k}
	case int32:
		return Expr{n: ast.IntConst(int64(x)), t: ast.Int, k: k}
	case float32:
		return Expr{n: &ast.FloatLit{Value: float64(x), Type: ast.Float}, t: ast.Float, k: k}
	case float64:
		return Expr{n: &ast.FloatLit{Value: x, Type: ast.Float}, t: ast.Float, k: k}
	case ArrayVar:
		k.fail("array %s used as a value; index it with At", x.name)
	default:
		k.fail("%T is not a kernel value", x)
	}
	return Expr{n: ast.IntConst(0), t: ast.Int, k: k}
}

// checkUses verifies the scope of every variable in an expression built
// earlier (possibly in a scope that has ended).
func checkUses(k *K, n ast.Expr) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			k.use(n.Name)
		case *ast.Index:
			k.use(n.Array)
		}
		return true
	})
}

// convert gives e type t where a C conversion would (float constants are
// retyped, ints are widened); it does not insert casts for narrowing.
func (k *K) convert(e Expr, t ast.Type) Expr {
	if f, ok := e.n.(*ast.FloatLit); ok && t.IsFloat() {
		return Expr{n: &ast.FloatLit{Value: f.Value, Type: t}, t: t, k: k}
	}
	if l, ok := e.n.(*ast.IntLit); ok && t.IsFloat() {
		return Expr{n: &ast.FloatLit{Value: float64(l.Value), Type: t}, t: t, k: k}
	}
	return e
}

// builderOf finds a builder among operands (predefined ids have none).
func builderOf(xs ...any) *K {
	for _, x := range xs {
		switch x := x.(type) {
		case Expr:
			if x.k != nil {
				return x.k
			}
		case Var:
			if x.k != nil {
				return x.k
			}
		}
	}
	return nil
}

var orphan = &K{kernel: &ast.Kernel{Name: "?"}, types: map[string]ast.Type{}}

func pick(xs ...any) *K {
	if k := builderOf(xs...); k != nil {
		return k
	}
	return orphan
}

// operandExpr converts without a builder (for predefined ids and constants).
func operand(k *K, x any) Expr {
	if k == orphan {
		switch x := x.(type) {
		case Expr:
			return x
		case Var:
			return x.Expr
		}
	}
	return k.expr(x)
}

func binary(op ast.Op, x, y any) Expr {
	k := pick(x, y)
	a, b := operand(k, x), operand(k, y)
	t := ast.Arith(a.t, b.t)
	// A float constant takes the type of the other operand.
	if _, ok := a.n.(*ast.FloatLit); ok && b.t.IsFloat() {
		a = k.convert(a, b.t)
		t = b.t
	}
	if _, ok := b.n.(*ast.FloatLit); ok && a.t.IsFloat() {
		b = k.convert(b, a.t)
		t = a.t
	}
	if op == ast.Rem && t != ast.Int {
		k.fail("%% needs integer operands, not %s", t)
	}
	if op.IsComparison() || op == ast.And || op == ast.Or {
		t = ast.Bool
	}
	return Expr{n: &ast.Binary{Op: op, X: a.n, Y: b.n}, t: t, k: builderOf(x, y)}
}

// Add is e + y.
func (e Expr) Add(y any) Expr { return binary(ast.Add, e, y) }

// Sub is e - y.
func (e Expr) Sub(y any) Expr { return binary(ast.Sub, e, y) }

// Mul is e * y.
func (e Expr) Mul(y any) Expr { return binary(ast.Mul, e, y) }

// Div is e / y.
func (e Expr) Div(y any) Expr { return binary(ast.Div, e, y) }

// Rem is e % y, for integers.
func (e Expr) Rem(y any) Expr { return binary(ast.Rem, e, y) }

// Lt is e < y.
func (e Expr) Lt(y any) Expr { return binary(ast.Lt, e, y) }

// Le is e <= y.
func (e Expr) Le(y any) Expr { return binary(ast.Le, e, y) }

// Gt is e > y.
func (e Expr) Gt(y any) Expr { return binary(ast.Gt, e, y) }

// Ge is e >= y.
func (e Expr) Ge(y any) Expr { return binary(ast.Ge, e, y) }

// Eq is e == y.
func (e Expr) Eq(y any) Expr { return binary(ast.Eq, e, y) }

// Ne is e != y.
func (e Expr) Ne(y any) Expr { return binary(ast.Ne, e, y) }

// And is e && y.
func (e Expr) And(y any) Expr { return binary(ast.And, e, y) }

// Or is e || y.
func (e Expr) Or(y any) Expr { return binary(ast.Or, e, y) }

// Neg is -e.
func (e Expr) Neg() Expr { return Expr{n: &ast.Unary{Op: ast.Neg, X: e.n}, t: e.t, k: e.k} }

// Not is !e.
func (e Expr) Not() Expr { return Expr{n: &ast.Unary{Op: ast.Not, X: e.n}, t: ast.Bool, k: e.k} }

// Cast converts x to type t: ToFloat, ToInt and ToDouble are shorthands.
func Cast(t ast.Type, x any) Expr {
	k := pick(x)
	e := operand(k, x)
	return Expr{n: &ast.Cast{Type: t, X: e.n}, t: t, k: builderOf(x)}
}

// ToFloat is (float)x.
func ToFloat(x any) Expr { return Cast(ast.Float, x) }

// ToDouble is (double)x.
func ToDouble(x any) Expr { return Cast(ast.Double, x) }

// ToInt is (int)x.
func ToInt(x any) Expr { return Cast(ast.Int, x) }

func call(name string, floatOnly bool, xs ...any) Expr {
	k := pick(xs...)
	var t ast.Type
	args := make([]Expr, len(xs))
	for i, x := range xs {
		args[i] = operand(k, x)
		if i == 0 {
			t = args[i].t
		} else {
			t = ast.Arith(t, args[i].t)
		}
	}
	if floatOnly && !t.IsFloat() {
		t = ast.Float
	}
	out := &ast.Call{Func: name}
	for _, a := range args {
		out.Args = append(out.Args, k.convert(a, t).n)
	}
	return Expr{n: out, t: t, k: builderOf(xs...)}
}

// Min is min(x, y).
func Min(x, y any) Expr { return call("min", false, x, y) }

// Max is max(x, y).
func Max(x, y any) Expr { return call("max", false, x, y) }

// Sqrt is sqrt(x).
func Sqrt(x any) Expr { return call("sqrt", true, x) }

// Rsqrt is rsqrt(x), 1/sqrt(x).
func Rsqrt(x any) Expr { return call("rsqrt", true, x) }

// Exp is exp(x).
func Exp(x any) Expr { return call("exp", true, x) }

// Log is log(x).
func Log(x any) Expr { return call("log", true, x) }

// Pow is pow(x, y).
func Pow(x, y any) Expr { return call("pow", true, x, y) }

// Fabs is fabs(x).
func Fabs(x any) Expr { return call("fabs", true, x) }

// Sin is sin(x).
func Sin(x any) Expr { return call("sin", true, x) }

// Cos is cos(x).
func Cos(x any) Expr { return call("cos", true, x) }

// Floor is floor(x).
func Floor(x any) Expr { return call("floor", true, x) }

// Fma is fma(x, y, z) = x*y + z, rounded once.
func Fma(x, y, z any) Expr { return call("fma", true, x, y, z) }

// ---- statements ----

func (k *K) assign(op ast.AssignOp, lhs, rhs any) {
	l := k.expr(lhs)
	r := k.expr(rhs)
	k.stmtText = ast.ExprString(l.n) + " " + op.String() + " " + ast.ExprString(r.n)
	defer func() { k.stmtText = "" }()
	switch n := l.n.(type) {
	case *ast.Ident:
		if k.kernel.Param(n.Name) != nil {
			k.fail("argument %s is passed by value and cannot be assigned", n.Name)
		}
	case *ast.Index:
		if p := k.kernel.Param(n.Array); p != nil && p.Mem == ast.Constant {
			k.fail("array %s is in Constant memory and cannot be assigned", n.Array)
		}
	default:
		k.fail("the left side of an assignment must be a variable or an array element")
		return
	}
	if r.t == ast.Bool {
		r.t = ast.Int
	}
	if l.t == ast.Int && r.t.IsFloat() {
		k.fail("assigning a %s value to the int %s needs an explicit ToInt", r.t, ast.ExprString(l.n))
	}
	r = k.convert(r, l.t)
	k.add(&ast.Assign{LHS: l.n, Op: op, RHS: r.n})
}

// Set is lhs = rhs.
func (k *K) Set(lhs, rhs any) { k.assign(ast.Set, lhs, rhs) }

// AddTo is lhs += rhs.
func (k *K) AddTo(lhs, rhs any) { k.assign(ast.AddSet, lhs, rhs) }

// SubFrom is lhs -= rhs.
func (k *K) SubFrom(lhs, rhs any) { k.assign(ast.SubSet, lhs, rhs) }

// MulBy is lhs *= rhs.
func (k *K) MulBy(lhs, rhs any) { k.assign(ast.MulSet, lhs, rhs) }

// DivBy is lhs /= rhs.
func (k *K) DivBy(lhs, rhs any) { k.assign(ast.DivSet, lhs, rhs) }

// For is the paper's for_: for (v = lo; v < hi; v++) body. The counter
// must be an int variable declared earlier.
func (k *K) For(v Var, lo, hi any, body func()) { k.ForStep(v, lo, hi, 1, body) }

// ForStep is for (v = lo; v < hi; v += step) body.
func (k *K) ForStep(v Var, lo, hi, step any, body func()) {
	l, h, s := k.expr(lo), k.expr(hi), k.expr(step)
	k.stmtText = fmt.Sprintf("for (%s = %s; %s < %s; %s += %s)", v.name, l, v.name, h, v.name, s)
	k.use(v.name)
	if v.t != ast.Int {
		k.fail("loop counter %s must be an int variable", v.name)
	}
	if k.kernel.Param(v.name) != nil {
		k.fail("loop counter %s is an argument; declare a variable with k.Int", v.name)
	}
	for _, e := range []Expr{l, h, s} {
		if e.t != ast.Int {
			k.fail("loop bounds and step must be integers, not %s", e.t)
		}
	}
	k.stmtText = ""
	b := k.nested(body)
	k.add(&ast.For{Var: v.name, Lo: l.n, Hi: h.n, Step: s.n, Body: b})
}

// IfStmt lets an Else follow an If.
type IfStmt struct {
	k *K
	s *ast.If
}

// If is the paper's if_: if (cond) then.
func (k *K) If(cond any, then func()) IfStmt {
	c := k.expr(cond)
	s := &ast.If{Cond: c.n, Then: k.nested(then)}
	k.add(s)
	return IfStmt{k: k, s: s}
}

// Else adds the else branch.
func (i IfStmt) Else(body func()) { i.s.Else = i.k.nested(body) }

// While is while (cond) body.
func (k *K) While(cond any, body func()) {
	c := k.expr(cond)
	k.add(&ast.While{Cond: c.n, Body: k.nested(body)})
}

// Barrier is barrier(CLK_LOCAL_MEM_FENCE).
func (k *K) Barrier() { k.add(&ast.Barrier{Local: true}) }

// GlobalBarrier is barrier(CLK_GLOBAL_MEM_FENCE).
func (k *K) GlobalBarrier() { k.add(&ast.Barrier{Global: true}) }

// Compute marks body as the code the optimizer may transform. A kernel has
// exactly one compute section, not nested in another statement.
func (k *K) Compute(body func()) {
	k.compute++
	if k.inComp {
		k.fail("Compute sections cannot be nested")
		return
	}
	if len(k.blocks) > 1 {
		k.fail("the Compute section must be at the top level of the kernel, not inside a loop or if")
	}
	k.inComp = true
	b := k.nested(body)
	k.inComp = false
	k.add(&ast.Compute{Body: b})
}
