package transforms

import (
	"fmt"
	"sort"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/patterns"
)

// Analyze sets Info to the access-pattern table of Kernel, so that Apply and
// Validate read it instead of analysing the kernel again for every setting:
// call it once for a problem whose settings are to be searched, and again
// after changing Kernel. Apply and Validate never modify Info, so a problem
// analysed once may be given to them from several goroutines.
func (p *Problem) Analyze() error {
	if p == nil || p.Kernel == nil {
		return fmt.Errorf("transforms: no kernel")
	}
	info, err := p.settings().Analyze(p.Kernel)
	if err != nil {
		return err
	}
	p.Info = info
	return nil
}

// info returns p.Info, or the pattern table computed now when Analyze has
// not set it.
func (p *Problem) info() (*patterns.Info, error) {
	if p.Info != nil {
		return p.Info, nil
	}
	return p.settings().Analyze(p.Kernel)
}

// settings is what the passes let the analysis take as known: the int
// arguments' values (a subscript a[i][k] with k an argument is the
// constant it has in this problem) and loops bounded by a global id or an
// enclosing counter (tiling clips them per point).
func (p *Problem) settings() patterns.Settings {
	return patterns.Settings{Ints: p.Ints, Triangular: true}
}

// clones maps the nodes of prob.Kernel's compute section that the pattern
// table refers to (references and loops) to their copies in the clone the
// passes rewrite.
type clones struct {
	index map[*ast.Index]*ast.Index
	loop  map[*ast.For]*ast.For
}

// analyse sets s.info to prob's pattern table, computed now if prob.Info
// is nil, and s.clones to the correspondence of the nodes it refers to. The
// clone and prob.Kernel have the same shape, so their nodes meet in the
// same order in a traversal.
func (s *state) analyse() error {
	orig := s.prob.Kernel.Compute()
	info, err := s.prob.info()
	if err != nil {
		return err
	}
	var a, b []ast.Node
	ast.Inspect(orig, func(n ast.Node) bool {
		a = append(a, n)
		return true
	})
	ast.Inspect(s.comp, func(n ast.Node) bool {
		b = append(b, n)
		return true
	})
	if len(a) != len(b) {
		panic(fmt.Sprintf("the clone has %d nodes in its compute section, the kernel %d", len(b), len(a)))
	}
	s.clones = clones{index: map[*ast.Index]*ast.Index{}, loop: map[*ast.For]*ast.For{}}
	for i, n := range a {
		switch n := n.(type) {
		case *ast.Index:
			s.clones.index[n] = b[i].(*ast.Index)
		case *ast.For:
			s.clones.loop[n] = b[i].(*ast.For)
		}
	}
	stale := info.Kernel != s.k.Name
	for _, arr := range info.Arrays {
		for _, r := range arr.Refs {
			stale = stale || s.clones.index[r.Node] == nil
		}
	}
	for _, l := range info.Loops {
		stale = stale || s.clones.loop[l.For] == nil
	}
	if stale {
		return fmt.Errorf("transforms: kernel %s: Problem.Info is not the pattern table of Problem.Kernel (call Problem.Analyze again after changing the kernel)", s.k.Name)
	}
	s.info = info
	return nil
}

// loopOf returns the index in the pattern table of the loop whose copy is f,
// or -1.
func (s *state) loopOf(f *ast.For) int {
	for i, l := range s.info.Loops {
		if s.clones.loop[l.For] == f {
			return i
		}
	}
	return -1
}

// BoundInts returns the names of the int arguments (keys of prob.Ints)
// whose values the passes write into the variants' code, sorted: those in
// the bounds of the main compute loop nest and of its outer loop (tiling
// makes them constants,
// and the loop lengths a search space is built from read them) and in the
// subscripts of the arrays that local-memory staging or private-memory
// promotion may rewrite (their offsets become constants, as q[i][k] with k
// = 6 becomes l_q[i - i_t][0] after a copy from q[...][6]). Every other int
// argument reaches a variant as the kernel's argument, unchanged, like the
// float ones: two problems that differ only in the values of those (a time
// step t in fict[t], a bound n in a guard) have the same variants, so that
// a record of tunings keys a problem on the values of BoundInts only. The
// list depends on the kernel, not on the values of prob.Ints (given that
// they keep the analysis the same). With no nest and nothing to stage or
// promote, it is empty.
func BoundInts(prob *Problem) ([]string, error) {
	s, err := newState(prob, Baseline(prob))
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	isInt := func(name string) bool {
		q := s.k.Param(name)
		return q != nil && q.Rank == 0 && q.Type == ast.Int
	}
	addSub := func(sub *patterns.Subscript) {
		if sub != nil {
			for name := range sub.Scalars {
				names[name] = true
			}
		}
	}
	loops := s.loops
	if s.outer != nil {
		loops = append([]*nestLoop{s.outer}, loops...)
	}
	for _, l := range loops {
		for _, e := range []ast.Expr{l.Lo, l.Hi} {
			ast.Inspect(e, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && isInt(id.Name) {
					names[id.Name] = true
				}
				return true
			})
		}
		addSub(l.lower)
		addSub(l.upper)
	}
	for _, arr := range s.info.Arrays {
		staged := !arr.Written && arr.Pattern > patterns.SinglePat && arr.Pattern < patterns.Unsupported
		promoted := arr.Written && arr.Read && arr.Pattern == patterns.SinglePat
		if !staged && !promoted {
			continue
		}
		for _, r := range arr.Refs {
			for i := range r.Subs {
				addSub(&r.Subs[i])
			}
		}
	}
	out := make([]string, 0, len(names))
	for name := range names {
		out = append(out, name)
	}
	sort.Strings(out)
	return out, nil
}
