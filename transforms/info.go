package transforms

import (
	"fmt"

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
	info, err := patterns.Analyze(p.Kernel)
	if err != nil {
		return err
	}
	p.Info = info
	return nil
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
	info := s.prob.Info
	if info == nil {
		var err error
		if info, err = patterns.Analyze(s.prob.Kernel); err != nil {
			return err
		}
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
