// Package ast defines the syntax tree of an hplopt kernel: the single-point
// kernels that users write with the hpl DSL and the optimized variants the
// transform passes derive from them.
//
// The design follows go/ast: Node, Expr and Stmt interfaces with unexported
// marker methods and one struct per node kind. Names are unique within a
// kernel (the DSL and the passes guarantee it), so a reference is a name and
// the declarations say what it refers to.
package ast

import (
	"fmt"
	"strconv"
)

// Node is any node of a kernel's tree.
type Node interface{ node() }

// Expr is an expression node.
type Expr interface {
	Node
	expr()
}

// Stmt is a statement node.
type Stmt interface {
	Node
	stmt()
}

// Type is the scalar type of a value or of an array's elements.
type Type int

// The scalar types.
const (
	Invalid Type = iota
	Int          // 32-bit signed integer (OpenCL int)
	Float        // 32-bit float
	Double       // 64-bit float
	Bool         // result of comparisons and logical operators
)

// CName is the OpenCL C spelling of t.
func (t Type) CName() string {
	switch t {
	case Int:
		return "int"
	case Float:
		return "float"
	case Double:
		return "double"
	case Bool:
		return "int"
	}
	return "void"
}

// VectorName is the OpenCL C spelling of a vector of width values of t
// (float4); a width below 2 is the scalar type.
func (t Type) VectorName(width int) string {
	if width < 2 {
		return t.CName()
	}
	return t.CName() + strconv.Itoa(width)
}

// Size is the size of one value of t in bytes.
func (t Type) Size() int {
	switch t {
	case Double:
		return 8
	case Int, Float, Bool:
		return 4
	}
	return 0
}

// IsFloat reports whether t is a floating-point type.
func (t Type) IsFloat() bool { return t == Float || t == Double }

// Arith is the type of an arithmetic operation on values of types a and b,
// C's usual arithmetic conversion: Double if either is, else Float if
// either is, else Int.
func Arith(a, b Type) Type {
	switch {
	case a == Double || b == Double:
		return Double
	case a == Float || b == Float:
		return Float
	}
	return Int
}

func (t Type) String() string {
	switch t {
	case Int:
		return "int32"
	case Float:
		return "float32"
	case Double:
		return "float64"
	case Bool:
		return "bool"
	}
	return "invalid"
}

// Mem is the memory space an array lives in.
type Mem int

// The memory spaces of the paper's memory model.
const (
	Private  Mem = iota // the default for variables declared in a kernel
	Global              // the default for kernel arguments
	Local               // shared by the work-items of a work-group
	Constant            // read-only, set up by the host
)

func (m Mem) String() string {
	return [...]string{"private", "global", "local", "constant"}[m]
}

// Op is a unary or binary operator.
type Op int

// Operators.
const (
	Add Op = iota + 1
	Sub
	Mul
	Div
	Rem
	Lt
	Le
	Gt
	Ge
	Eq
	Ne
	And // logical and
	Or  // logical or
	Neg // unary minus
	Not // logical not
)

var opText = [...]string{Add: "+", Sub: "-", Mul: "*", Div: "/", Rem: "%", Lt: "<", Le: "<=", Gt: ">", Ge: ">=", Eq: "==", Ne: "!=", And: "&&", Or: "||", Neg: "-", Not: "!"}

func (o Op) String() string {
	if o > 0 && int(o) < len(opText) {
		return opText[o]
	}
	return fmt.Sprintf("op(%d)", int(o))
}

// Precedence is the binding strength of a binary operator, higher binds
// tighter (C's table). Printers use it to decide parentheses.
func (o Op) Precedence() int {
	switch o {
	case Mul, Div, Rem:
		return 5
	case Add, Sub:
		return 4
	case Lt, Le, Gt, Ge:
		return 3
	case Eq, Ne:
		return 2
	case And:
		return 1
	case Or:
		return 0
	}
	return 6
}

// IsComparison reports whether o yields a Bool from two operands.
func (o Op) IsComparison() bool { return o >= Lt && o <= Ne }

// AssignOp is the operator of an assignment statement.
type AssignOp int

// Assignment operators.
const (
	Set    AssignOp = iota // =
	AddSet                 // +=
	SubSet                 // -=
	MulSet                 // *=
	DivSet                 // /=
)

func (o AssignOp) String() string { return [...]string{"=", "+=", "-=", "*=", "/="}[o] }

// Binary returns the binary operator of a compound assignment (Add for +=);
// 0 for plain assignment.
func (o AssignOp) Binary() Op {
	return [...]Op{0, Add, Sub, Mul, Div}[o]
}

// SpecialKind names the predefined identifiers of the paper (idx, lidx, ...).
type SpecialKind int

// The predefined identifiers; each has a dimension 0..2 (x, y, z).
const (
	GlobalID   SpecialKind = iota // idx idy idz
	LocalID                       // lidx lidy lidz
	GroupID                       // gidx gidy gidz
	GlobalSize                    // szx szy szz
	LocalSize                     // lszx lszy lszz
	NumGroups                     // ngroupsx ngroupsy ngroupsz
)

var specialNames = [...][3]string{
	GlobalID:   {"idx", "idy", "idz"},
	LocalID:    {"lidx", "lidy", "lidz"},
	GroupID:    {"gidx", "gidy", "gidz"},
	GlobalSize: {"szx", "szy", "szz"},
	LocalSize:  {"lszx", "lszy", "lszz"},
	NumGroups:  {"ngroupsx", "ngroupsy", "ngroupsz"},
}

var specialFuncs = [...]string{
	GlobalID: "get_global_id", LocalID: "get_local_id", GroupID: "get_group_id",
	GlobalSize: "get_global_size", LocalSize: "get_local_size", NumGroups: "get_num_groups",
}

// ---- expressions ----

type (
	// Ident refers to a scalar variable or kernel argument by name.
	Ident struct {
		Name string
	}

	// IntLit is an integer constant.
	IntLit struct {
		Value int64
	}

	// FloatLit is a floating-point constant of type Float or Double.
	FloatLit struct {
		Value float64
		Type  Type
	}

	// Index is a reference to one element of an array:
	// Array[Indices[0]][Indices[1]]... with the leftmost index the slowest.
	Index struct {
		Array   string
		Indices []Expr
	}

	// Binary is X Op Y.
	Binary struct {
		Op   Op
		X, Y Expr
	}

	// Unary is Op X (Neg or Not).
	Unary struct {
		Op Op
		X  Expr
	}

	// Call is a call of a math builtin such as min, sqrt or fma.
	Call struct {
		Func string
		Args []Expr
	}

	// Cast converts X to Type.
	Cast struct {
		Type Type
		X    Expr
	}

	// Special is one of the predefined identifiers: global, local and group
	// ids, and global and local sizes and numbers of groups, in dimension
	// Dim (0 for x, 1 for y, 2 for z).
	Special struct {
		Kind SpecialKind
		Dim  int
	}

	// Load is the vector of Width consecutive elements of an array that
	// starts at element Ref (OpenCL's vloadN). With Aligned, the element's
	// address is known to be a multiple of the vector's size, and the
	// vector is read through a pointer to the vector type, which lets a
	// GPU compiler emit one wide load. As the left side of an assignment,
	// a Load is the store of the vector into those elements. Passes make
	// Loads; the DSL does not.
	Load struct {
		Width   int
		Ref     *Index
		Aligned bool
	}

	// Lane is element Lane (0 first) of the vector X: OpenCL's X.sN.
	Lane struct {
		X    Expr
		Lane int
	}

	// Vector is the vector literal (TypeN)(Elems[0], ..., Elems[N-1]) of
	// N = Width elements of Type; a single element is replicated
	// (TypeN)(Elems[0]).
	Vector struct {
		Type  Type
		Width int
		Elems []Expr
	}
)

func (*Ident) node()    {}
func (*IntLit) node()   {}
func (*FloatLit) node() {}
func (*Index) node()    {}
func (*Binary) node()   {}
func (*Unary) node()    {}
func (*Call) node()     {}
func (*Cast) node()     {}
func (*Special) node()  {}
func (*Load) node()     {}
func (*Lane) node()     {}
func (*Vector) node()   {}

func (*Ident) expr()    {}
func (*IntLit) expr()   {}
func (*FloatLit) expr() {}
func (*Index) expr()    {}
func (*Binary) expr()   {}
func (*Unary) expr()    {}
func (*Call) expr()     {}
func (*Cast) expr()     {}
func (*Special) expr()  {}
func (*Load) expr()     {}
func (*Lane) expr()     {}
func (*Vector) expr()   {}

// Name is the paper's spelling of the identifier (idx, lszy, ...).
func (s *Special) Name() string { return specialNames[s.Kind][s.Dim] }

// CFunc is the OpenCL work-item function that yields the identifier.
func (s *Special) CFunc() string { return specialFuncs[s.Kind] }

// ---- statements ----

// LoopRole says where a loop came from, so that later passes find the loops
// earlier ones made.
type LoopRole int

// Loop roles.
const (
	UserLoop    LoopRole = iota // written by the user
	TileLoop                    // steps over tiles of a compute loop (tiling)
	ElementLoop                 // steps inside one tile of a compute loop (tiling)
	CyclicLoop                  // steps over a work-item's blocks (coarsening)
	PointLoop                   // steps over the points of one block (coarsening)
	CopyLoop                    // copies between global and local memory
	PartLoop                    // steps over the parts of a split loop, combining their partial results (splitting)
)

type (
	// Decl declares a variable: a scalar when Extents is empty, otherwise an
	// array with constant extents. Init, if not nil, initializes a scalar.
	// Width > 1 makes each element a vector of Width values of Type
	// (OpenCL's floatN): private variables made by passes. Align, when
	// positive, asks for the variable's address to be a multiple of Align
	// bytes (local arrays read with aligned vector Loads).
	Decl struct {
		Name    string
		Type    Type
		Mem     Mem
		Extents []int
		Init    Expr
		Width   int
		Align   int
	}

	// Assign is LHS Op RHS, LHS being an *Ident, an *Index or a *Load
	// (a vector store).
	Assign struct {
		LHS Expr
		Op  AssignOp
		RHS Expr
	}

	// Block is a braced list of statements.
	Block struct {
		List []Stmt
	}

	// If is if (Cond) Then else Else; Else may be nil.
	If struct {
		Cond Expr
		Then *Block
		Else *Block
	}

	// For is the counted loop for (Var = Lo; Var < Hi; Var += Step), the form
	// the analysis understands: the counter, bounds and step are explicit.
	// Unroll > 1 asks the code generator for #pragma unroll Unroll.
	For struct {
		Var    string
		Lo, Hi Expr
		Step   Expr
		Body   *Block
		Role   LoopRole
		Unroll int
	}

	// While is while (Cond) Body.
	While struct {
		Cond Expr
		Body *Block
	}

	// Barrier synchronizes the work-items of a work-group, fencing local
	// and/or global memory.
	Barrier struct {
		Local, Global bool
	}

	// Compute marks the section of the kernel that the optimizer may
	// transform; code outside it is kept as written.
	Compute struct {
		Body *Block
	}
)

func (*Decl) node()    {}
func (*Assign) node()  {}
func (*Block) node()   {}
func (*If) node()      {}
func (*For) node()     {}
func (*While) node()   {}
func (*Barrier) node() {}
func (*Compute) node() {}

func (*Decl) stmt()    {}
func (*Assign) stmt()  {}
func (*Block) stmt()   {}
func (*If) stmt()      {}
func (*For) stmt()     {}
func (*While) stmt()   {}
func (*Barrier) stmt() {}
func (*Compute) stmt() {}

// Param is a kernel argument: a scalar when Rank is 0, otherwise an array of
// Rank dimensions. Extents, the array's shape (slowest dimension first), is
// nil in the kernel the user wrote and set when the kernel is specialized for
// the arrays it runs on: generated code indexes with constant strides.
type Param struct {
	Name    string
	Type    Type
	Rank    int
	Mem     Mem
	Extents []int
}

// Kernel is a whole kernel: its name, its arguments and its body.
type Kernel struct {
	Name   string
	Params []*Param
	Body   *Block
	// WorkGroup, when set, is the only local size the kernel is launched
	// with (x first): code generation declares it with
	// reqd_work_group_size, which lets the compiler plan registers for
	// that many work-items.
	WorkGroup []int
	// Options are the OpenCL build options the kernel is built with
	// ("-cl-denorms-are-zero" for a variant made with ftz); code
	// generation names them in a comment on the first line, so that
	// sources built differently differ.
	Options string
}

func (*Kernel) node() {}

// Array returns the array whose element (an Index) or elements (a Load)
// the assignment writes, or "" when it assigns a scalar variable.
func (a *Assign) Array() string {
	switch l := a.LHS.(type) {
	case *Index:
		return l.Array
	case *Load:
		return l.Ref.Array
	}
	return ""
}

// Param returns the argument called name, or nil.
func (k *Kernel) Param(name string) *Param {
	for _, p := range k.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Decl returns the declaration of the variable called name in k's body, or nil.
func (k *Kernel) Decl(name string) *Decl {
	var found *Decl
	Inspect(k.Body, func(n Node) bool {
		if d, ok := n.(*Decl); ok && d.Name == name {
			found = d
		}
		return found == nil
	})
	return found
}

// Compute returns k's compute section, or nil if it has none.
func (k *Kernel) Compute() *Compute {
	var c *Compute
	Inspect(k.Body, func(n Node) bool {
		if x, ok := n.(*Compute); ok && c == nil {
			c = x
		}
		return c == nil
	})
	return c
}

// ---- constructors for nodes made by passes ----

// Int returns the integer constant v.
func IntConst(v int64) *IntLit { return &IntLit{Value: v} }

// Id returns a reference to the variable name.
func Id(name string) *Ident { return &Ident{Name: name} }

// Bin returns x op y, folding integer constants and the identities x+0,
// x*1, x*0 so that generated index expressions stay readable.
func Bin(op Op, x, y Expr) Expr {
	xi, xok := x.(*IntLit)
	yi, yok := y.(*IntLit)
	if xok && yok {
		switch op {
		case Add:
			return IntConst(xi.Value + yi.Value)
		case Sub:
			return IntConst(xi.Value - yi.Value)
		case Mul:
			return IntConst(xi.Value * yi.Value)
		case Div:
			if yi.Value != 0 {
				return IntConst(xi.Value / yi.Value)
			}
		case Rem:
			if yi.Value != 0 {
				return IntConst(xi.Value % yi.Value)
			}
		}
	}
	switch op {
	case Add:
		if xok && xi.Value == 0 {
			return y
		}
		if yok && yi.Value == 0 {
			return x
		}
		if yok && yi.Value < 0 {
			return &Binary{Op: Sub, X: x, Y: IntConst(-yi.Value)}
		}
	case Sub:
		if yok && yi.Value == 0 {
			return x
		}
	case Mul:
		if xok && xi.Value == 1 {
			return y
		}
		if yok && yi.Value == 1 {
			return x
		}
		if (xok && xi.Value == 0) || (yok && yi.Value == 0) {
			return IntConst(0)
		}
	case Div:
		if yok && yi.Value == 1 {
			return x
		}
	}
	return &Binary{Op: op, X: x, Y: y}
}

// Sum returns x + y with constant folding.
func Sum(x, y Expr) Expr { return Bin(Add, x, y) }

// Product returns x * y with constant folding.
func Product(x, y Expr) Expr { return Bin(Mul, x, y) }

// Min returns min(x, y), folded when both are constants.
func Min(x, y Expr) Expr {
	xi, xok := x.(*IntLit)
	yi, yok := y.(*IntLit)
	if xok && yok {
		return IntConst(min(xi.Value, yi.Value))
	}
	return &Call{Func: "min", Args: []Expr{x, y}}
}

// Max returns max(x, y), folded when both are constants.
func Max(x, y Expr) Expr {
	xi, xok := x.(*IntLit)
	yi, yok := y.(*IntLit)
	if xok && yok {
		return IntConst(max(xi.Value, yi.Value))
	}
	return &Call{Func: "max", Args: []Expr{x, y}}
}

// NewBlock returns a block of the given statements.
func NewBlock(list ...Stmt) *Block { return &Block{List: list} }

// Loop returns for (v = lo; v < hi; v += step) body with the given role.
func Loop(role LoopRole, v string, lo, hi, step Expr, body ...Stmt) *For {
	return &For{Var: v, Lo: lo, Hi: hi, Step: step, Body: NewBlock(body...), Role: role}
}

// IntDecl declares the private int scalar name, initialized to init if not nil.
func IntDecl(name string, init Expr) *Decl {
	return &Decl{Name: name, Type: Int, Mem: Private, Init: init}
}

// Elems is the number of elements the declaration holds: the product of
// its extents (1 for a scalar).
func (d *Decl) Elems() int {
	n := 1
	for _, e := range d.Extents {
		n *= e
	}
	return n
}

// Bytes is the memory the declaration takes: its elements, each of Width
// lanes (1 when 0) of Type.
func (d *Decl) Bytes() int64 {
	return int64(d.Type.Size()) * int64(max(1, d.Width)) * int64(d.Elems())
}
