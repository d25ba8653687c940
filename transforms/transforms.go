// Package transforms implements the optimizer's five passes of the paper's
// section 3.1 (tiling, local-memory staging, coarsening, private-memory
// promotion and unrolling) as rewrites of a clone of a single-point kernel,
// driven by one setting of Params and the access-pattern table of package
// patterns.
package transforms

import (
	"errors"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/patterns"
)

// Problem is a single-point kernel specialized for one problem: its array
// arguments have Extents, Domain is the number of points per dimension of the
// single-point launch (x first), and Ints holds the values of its int scalar
// arguments (loop bounds such as limk).
type Problem struct {
	Kernel *ast.Kernel
	Info   *patterns.Info
	Domain []int
	Ints   map[string]int
	// Device limits used by Validate: 0 means unlimited.
	MaxWorkGroup int    // largest work-group (product of local sizes)
	MaxWorkItems [3]int // largest local size per dimension
	LocalMem     int64  // bytes of local memory per work-group
}

// Variant is an optimized kernel with its launch geometry.
type Variant struct {
	Kernel *ast.Kernel
	Global []int // work-items per dimension (x first)
	Local  []int // work-group size per dimension; nil lets the driver choose
	// LocalBytes is the local memory the variant declares.
	LocalBytes int64
}

// ErrIllegal wraps every reason a setting is rejected.
var ErrIllegal = errors.New("transforms: illegal setting")

// Apply runs the pass pipeline on a clone of prob.Kernel for setting p. A
// setting the passes cannot realize correctly is rejected with an error
// wrapping ErrIllegal that says why; it is never emitted.
func Apply(prob *Problem, p Params) (*Variant, error) {
	return nil, errors.New("transforms: not implemented yet")
}

// Validate reports whether p is a legal setting for prob, and why not.
func Validate(prob *Problem, p Params) error {
	_, err := Apply(prob, p)
	return err
}

// Baseline returns the setting that reproduces the single-point kernel's
// launch: one point per work-item, no tiling, no local memory.
func Baseline(prob *Problem) Params {
	var p Params
	for d := range prob.Domain {
		p.Global[d] = prob.Domain[d]
		p.Block[d] = 1
	}
	return p
}
