package patterns

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hplopt/hplopt/ast"
)

// Fprint writes the access-pattern table of in to w: one row per array
// (name, pattern, r/w/rw) followed by its references in source order, each
// with the role of every subscript ("id y + loop i +1", "const 3", "id x +6
// (k=5)" for an int argument folded in) and, for an unsupported one, the
// reason; a neighbourhood read's halo; then the compute loops (a triangular
// loop with its varying bounds), the bounds guard and the kernel-level
// reasons against transforming the compute section. The output depends only on
// in, so the same kernel always prints the same table.
//
//	kernel mxm
//	a  RowPat     r
//	     a[idy][k]    id y | loop k  RowPat     r
//	b  ColPat     r
//	     b[k][idx]    loop k | id x  ColPat     r
//	c  SinglePat  rw
//	     c[idy][idx]  id y | id x    SinglePat  w
//	     c[idy][idx]  id y | id x    SinglePat  rw
//	loops:
//	  [0] for (k = 0; k < limk; k += 1)  depth 0
func Fprint(w io.Writer, in *Info) error {
	var b bytes.Buffer
	p := &printer{in: in, buf: &b}
	p.print()
	_, err := w.Write(b.Bytes())
	return err
}

// String returns the table Fprint writes.
func (in *Info) String() string {
	var b bytes.Buffer
	Fprint(&b, in)
	return b.String()
}

// Access returns "r", "w" or "rw" for how an array is used ("-" for
// neither).
func (a *Array) Access() string { return access(a.Read, a.Written) }

// Access returns "r", "w" or "rw" for how the reference uses the element.
func (r *Ref) Access() string { return access(r.Read, r.Write) }

func access(read, write bool) string {
	switch {
	case read && write:
		return "rw"
	case read:
		return "r"
	case write:
		return "w"
	}
	return "-"
}

// Roles returns the role of each subscript of r, as the table prints them:
// "id y | loop k".
func (in *Info) Roles(r *Ref) string {
	parts := make([]string, len(r.Subs))
	for i, s := range r.Subs {
		parts[i] = in.role(s)
	}
	return strings.Join(parts, " | ")
}

// role spells one subscript: "const 3", "id x", "loop k", "id y + loop i",
// with a nonzero offset appended as "+1" or "-2"; "other" for a subscript
// the analysis could not follow.
func (in *Info) role(s Subscript) string {
	var t string
	switch s.Kind {
	case Const:
		return fmt.Sprintf("const %d", s.Offset) + in.scalars(s)
	case ID:
		t = "id " + axis(s.Dim)
	case Counter:
		t = "loop " + in.loopVar(s.Loop)
	case IDCounter:
		t = "id " + axis(s.Dim) + " + loop " + in.loopVar(s.Loop)
	default:
		return "other"
	}
	if s.Offset != 0 {
		t += fmt.Sprintf(" %+d", s.Offset)
	}
	return t + in.scalars(s)
}

// scalars spells the int arguments folded into a subscript's offset, with
// their values: " (k=5)", or "" for none.
func (in *Info) scalars(s Subscript) string {
	if len(s.Scalars) == 0 {
		return ""
	}
	names := make([]string, 0, len(s.Scalars))
	for name := range s.Scalars {
		names = append(names, name)
	}
	sort.Strings(names)
	for i, name := range names {
		names[i] = fmt.Sprintf("%s=%d", name, in.Ints[name])
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// halo spells an array's neighbourhood: "halo [-1,+1][0,+2]".
func halo(spans []Span) string {
	if spans == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("  halo ")
	for _, s := range spans {
		fmt.Fprintf(&b, "[%+d,%+d]", s.Min, s.Max)
	}
	return b.String()
}

func axis(d int) string {
	if d >= 0 && d < 3 {
		return "xyz"[d : d+1]
	}
	return fmt.Sprint(d)
}

func (in *Info) loopVar(l int) string {
	if l >= 0 && l < len(in.Loops) {
		return in.Loops[l].Var
	}
	return fmt.Sprintf("L%d", l)
}

type printer struct {
	in  *Info
	buf *bytes.Buffer
}

func (p *printer) line(indent int, format string, args ...any) {
	p.buf.WriteString(strings.Repeat(" ", indent))
	fmt.Fprintf(p.buf, format, args...)
	p.buf.WriteByte('\n')
}

func (p *printer) print() {
	in := p.in
	p.line(0, "kernel %s", in.Kernel)
	// Column widths over the whole table, so that every row lines up.
	nameW, patW, refW, roleW := 0, 0, 0, 0
	for _, a := range in.Arrays {
		nameW = max(nameW, len(a.Name))
		patW = max(patW, len(a.Pattern.String()))
		for _, r := range a.Refs {
			patW = max(patW, len(r.Pattern.String()))
			refW = max(refW, len(ast.ExprString(r.Node)))
			roleW = max(roleW, len(in.Roles(r)))
		}
	}
	if len(in.Arrays) == 0 {
		p.line(0, "no global array is referenced in the compute section")
	}
	const refIndent = 5
	for _, a := range in.Arrays {
		p.line(0, "%-*s  %-*s  %s%s", nameW, a.Name, patW, a.Pattern, a.Access(), halo(a.Halo))
		for _, r := range a.Refs {
			p.line(refIndent, "%-*s  %-*s  %-*s  %s", refW, ast.ExprString(r.Node), roleW, in.Roles(r), patW, r.Pattern, r.Access())
			if r.Reason != "" {
				p.line(refIndent+2, "unsupported: %s", r.Reason)
			}
		}
	}
	if len(in.Loops) == 0 {
		p.line(0, "loops: none")
	} else {
		p.line(0, "loops:")
		for i, l := range in.Loops {
			tri := ""
			if l.Lower != nil {
				tri += "  lower bound " + in.role(*l.Lower)
			}
			if l.Upper != nil {
				tri += "  upper bound " + in.role(*l.Upper)
			}
			p.line(2+2*l.Depth, "[%d] for (%s = %s; %s < %s; %s += %s)  depth %d%s",
				i, l.Var, ast.ExprString(l.Lo), l.Var, ast.ExprString(l.Hi), l.Var, ast.ExprString(l.Step), l.Depth, tri)
		}
	}
	if g := in.Guard; g != nil {
		as := ""
		if c := ast.ExprString(g.Cond); c != ast.ExprString(g.If.Cond) {
			as = ", that is " + c
		}
		p.line(0, "guard: if (%s)%s", ast.ExprString(g.If.Cond), as)
	}
	for _, why := range in.Unsupported {
		p.line(0, "kernel unsupported: %s", why)
	}
}
