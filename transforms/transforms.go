// Package transforms implements the optimizer's five passes of the paper's
// section 3.1 (tiling, coarsening, local-memory staging, private-memory
// promotion and unrolling) as rewrites of a clone of a single-point kernel,
// driven by one setting of Params and the access-pattern table of package
// patterns.
//
// The shape every variant takes is the one of the paper's Figures 4 to 9:
// the compute section is split into the statements before the main compute
// loop nest (pre), the nest, and the statements after it (post). What users
// write around that shape is taken apart first: a bounds guard around the
// work (its condition tested again per point), a loop that holds other
// statements around the nest (run sequentially around it, over the
// work-group's range), triangular bounds (tiles over the work-group's
// range, element loops clipped per work-item); a compute section without a
// loop still gets its stencil reads staged with their halo. Work-items
// own blocks of points, visited block-cyclically; tile loops of the nest are
// hoisted outside the points of a block, so that a work-group stages each
// tile of an array in local memory once for all of its points, and values
// that live across the nest for one point (accumulators, promoted elements)
// are held in private memory, one scalar per point when the block loops are
// fully unrolled.
//
// Beyond the paper, passes that bring the code nearer a device's limits
// (issue 17): accumulation splits an accumulation of a sum of products
// into a private accumulator (c += x*y + z*w) into one accumulation per
// term, takes a common invariant factor out of such accumulations
// (c += alpha*x*y: the sum without alpha, times alpha after the loop), and
// puts a sum's terms that are not products before its products, so that
// each product is one fused multiply-add (it reassociates arithmetic: such
// variants differ from the single-point kernel by rounding); split runs
// the outermost compute loop in contiguous parts on several work-items of
// a work-group (a launch dimension after the kernel's), for domains of too
// few points to fill a device, each part staging its own tiles and
// accumulating its own partial sums, which part 0 adds up through local
// memory in a fixed order before it alone writes the outputs (legal only
// where the nest accumulates linearly into private accumulators);
// pipelining overlaps the copy of the next tile with the computation
// (prefetch), vectorization computes runs of points along x as OpenCL
// vectors (vec), packing reads local elements in float2/float4 runs and
// shared elements once (pack); fission separates the tile loop's
// statements by the groups of local arrays they use together, the terms of
// an accumulation over different tiles, into a loop each or into steps in
// turn (fission); staging can store tiles transposed
// (ltrans), and the geometry can place a warp's work-items in a 2D
// sub-block (warp) and launch work-groups in bands (gswz).
//
// Apply runs the passes of Pipeline, each a Pass value declared in a file of
// its own, over a shared state whose parts say which pass writes
// what. A tuner that applies many settings to one problem calls
// Problem.Analyze once, so that the pattern table is computed once.
package transforms

import (
	"errors"
	"fmt"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/patterns"
)

// Problem is a single-point kernel specialized for one problem: its array
// arguments have Extents, Domain is the number of points per dimension of the
// single-point launch (x first), and Ints holds the values of its int scalar
// arguments (loop bounds such as limk).
//
// A tuner applies thousands of settings to one problem: it calls Analyze
// once, so that the access-pattern table is computed once, not per setting.
type Problem struct {
	Kernel *ast.Kernel
	Domain []int
	Ints   map[string]int

	// Info is the access-pattern table of Kernel, set by Analyze. When it
	// is nil, Apply, Validate and LoopLengths analyse Kernel on every call.
	Info *patterns.Info

	// Device limits used by Apply and Validate; 0 means unlimited.
	MaxWorkGroup int    // largest work-group (product of local sizes)
	MaxWorkItems [3]int // largest local size per dimension
	LocalMem     int64  // bytes of local memory per work-group
}

// Variant is an optimized kernel with its launch geometry.
type Variant struct {
	Kernel *ast.Kernel
	Global []int // work-items per dimension (x first)
	Local  []int // work-group size per dimension
	// LocalBytes is the local memory the variant declares.
	LocalBytes int64
	// Staged lists the arrays (and reference shapes) held in local memory,
	// Promoted the arrays whose elements are held in private memory.
	Staged, Promoted []string
}

// ErrIllegal is wrapped by every reason a setting is rejected.
var ErrIllegal = errors.New("illegal setting")

func illegal(format string, args ...any) error {
	return fmt.Errorf("transforms: %w: %s", ErrIllegal, fmt.Sprintf(format, args...))
}

// Apply runs the pass pipeline on a clone of prob.Kernel for setting p. A
// setting the passes cannot realize correctly is rejected with an error
// wrapping ErrIllegal that says why; it is never emitted. prob.Kernel is
// never modified. A panic in a pass (a bug) is returned as an error naming
// the kernel, the setting and the pass.
func Apply(prob *Problem, p Params) (v *Variant, err error) {
	r := &run{passes: Pipeline}
	defer func() {
		if x := recover(); x != nil {
			name := "?"
			if prob != nil && prob.Kernel != nil {
				name = prob.Kernel.Name
			}
			in := "preparing the kernel"
			if r.pass != nil {
				in = "pass " + r.pass.Name
			}
			v, err = nil, fmt.Errorf("transforms: internal error on kernel %s with %s, in %s: %v", name, p, in, x)
		}
	}()
	return r.apply(prob, p)
}

// run is one run of a pipeline. It does not recover from panics: Apply
// does, and tests see where a pass failed.
type run struct {
	passes []*Pass
	after  func(*Pass, *state) error // if not nil, called after every pass (the tests' checks)
	pass   *Pass                     // the pass running
}

func (r *run) apply(prob *Problem, p Params) (*Variant, error) {
	s, err := newState(prob, p)
	if err != nil {
		return nil, err
	}
	info := s.info
	for _, pass := range r.passes {
		r.pass = pass
		// A pass sees the pattern table only if it says it reads it, so
		// that an undeclared read fails in the tests.
		s.info = nil
		if pass.Patterns {
			s.info = info
		}
		if err := pass.Run(s); err != nil {
			return nil, err
		}
		if r.after != nil {
			if err := r.after(pass, s); err != nil {
				return nil, err
			}
		}
	}
	r.pass = nil
	return s.variant(), nil
}

// Validate reports whether p is a legal setting for prob, and why not.
func Validate(prob *Problem, p Params) error {
	_, err := Apply(prob, p)
	return err
}

// Baseline returns the setting that reproduces the single-point kernel's
// launch: one point per work-item, no tiling, no local memory, work-groups
// of the largest power of two up to 64 items that divides the domain along
// x (1 along other dimensions).
func Baseline(prob *Problem) Params {
	var p Params
	for d := range prob.Domain {
		p.Global[d] = prob.Domain[d]
		p.Block[d] = 1
		p.Local[d] = 1
	}
	for l := 64; l > 1; l /= 2 {
		if prob.Domain[0]%l == 0 {
			p.Local[0] = l
			break
		}
	}
	return p
}

// String prints a setting as name=value pairs.
func (p Params) String() string { return Format(p.Map(3, 3)) }
