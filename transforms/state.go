package transforms

import (
	"fmt"
	"sort"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/patterns"
)

// state is the variant under construction, shared by the passes of one
// Apply. It is made of parts that say who writes what: newState fixes the
// geometry and splits the compute section into the nest; tiling decides the
// tiles (in the nest's loops); staging and promotion add what they hold in
// local and private memory; assembly rebuilds comp from all of them; the
// passes after it rewrite comp.
type state struct {
	prob   *Problem
	p      Params
	k      *ast.Kernel     // the clone being rewritten
	comp   *ast.Compute    // k's compute section
	info   *patterns.Info  // the access-pattern table of prob.Kernel; nil in a pass that does not declare Patterns
	clones                 // the copies in k of the nodes info refers to
	names  map[string]bool // every name used in k, so that fresh makes new ones

	geometry // the work distribution, fixed by newState
	nest     // the compute section in parts, split by newState

	local   localMem   // what staging holds in local memory
	private privateMem // what coarsening and promotion hold per point in private memory
	split   splitPlan  // how splitting combines the parts' partial sums

	assembled bool // comp holds the compute section assembled from the parts
	// tileLoop is the innermost tile loop that holds the copies into local
	// memory, as assembled; nil when there is none (no copies, or no loop
	// split into tiles).
	tileLoop *ast.For
}

// localMem is what the staging pass holds in local memory.
type localMem struct {
	decls  []ast.Stmt // the local arrays
	copies []ast.Stmt // the copies of one tile into them, before the nest's element loops
	bytes  int64      // the local memory the arrays take
	arrays []string   // their names (Variant.Staged)
	// folded says that coff wrote some copy's rounds as the work-item's
	// element plus constants (a copy of two or more rounds whose offsets
	// are multiples of a stride).
	folded bool
}

// privateMem is what is held in private memory for each point of a block:
// the variables that carry values between the parts of the compute section
// (coarsening) and the promoted array elements (promotion).
type privateMem struct {
	decls    []ast.Stmt      // per-point arrays (or, with one point, scalars)
	perPoint map[string]bool // the per-point arrays, indexed by the point offsets
	loads    []ast.Stmt      // promoted elements read before pre, per point
	stores   []ast.Stmt      // and written back after post
	promoted []string        // the promoted arrays (Variant.Promoted)
}

// fresh returns a name not used in the kernel, based on base.
func (s *state) fresh(base string) string {
	name := base
	for i := 2; s.names[name]; i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	s.names[name] = true
	return name
}

// newState prepares the clone of prob.Kernel for setting p: it rejects
// settings the geometry or the kernel rule out, and splits the compute section
// into the nest.
func newState(prob *Problem, p Params) (*state, error) {
	if prob == nil || prob.Kernel == nil {
		return nil, fmt.Errorf("transforms: no kernel")
	}
	k := ast.Clone(prob.Kernel)
	s := &state{prob: prob, p: p, k: k, names: map[string]bool{}}
	s.dims = len(prob.Domain)
	s.private.perPoint = map[string]bool{}
	if s.dims < 1 || s.dims > 3 {
		return nil, fmt.Errorf("transforms: kernel %s: the domain has %d dimensions; want 1 to 3", k.Name, s.dims)
	}
	for _, q := range k.Params {
		if q.Rank > 0 && len(q.Extents) != q.Rank {
			return nil, fmt.Errorf("transforms: kernel %s: array %s has no extents; specialize the kernel first", k.Name, q.Name)
		}
		s.names[q.Name] = true
	}
	ast.Inspect(k.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Decl:
			s.names[n.Name] = true
		case *ast.For:
			s.names[n.Var] = true
		case *ast.Ident:
			s.names[n.Name] = true
		}
		return true
	})
	s.comp = k.Compute()
	if s.comp == nil {
		return nil, fmt.Errorf("transforms: kernel %s: %w", k.Name, patterns.ErrNoCompute)
	}
	if err := s.analyse(); err != nil {
		return nil, err
	}
	if err := s.checkGeometry(); err != nil {
		return nil, err
	}
	s.splitNest()
	s.hoist()
	if err := s.checkKernel(); err != nil {
		return nil, err
	}
	return s, nil
}

// checkKernel rejects settings that would change the meaning of code the
// passes cannot see through.
func (s *state) checkKernel() error {
	p := s.p
	base := true
	for d := 0; d < s.dims; d++ {
		if s.geom[d].sz*s.geom[d].bsz != s.geom[d].N || s.geom[d].bsz != 1 {
			base = false
		}
	}
	// Identifiers other than global ids and sizes inside compute, and
	// global ids outside it, tie the code to the single-point geometry.
	var inside []string
	ast.Inspect(s.comp, func(n ast.Node) bool {
		if sp, ok := n.(*ast.Special); ok && sp.Kind != ast.GlobalID && sp.Kind != ast.GlobalSize {
			inside = append(inside, sp.Name())
		}
		return true
	})
	var outside []string
	for _, st := range s.k.Body.List {
		if _, ok := st.(*ast.Compute); ok {
			continue
		}
		ast.Inspect(st, func(n ast.Node) bool {
			if sp, ok := n.(*ast.Special); ok && (sp.Kind == ast.GlobalID || sp.Kind == ast.GlobalSize) {
				outside = append(outside, sp.Name())
			}
			return true
		})
	}
	if !base && len(inside) > 0 {
		return illegal("the compute section uses %s, so only the single-point distribution (one point per work-item) is legal", inside[0])
	}
	if !base && len(outside) > 0 {
		return illegal("code outside the compute section uses %s, so only the single-point distribution is legal", outside[0])
	}
	if !base {
		if v := s.usedAfterCompute(); v != "" {
			return illegal("variable %s is assigned in the compute section and used after it, so only the single-point distribution is legal", v)
		}
	}
	if len(s.loops) == 0 {
		why := "the compute section has no loop"
		if len(s.info.Unsupported) > 0 {
			why = "the compute section cannot be analysed: " + s.info.Unsupported[0]
		}
		for i, t := range p.Tile {
			if t > 0 {
				return illegal("tw%d=%d: %s", i, t, why)
			}
		}
		if p.Unroll > 1 {
			return illegal("uf=%d: %s", p.Unroll, why)
		}
		if p.LocalMem && len(s.info.Unsupported) > 0 {
			return illegal("lmem=1: %s", why)
		}
		return nil
	}
	for i := len(s.loops); i < 3; i++ {
		if p.Tile[i] > 0 {
			return illegal("tw%d=%d: the main compute loop nest has %d loop(s)", i, p.Tile[i], len(s.loops))
		}
	}
	return nil
}

// usedAfterCompute returns a variable assigned in the compute section and
// read by the code after it, or "".
func (s *state) usedAfterCompute() string {
	assigned := map[string]bool{}
	ast.Inspect(s.comp, func(n ast.Node) bool {
		if a, ok := n.(*ast.Assign); ok {
			if id, ok := a.LHS.(*ast.Ident); ok {
				assigned[id.Name] = true
			}
		}
		return true
	})
	after := false
	found := ""
	for _, st := range s.k.Body.List {
		if st == ast.Stmt(s.comp) {
			after = true
			continue
		}
		if !after {
			continue
		}
		ast.Inspect(st, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && assigned[id.Name] && found == "" {
				found = id.Name
			}
			return true
		})
	}
	return found
}

// variant is the result of the pipeline.
func (s *state) variant() *Variant {
	v := &Variant{Kernel: s.k, LocalBytes: s.local.bytes + s.split.bytes, Staged: s.local.arrays, Promoted: s.private.promoted}
	for d := 0; d < s.dims; d++ {
		v.Global = append(v.Global, s.geom[d].sz)
		v.Local = append(v.Local, s.geom[d].lsz)
	}
	if s.nparts > 1 {
		v.Global = append(v.Global, s.nparts)
		v.Local = append(v.Local, s.nparts)
	}
	s.k.WorkGroup = append([]int(nil), v.Local...)
	if s.p.FTZ {
		s.k.Options = DenormsAreZero
	}
	sort.Strings(v.Staged)
	sort.Strings(v.Promoted)
	return v
}
