package ast

import (
	"fmt"
	"strings"
	"testing"
)

// sample is a small kernel: out[idx] = sum over k of in[idx][k] * s.
func sample() *Kernel {
	body := NewBlock(
		&Decl{Name: "acc", Type: Float, Init: &FloatLit{Value: 0, Type: Float}},
		&Compute{Body: NewBlock(
			Loop(UserLoop, "k", IntConst(0), Id("n"), IntConst(1),
				&Assign{LHS: Id("acc"), Op: AddSet, RHS: Bin(Mul, &Index{Array: "in", Indices: []Expr{&Special{Kind: GlobalID, Dim: 0}, Id("k")}}, Id("s"))},
			),
			&Barrier{Local: true},
			&Assign{LHS: &Index{Array: "out", Indices: []Expr{&Special{Kind: GlobalID, Dim: 0}}}, Op: Set, RHS: Id("acc")},
		)},
	)
	return &Kernel{
		Name: "rowsum",
		Params: []*Param{
			{Name: "out", Type: Float, Rank: 1, Mem: Global},
			{Name: "in", Type: Float, Rank: 2, Mem: Global},
			{Name: "s", Type: Float},
			{Name: "n", Type: Int},
		},
		Body:      body,
		WorkGroup: []int{64},
	}
}

func TestBinFolds(t *testing.T) {
	x := Id("x")
	for _, tc := range []struct {
		got  Expr
		want string
	}{
		{Sum(IntConst(2), IntConst(3)), "5"},
		{Bin(Sub, IntConst(2), IntConst(7)), "-5"},
		{Product(IntConst(4), IntConst(8)), "32"},
		{Bin(Div, IntConst(7), IntConst(2)), "3"},
		{Bin(Rem, IntConst(7), IntConst(2)), "1"},
		{Sum(x, IntConst(0)), "x"},
		{Sum(IntConst(0), x), "x"},
		{Bin(Sub, x, IntConst(0)), "x"},
		{Product(x, IntConst(1)), "x"},
		{Product(IntConst(1), x), "x"},
		{Product(x, IntConst(0)), "0"},
		{Bin(Div, x, IntConst(1)), "x"},
		{Sum(x, IntConst(-3)), "x - 3"},
		{Sum(Product(x, IntConst(4)), IntConst(1)), "x * 4 + 1"},
	} {
		if s := ExprString(tc.got); s != tc.want {
			t.Errorf("got %s, want %s", s, tc.want)
		}
	}
	// Division by a constant zero is left for the compiler to report.
	if _, ok := Bin(Div, IntConst(1), IntConst(0)).(*Binary); !ok {
		t.Error("1 / 0 was folded")
	}
}

func TestInspectVisitsEveryNode(t *testing.T) {
	k := sample()
	idents, specials, loops := map[string]int{}, 0, 0
	Inspect(k, func(n Node) bool {
		switch n := n.(type) {
		case *Ident:
			idents[n.Name]++
		case *Special:
			specials++
		case *For:
			loops++
		}
		return true
	})
	if idents["acc"] != 2 || idents["k"] != 1 || idents["s"] != 1 || idents["n"] != 1 {
		t.Errorf("identifiers seen %v", idents)
	}
	if specials != 2 || loops != 1 {
		t.Errorf("specials %d, loops %d; want 2, 1", specials, loops)
	}
	// Returning false skips the children.
	seen := 0
	Inspect(k, func(n Node) bool {
		seen++
		_, isCompute := n.(*Compute)
		return !isCompute
	})
	if seen >= 10 {
		t.Errorf("%d nodes seen with the compute section skipped", seen)
	}
}

func TestCloneIsDeep(t *testing.T) {
	k := sample()
	before := String(k)
	c := Clone(k)
	if String(c) != before {
		t.Fatalf("clone prints differently:\n%s\nwant\n%s", String(c), before)
	}
	// Change every part of the clone; the original must not move.
	c.Name = "other"
	c.WorkGroup[0] = 1
	c.Params[0].Name = "res"
	Inspect(c, func(n Node) bool {
		switch n := n.(type) {
		case *Ident:
			n.Name += "_c"
		case *IntLit:
			n.Value++
		case *For:
			n.Var = "j"
		case *Index:
			n.Indices = append(n.Indices, IntConst(9))
		}
		return true
	})
	if after := String(k); after != before {
		t.Errorf("original changed by editing its clone:\n%s\nwas\n%s", after, before)
	}
	if k.WorkGroup[0] != 64 {
		t.Error("WorkGroup shared with the clone")
	}
}

func TestApplyEditsLists(t *testing.T) {
	b := NewBlock(
		IntDecl("a", IntConst(1)),
		IntDecl("b", IntConst(2)),
		IntDecl("c", IntConst(3)),
	)
	Apply(b, func(c *Cursor) bool {
		d, ok := c.Node().(*Decl)
		if !ok {
			return true
		}
		switch d.Name {
		case "a":
			c.InsertBefore(IntDecl("first", nil))
		case "b":
			c.Delete()
		case "c":
			c.Replace(IntDecl("c2", IntConst(30)))
			c.InsertAfter(&Barrier{Local: true})
		}
		return true
	}, nil)
	want := "{\n  int first;\n  int a = 1;\n  int c2 = 30;\n  barrier(CLK_LOCAL_MEM_FENCE);\n}"
	if got := String(b); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSubstituteAndSimplify(t *testing.T) {
	e := Sum(Product(Id("p"), IntConst(32)), &Special{Kind: LocalID, Dim: 0})
	got := Substitute(e, map[string]Expr{"p": IntConst(3), "lidx": IntConst(5)})
	if s := ExprString(got); s != "3 * 32 + 5" {
		t.Errorf("substituted: %s", s)
	}
	if s := ExprString(Simplify(got).(Expr)); s != "101" {
		t.Errorf("simplified: %s, want 101", s)
	}
	if s := ExprString(e); s != "p * 32 + lidx" {
		t.Errorf("Substitute changed its input: %s", s)
	}

	loop := Loop(PointLoop, "p", IntConst(0), IntConst(4), IntConst(1),
		&Assign{LHS: &Index{Array: "x", Indices: []Expr{Id("p")}}, Op: Set, RHS: Id("q")})
	renamed := SubstituteStmt(loop, map[string]Expr{"p": Id("r"), "q": IntConst(7)})
	if s := String(renamed); !strings.Contains(s, "for (r = 0; r < 4; r += 1)") || !strings.Contains(s, "x[r] = 7;") {
		t.Errorf("SubstituteStmt:\n%s", s)
	}
	if s := String(loop); !strings.Contains(s, "for (p = 0;") {
		t.Errorf("SubstituteStmt changed its input:\n%s", s)
	}

	// Simplify merges blocks that declare nothing and keeps those that do.
	b := NewBlock(NewBlock(&Barrier{Local: true}), NewBlock(IntDecl("t", nil)))
	if s := String(Simplify(b)); s != "{\n  barrier(CLK_LOCAL_MEM_FENCE);\n  {\n    int t;\n  }\n}" {
		t.Errorf("Simplify blocks:\n%s", s)
	}
}

func TestPrintReadsAsPseudoC(t *testing.T) {
	got := String(sample())
	for _, want := range []string{
		"kernel rowsum(global float out[], global float in[][], float s, int n) {",
		"float acc = 0",
		"compute {",
		"for (k = 0; k < n; k += 1) {",
		"acc += in[idx][k] * s;",
		"barrier(CLK_LOCAL_MEM_FENCE);",
		"out[idx] = acc;",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("printed kernel lacks %q:\n%s", want, got)
		}
	}
}

func TestOperators(t *testing.T) {
	if Mul.Precedence() <= Add.Precedence() || Add.Precedence() <= Lt.Precedence() || Lt.Precedence() <= And.Precedence() {
		t.Error("precedences out of order")
	}
	if !Le.IsComparison() || Add.IsComparison() {
		t.Error("IsComparison")
	}
	if AddSet.Binary() != Add || DivSet.Binary() != Div {
		t.Error("AssignOp.Binary")
	}
	if got := ExprString(Bin(Mul, Sum(Id("a"), Id("b")), Id("c"))); got != "(a + b) * c" {
		t.Errorf("parenthesized: %s", got)
	}
	if Float.Size() != 4 || Double.Size() != 8 || !Double.IsFloat() || Int.IsFloat() {
		t.Error("type sizes")
	}
}

// TestHash checks that the structural hash tells apart kernels that differ
// in one constant, operator, name, type or extent, and not a kernel and its
// clone.
func TestHash(t *testing.T) {
	base := Hash(sample())
	if Hash(sample()) != base || Hash(Clone(sample())) != base {
		t.Fatal("equal kernels (a clone) hash differently")
	}
	for _, c := range []struct {
		what string
		edit func(k *Kernel)
	}{
		{"a constant", func(k *Kernel) { k.Compute().Body.List[0].(*For).Lo = IntConst(1) }},
		{"a float constant", func(k *Kernel) { k.Body.List[0].(*Decl).Init = &FloatLit{Value: 1, Type: Float} }},
		{"an operator", func(k *Kernel) { k.Compute().Body.List[0].(*For).Body.List[0].(*Assign).Op = SubSet }},
		{"a binary operator", func(k *Kernel) {
			a := k.Compute().Body.List[0].(*For).Body.List[0].(*Assign)
			a.RHS.(*Binary).Op = Add
		}},
		{"a variable's name", func(k *Kernel) { k.Body.List[0].(*Decl).Name = "acc2" }},
		{"an identifier", func(k *Kernel) { k.Compute().Body.List[2].(*Assign).RHS = Id("s") }},
		{"the kernel's name", func(k *Kernel) { k.Name = "rowsum2" }},
		{"a parameter's type", func(k *Kernel) { k.Params[2].Type = Double }},
		{"an array's extents", func(k *Kernel) { k.Params[1].Extents = []int{8, 8} }},
		{"a barrier's fence", func(k *Kernel) { k.Compute().Body.List[1].(*Barrier).Global = true }},
		{"a loop's unroll", func(k *Kernel) { k.Compute().Body.List[0].(*For).Unroll = 4 }},
		{"the work-group size", func(k *Kernel) { k.WorkGroup = []int{32} }},
		{"a special's dimension", func(k *Kernel) {
			k.Compute().Body.List[2].(*Assign).LHS.(*Index).Indices[0] = &Special{Kind: GlobalID, Dim: 1}
		}},
		{"a statement more", func(k *Kernel) { k.Body.List = append(k.Body.List, &Barrier{Local: true}) }},
	} {
		k := sample()
		c.edit(k)
		if Hash(k) == base {
			t.Errorf("changing %s does not change the hash", c.what)
		}
	}
}

// TestAccesses checks which arrays a kernel reads and writes: a plain
// store writes, a compound one also reads, a subscript reads, and a vector
// store (a Load on the left) writes the array of its first element.
func TestAccesses(t *testing.T) {
	k := sample()
	gid := &Special{Kind: GlobalID, Dim: 0}
	comp := k.Compute().Body
	comp.List = append(comp.List,
		&Assign{LHS: &Index{Array: "c", Indices: []Expr{&Index{Array: "idx", Indices: []Expr{gid}}}}, Op: AddSet, RHS: IntConst(1)},
		&Assign{LHS: &Load{Width: 4, Ref: &Index{Array: "v", Indices: []Expr{gid}}}, Op: Set, RHS: &Load{Width: 4, Ref: &Index{Array: "in", Indices: []Expr{gid, IntConst(0)}}}},
	)
	read, written := Accesses(k)
	wantRead := map[string]bool{"in": true, "c": true, "idx": true}
	wantWritten := map[string]bool{"out": true, "c": true, "v": true}
	if fmt.Sprint(read) != fmt.Sprint(wantRead) || fmt.Sprint(written) != fmt.Sprint(wantWritten) {
		t.Errorf("Accesses = read %v, written %v; want read %v, written %v", read, written, wantRead, wantWritten)
	}
}
