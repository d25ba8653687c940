package transforms

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hplopt/hplopt/ast"
)

var packing = &Pass{
	Name:     "packing",
	Requires: []*Pass{staging, unrolling},
	Doc: `With pack, reads the local-memory elements that each iteration of an
innermost element loop uses into private registers at the start of the
iteration: aligned runs of 4 (else 2) neighbouring elements as one float4
(float2) load, whose lanes replace the reads (l_b[k][x], l_b[k][x+1] become
v.s0, v.s1 of v = *(__local float2 *)&l_b[k][x]), and every other element
that several reads share once (the overlapping input windows of neighbouring
points of a convolution, with the loop unrolled). A run is aligned when its
first element's offset is provably a multiple of its length (the staging
pass then pads rows by 4 and declares the arrays aligned), a loop counter
being as aligned as its loop's start and step make it (a filter loop
unrolled by 16 from a tile's base: its counter less the base is a multiple
of 16, so that a convolution's window of inputs is read in float4 runs). The setting is
illegal when there is nothing to pack.`,
	Run: func(s *state) error {
		if !s.p.Pack {
			return nil
		}
		if !s.p.LocalMem {
			return illegal("pack=1 needs lmem=1")
		}
		local := map[string]*ast.Decl{}
		for _, st := range s.local.decls {
			d := st.(*ast.Decl)
			local[d.Name] = d
		}
		types := kernelTypes(s.k)
		known := counterAlignments(s.comp.Body)
		packed := 0
		ast.Inspect(s.comp.Body, func(n ast.Node) bool {
			f, ok := n.(*ast.For)
			if !ok || f.Role != ast.ElementLoop || hasElementLoop(f.Body) {
				return true
			}
			packed += s.pack(f.Body, local, types, known)
			return false
		})
		if packed == 0 {
			return illegal("pack=1: the loop body reads no local element twice nor neighbouring ones in aligned runs of 2 or 4")
		}
		return nil
	},
}

// hasElementLoop reports whether b holds an element loop.
func hasElementLoop(b *ast.Block) bool {
	found := false
	ast.Inspect(b, func(n ast.Node) bool {
		if f, ok := n.(*ast.For); ok && f.Role == ast.ElementLoop {
			found = true
		}
		return !found
	})
	return found
}

// localRead is a read of a local array element in a loop body.
type localRead struct {
	ix   *ast.Index
	last affine // its last subscript
}

// pack packs the local reads of one loop body in aligned runs and returns
// the number of vector loads made.
func (s *state) pack(body *ast.Block, local map[string]*ast.Decl, types map[string]ast.Type, known map[string]int64) int {
	// Group the reads by array, leading subscripts and the variable part of
	// the last one.
	groups := map[string][]localRead{}
	var keys []string
	// bound holds the counters of the loops inside the body (the loops
	// over the points of a block, when they are not unrolled): a read that
	// depends on one cannot move to the top of the iteration.
	bound := map[string]bool{}
	var visit func(n ast.Node, lhs bool)
	visit = func(n ast.Node, lhs bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.Load:
				return false // already a vector
			case *ast.While:
				return false
			case *ast.For:
				bound[m.Var] = true
				visit(m.Body, false)
				delete(bound, m.Var)
				return false
			case *ast.Assign:
				if ix, ok := m.LHS.(*ast.Index); ok {
					for _, i := range ix.Indices {
						visit(i, false)
					}
				} else if _, ok := m.LHS.(*ast.Ident); !ok {
					visit(m.LHS, true)
				}
				visit(m.RHS, false)
				return false
			case *ast.Index:
				if d := local[m.Array]; d != nil && !lhs && len(m.Indices) == len(d.Extents) && !usesAny(m, bound) {
					last := affineOf(m.Indices[len(m.Indices)-1])
					key := m.Array
					for _, i := range m.Indices[:len(m.Indices)-1] {
						key += "[" + ast.ExprString(i) + "]"
					}
					key += "[" + termsKey(last) + "]"
					if groups[key] == nil {
						keys = append(keys, key)
					}
					groups[key] = append(groups[key], localRead{m, last})
				}
				return false
			}
			return true
		})
	}
	visit(body, false)
	// keys are in the order of the reads in the body: registers are named in it.
	var loads []ast.Stmt
	repl := map[*ast.Index]ast.Expr{}
	for _, key := range keys {
		reads := groups[key]
		d := local[reads[0].ix.Array]
		have := map[int64]*ast.Index{}
		uses := map[int64]int{}
		var consts []int64
		for _, r := range reads {
			if have[r.last.c] == nil {
				consts = append(consts, r.last.c)
			}
			have[r.last.c] = r.ix
			uses[r.last.c]++
		}
		sort.Slice(consts, func(i, j int) bool { return consts[i] < consts[j] })
		taken := map[int64]bool{}
		for _, c := range consts {
			if taken[c] {
				continue
			}
			for _, w := range []int{4, 2} {
				if !s.runAt(have, c, w, known) {
					continue
				}
				name := s.fresh(fmt.Sprintf("v_%s", d.Name))
				load := &ast.Load{Width: w, Ref: ast.CloneExpr(have[c]).(*ast.Index), Aligned: true}
				loads = append(loads, &ast.Decl{Name: name, Type: types[d.Name], Mem: ast.Private, Width: w, Init: load})
				for l := 0; l < w; l++ {
					taken[c+int64(l)] = true
					for _, r := range reads {
						if r.last.c == c+int64(l) {
							repl[r.ix] = &ast.Lane{X: ast.Id(name), Lane: l}
						}
					}
				}
				break
			}
			if !taken[c] && uses[c] > 1 {
				// An element that neighbouring points share (a
				// convolution's overlapping windows): read once.
				name := s.fresh(fmt.Sprintf("r_%s", d.Name))
				loads = append(loads, &ast.Decl{Name: name, Type: types[d.Name], Mem: ast.Private, Init: ast.CloneExpr(have[c])})
				taken[c] = true
				for _, r := range reads {
					if r.last.c == c {
						repl[r.ix] = ast.Id(name)
					}
				}
			}
		}
	}
	if len(loads) == 0 {
		return 0
	}
	// Each register is read right before the first statement of the body
	// that uses it (with the loop unrolled, the copy of the body of the
	// iteration that uses it), not all at the top, so that registers live
	// no longer than needed.
	first := map[string]int{}
	for i, st := range body.List {
		ast.Inspect(st, func(n ast.Node) bool {
			if ix, ok := n.(*ast.Index); ok && repl[ix] != nil {
				name := ""
				switch r := repl[ix].(type) {
				case *ast.Ident:
					name = r.Name
				case *ast.Lane:
					name = r.X.(*ast.Ident).Name
				}
				if _, seen := first[name]; !seen {
					first[name] = i
				}
			}
			return true
		})
	}
	rewritten := ast.Apply(body, func(c *ast.Cursor) bool {
		if _, ok := c.Node().(*ast.Load); ok {
			return false
		}
		if ix, ok := c.Node().(*ast.Index); ok {
			if r := repl[ix]; r != nil {
				c.Replace(r)
				return false
			}
		}
		return true
	}, nil).(*ast.Block)
	var list []ast.Stmt
	for i, st := range rewritten.List {
		for _, l := range loads {
			if first[l.(*ast.Decl).Name] == i {
				list = append(list, l)
			}
		}
		list = append(list, st)
	}
	rewritten.List = list
	*body = *rewritten
	return len(loads)
}

// usesAny reports whether e uses one of the variables in vars.
func usesAny(e ast.Expr, vars map[string]bool) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && vars[id.Name] {
			found = true
		}
		return !found
	})
	return found
}

// runAt reports whether the w elements from the read have[c] are all read
// and start at an aligned offset of their local array (whose rows are
// w-aligned when the staging pass padded them for pack), given the known
// alignment of loop counters (alignedRun, which declares the array
// aligned).
func (s *state) runAt(have map[int64]*ast.Index, c int64, w int, known map[string]int64) bool {
	for l := 0; l < w; l++ {
		if have[c+int64(l)] == nil {
			return false
		}
	}
	return alignedRun(s, have[c], w, known)
}

// counterAlignments returns the alignment (the largest power of two up to
// 64 that divides every value) of the counters of the loops in b that no
// statement assigns or declares with a value otherwise: that of the loop's start, given the
// counters of the loops around it, and of its step. A loop over a tile of
// 16 iterations unrolled by 8 (for (j = j_t; j < j_t + 16; j += 8), j_t a
// multiple of 16) has j a multiple of 8, so that j - j_t + 4 starts an
// aligned run of 4 (a convolution's window of neighbouring inputs read as
// float4). A counter of several loops takes the least of their alignments.
func counterAlignments(b *ast.Block) map[string]int64 {
	assigned := map[string]bool{}
	ast.Inspect(b, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Assign:
			if id, ok := n.LHS.(*ast.Ident); ok {
				assigned[id.Name] = true
			}
		case *ast.Decl:
			if n.Init != nil {
				assigned[n.Name] = true // a variable of that name set otherwise
			}
		}
		return true
	})
	known := map[string]int64{}
	ast.Inspect(b, func(n ast.Node) bool {
		f, ok := n.(*ast.For)
		if !ok || assigned[f.Var] {
			return true
		}
		step := affineOf(f.Step)
		if len(step.terms) != 0 {
			known[f.Var] = 1
			return true
		}
		a := min(affineOf(f.Lo).alignment(known), step.alignment(nil))
		if k, seen := known[f.Var]; seen {
			a = min(a, k)
		}
		known[f.Var] = a
		return true
	})
	return known
}

// termsKey prints the variable part of an affine form.
func termsKey(a affine) string {
	var ts []string
	for t, v := range a.terms {
		ts = append(ts, fmt.Sprintf("%d*(%s)", v, t))
	}
	sort.Strings(ts)
	return strings.Join(ts, "+")
}
