package ast

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Fprint writes readable pseudo-C for n to w, for debugging and error
// messages: arrays keep their subscripts (a[i][j]) and predefined
// identifiers keep the paper's names (idx). The OpenCL that runs comes from
// package codegen.
func Fprint(w io.Writer, n Node) error {
	var p debugPrinter
	p.node(n)
	_, err := w.Write(p.buf.Bytes())
	return err
}

// String returns Fprint's output for n, without a trailing newline.
func String(n Node) string {
	var b bytes.Buffer
	Fprint(&b, n)
	return strings.TrimRight(b.String(), "\n")
}

type debugPrinter struct {
	buf    bytes.Buffer
	indent int
}

func (p *debugPrinter) line(format string, args ...any) {
	p.buf.WriteString(strings.Repeat("  ", p.indent))
	fmt.Fprintf(&p.buf, format, args...)
	p.buf.WriteByte('\n')
}

func (p *debugPrinter) node(n Node) {
	switch n := n.(type) {
	case Expr:
		p.buf.WriteString(ExprString(n))
	case *Kernel:
		var params []string
		for _, q := range n.Params {
			s := q.Type.CName() + " " + q.Name
			if q.Rank > 0 {
				s = q.Mem.String() + " " + s + strings.Repeat("[]", q.Rank)
			}
			params = append(params, s)
		}
		p.line("kernel %s(%s) {", n.Name, strings.Join(params, ", "))
		p.indent++
		p.stmts(n.Body)
		p.indent--
		p.line("}")
	case Stmt:
		p.stmt(n)
	}
}

func (p *debugPrinter) stmts(b *Block) {
	for _, s := range b.List {
		p.stmt(s)
	}
}

func (p *debugPrinter) stmt(s Stmt) {
	switch s := s.(type) {
	case *Decl:
		ext := ""
		for _, e := range s.Extents {
			ext += "[" + strconv.Itoa(e) + "]"
		}
		init := ""
		if s.Init != nil {
			init = " = " + ExprString(s.Init)
		}
		mem := ""
		if s.Mem != Private {
			mem = s.Mem.String() + " "
		}
		p.line("%s%s %s%s%s;", mem, s.Type.VectorName(s.Width), s.Name, ext, init)
	case *Assign:
		p.line("%s %s %s;", ExprString(s.LHS), s.Op, ExprString(s.RHS))
	case *Block:
		p.line("{")
		p.indent++
		p.stmts(s)
		p.indent--
		p.line("}")
	case *If:
		p.line("if (%s) {", ExprString(s.Cond))
		p.indent++
		p.stmts(s.Then)
		p.indent--
		if s.Else != nil {
			p.line("} else {")
			p.indent++
			p.stmts(s.Else)
			p.indent--
		}
		p.line("}")
	case *For:
		p.line("for (%s = %s; %s < %s; %s += %s) {", s.Var, ExprString(s.Lo), s.Var, ExprString(s.Hi), s.Var, ExprString(s.Step))
		p.indent++
		p.stmts(s.Body)
		p.indent--
		p.line("}")
	case *While:
		p.line("while (%s) {", ExprString(s.Cond))
		p.indent++
		p.stmts(s.Body)
		p.indent--
		p.line("}")
	case *Barrier:
		p.line("barrier(%s);", s.Fence())
	case *Compute:
		p.line("compute {")
		p.indent++
		p.stmts(s.Body)
		p.indent--
		p.line("}")
	default:
		panic(fmt.Sprintf("ast: unknown statement %T", s))
	}
}

// Fence is the OpenCL fence argument of the barrier.
func (b *Barrier) Fence() string {
	switch {
	case b.Local && b.Global:
		return "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE"
	case b.Global:
		return "CLK_GLOBAL_MEM_FENCE"
	}
	return "CLK_LOCAL_MEM_FENCE"
}

// ExprString renders an expression as pseudo-C with the fewest parentheses
// C's precedence allows.
func ExprString(x Expr) string {
	return exprString(x, -1)
}

func exprString(x Expr, ctx int) string {
	switch x := x.(type) {
	case nil:
		return "<nil>"
	case *Ident:
		return x.Name
	case *IntLit:
		return strconv.FormatInt(x.Value, 10)
	case *FloatLit:
		return FormatFloat(x.Value, x.Type)
	case *Special:
		return x.Name()
	case *Index:
		var b strings.Builder
		b.WriteString(x.Array)
		for _, i := range x.Indices {
			b.WriteString("[" + exprString(i, -1) + "]")
		}
		return b.String()
	case *Binary:
		prec := x.Op.Precedence()
		// Left-associative: the right operand needs parentheses at equal
		// precedence.
		s := exprString(x.X, prec) + " " + x.Op.String() + " " + exprString(x.Y, prec+1)
		if prec < ctx {
			return "(" + s + ")"
		}
		return s
	case *Unary:
		return x.Op.String() + exprString(x.X, 7)
	case *Call:
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			args[i] = exprString(a, -1)
		}
		return x.Func + "(" + strings.Join(args, ", ") + ")"
	case *Cast:
		return "(" + x.Type.CName() + ")" + exprString(x.X, 7)
	case *Load:
		if x.Aligned {
			return fmt.Sprintf("*(vec%d *)&%s", x.Width, exprString(x.Ref, 7))
		}
		return fmt.Sprintf("vload%d(0, &%s)", x.Width, exprString(x.Ref, 7))
	case *Lane:
		return exprString(x.X, 8) + "." + LaneName(x.Lane)
	case *Vector:
		elems := make([]string, len(x.Elems))
		for i, e := range x.Elems {
			elems[i] = exprString(e, -1)
		}
		return "(" + x.Type.VectorName(x.Width) + ")(" + strings.Join(elems, ", ") + ")"
	}
	panic(fmt.Sprintf("ast: unknown expression %T", x))
}

// LaneName is OpenCL's name of element i of a vector: s0 to s9, sa to sf.
func LaneName(i int) string { return "s" + strconv.FormatInt(int64(i), 16) }

// FormatFloat spells a float constant of type t as OpenCL C does: with a
// decimal point or exponent, and an f suffix for Float.
func FormatFloat(v float64, t Type) string {
	bits := 64
	if t == Float {
		bits = 32
	}
	s := strconv.FormatFloat(v, 'g', -1, bits)
	if !strings.ContainsAny(s, ".eEn") { // n: NaN, Inf
		s += ".0"
	}
	if t == Float {
		s += "f"
	}
	return s
}
