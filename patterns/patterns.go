// Package patterns classifies every reference to a global-memory array in a
// kernel's compute section into the paper's seven access patterns (NoPat,
// SinglePat, InnerPat, RowPat, ColPat, DepthPat, RadiusPat), and records what
// the transform passes need: which global id or loop counter indexes each
// dimension and with what offset, whether each array is read or written, and
// the compute loop nest. The passes read only this result.
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
}

// Loop is a loop of the compute section.
type Loop struct {
	Var          string
	Lo, Hi, Step ast.Expr
	For          *ast.For // the loop itself, in the analysed tree
	Parent       int      // index of the enclosing loop in Info.Loops, -1 at top
	Depth        int      // 0 for a loop not inside another loop
}

// Info is the result of Analyze.
type Info struct {
	Kernel string
	Arrays []*Array // sorted by name
	Loops  []*Loop  // in source order (pre-order)
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
