// Package patterns classifies every reference to a global-memory array in a
// kernel's compute section into the paper's seven access patterns (NoPat,
// SinglePat, InnerPat, RowPat, ColPat, DepthPat, RadiusPat), and records what
// the transform passes need: which global id or loop counter indexes each
// dimension and with what offset, whether each array is read or written, the
// compute loops, and the bounds guard around the work. The passes read only
// this result.
//
// Subscripts are followed through what users write around them: private
// ints assigned once from ids, loop counters and int arguments (int j =
// idx + k + 1) stand for their values, int arguments are constants when
// their values are given (Settings.Ints, as a specialized problem has
// them), and a stencil's reads at constant offsets around the same ids
// (in[idy-1][idx], in[idy+1][idx]) are a neighbourhood (RadiusPat, with its
// Halo), as a convolution's input is.
package patterns

import (
	"fmt"

	"github.com/hplopt/hplopt/ast"
)

// Pattern is an access pattern, ordered from the simplest to the most
// complex: an array takes the largest pattern among its references.
type Pattern int

// The paper's seven patterns, plus Unsupported for references the analysis
// cannot classify.
const (
	NoPat Pattern = iota
	SinglePat
	InnerPat
	RowPat
	ColPat
	DepthPat
	RadiusPat
	Unsupported
)

func (p Pattern) String() string {
	return [...]string{"NoPat", "SinglePat", "InnerPat", "RowPat", "ColPat", "DepthPat", "RadiusPat", "Unsupported"}[p]
}

// IndexKind says what one subscript of a reference is made of.
type IndexKind int

// Subscript kinds. Every classified subscript is affine with unit
// coefficients: a constant, a global id plus a constant, a loop counter plus
// a constant, or a global id plus a loop counter plus a constant.
const (
	Const     IndexKind = iota // c
	ID                         // id_d + c
	Counter                    // k_l + c
	IDCounter                  // id_d + k_l + c (RadiusPat)
	Other                      // anything else: makes the reference unsupported
)

func (k IndexKind) String() string {
	return [...]string{"const", "id", "counter", "id+counter", "other"}[k]
}

// Subscript describes one subscript of a reference.
type Subscript struct {
	Kind   IndexKind
	Dim    int      // the global id's dimension (0 for idx), for ID and IDCounter
	Loop   int      // index into Info.Loops of the counter, for Counter and IDCounter
	Offset int64    // the constant term
	Expr   ast.Expr // the subscript as written
	// Scalars holds the coefficient of each int argument in the subscript
	// (k in a[i][k], t in fict[t]); their values, given in Settings.Ints,
	// are folded into Offset. Nil when the subscript uses none.
	Scalars map[string]int64
}

// Ref is one reference to a global array in the compute section.
type Ref struct {
	Array   string
	Node    *ast.Index // the reference itself, in the analysed tree
	Subs    []Subscript
	Pattern Pattern
	Read    bool   // the value is read (right side, or the left side of a compound assignment)
	Write   bool   // the element is assigned
	Reason  string // why the reference is Unsupported
	Loops   []int  // the loops (Info.Loops indices) enclosing the reference, outermost first
}

// Array is what the analysis found for one global array.
type Array struct {
	Name    string
	Pattern Pattern // the most complex pattern among Refs
	Read    bool
	Written bool
	Refs    []*Ref
	Reason  string // why the array is Unsupported, if it is
	// Halo is set for a neighbourhood read: references of one shape,
	// without loop counters, at several constant offsets from the same
	// global ids (a stencil's in[idy-1][idx], in[idy][idx+1], ...). It
	// holds, per dimension of the array, the smallest and largest offset
	// of those references along a global id (0, 0 along a constant
	// subscript). The references are RadiusPat: a tile of the work-group's
	// points staged with this halo serves them all. Nil otherwise.
	Halo []Span
}

// Span is a range of constant offsets, Min to Max inclusive.
type Span struct{ Min, Max int64 }

// Loop is a loop of the compute section.
type Loop struct {
	Var          string
	Lo, Hi, Step ast.Expr
	For          *ast.For // the loop itself, in the analysed tree
	Parent       int      // index of the enclosing loop in Info.Loops, -1 at top
	Depth        int      // 0 for a loop not inside another loop
	// Lower and Upper are set for a triangular loop (accepted with
	// Settings.Triangular): the bound Lo, respectively Hi, when it depends
	// on a global id or an enclosing loop's counter, classified as a
	// subscript is (ID for idx+c, Counter for j1+c, IDCounter for both).
	// Nil for a bound fixed for the whole launch.
	Lower, Upper *Subscript
}

// Triangular reports whether a bound of the loop depends on the work-item
// or on an enclosing loop's counter.
func (l *Loop) Triangular() bool { return l.Lower != nil || l.Upper != nil }

// Guard is a bounds guard around the work of the compute section, as most
// hand-written kernels have one: if (idx < n) { ... }. It is the compute
// section's last statement, an if without else whose condition depends only
// on global ids and sizes, scalar arguments and private ints computed from
// them; the statements before it only set private scalars from such values
// (int j = idx + k + 1). The analysis sees through it: references and loops
// inside are classified as if it were not there, and a pass that distributes
// the points differently keeps the condition around each point's work.
type Guard struct {
	If    *ast.If // the guard, in the analysed tree
	Index int     // its position in the compute section's statement list
	// Cond is If.Cond with every private int replaced by its value, so
	// that it can be evaluated where those ints are not yet set: j < m
	// becomes idx + k + 1 < m.
	Cond ast.Expr
}

// Info is the result of Analyze.
type Info struct {
	Kernel string
	Arrays []*Array // sorted by name
	Loops  []*Loop  // in source order (pre-order)
	// Guard is the bounds guard around the compute section's work, or nil.
	Guard *Guard
	// Ints holds the values of the int arguments that classified
	// subscripts and loop bounds use (from Settings.Ints); nil for none.
	Ints map[string]int
	// Unsupported lists kernel-level reasons the compute section cannot be
	// transformed (for example, a data-dependent loop bound).
	Unsupported []string
}

// Array returns the information about the array called name, or nil.
func (in *Info) Array(name string) *Array {
	for _, a := range in.Arrays {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// ErrNoCompute is returned for a kernel without a compute section.
var ErrNoCompute = fmt.Errorf("patterns: the kernel has no compute section")
