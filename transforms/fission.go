package transforms

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hplopt/hplopt/ast"
)

var fission = &Pass{
	Name:     "fission",
	Requires: []*Pass{assembly},
	Doc: `With fission=1, splits the tile loop into one loop per group of local
arrays that its statements use together: an accumulation of a sum of
products over tiles of different arrays (c += a[y][k]*b[x][k] +
b[y][k]*a[x][k], split into one accumulation per term) becomes two tile
loops, each staging only its term's tiles, with its own copy of the first
tile before it. Each loop then holds half the local tiles, half the
prefetched registers and half the operands of a step, as a product of
twice the length would. With fission=2, the tile loop stays one, and each
of its steps runs the groups' steps in turn, each with its own copies,
prefetch, computation and barriers: half the registers of the next tile
are live at a time, in one loop. Runs after packing, on the assembled code: a statement's
group is that of the local arrays it reads or writes, directly or through
private variables (registers of the next tile, vector operands); integer
statements that touch no group (counters, offsets, barriers) are repeated
in every loop; accumulators (+=, -= into private variables declared
before the loop) take the sum of every loop (it reassociates arithmetic).
Illegal without lmem or a tile loop, when one group holds every local
array, when an accumulator is read in the loop, and when the loop writes
global memory or an integer declared before it.`,
	Run: func(s *state) error {
		mode := s.p.Fission
		if mode == 0 {
			return nil
		}
		switch {
		case mode > 2:
			return illegal("fission=%d: want 0, 1 or 2", mode)
		case !s.p.LocalMem:
			return illegal("fission needs lmem=1")
		case s.tileLoop == nil:
			return illegal("fission: no compute loop is split into tiles staged in local memory")
		}
		parent, at := findStmt(s.comp.Body, s.tileLoop)
		if parent == nil {
			return fmt.Errorf("transforms: fission: the tile loop is not in the compute section")
		}
		g, err := s.fissionGroups(s.tileLoop)
		if err != nil {
			return err
		}
		if len(g.roots) < 2 {
			return illegal("fission: the tile loop uses its local arrays %s together, in one group: nothing to split", strings.Join(s.local.arrays, ", "))
		}
		if mode == 2 {
			// One loop: each group's step in a block of its own (its
			// declarations, prefetch=2's half counter among them, scoped).
			var body []ast.Stmt
			for _, r := range g.roots {
				b, _ := g.filter(s.tileLoop.Body.List, r)
				body = append(body, ast.NewBlock(b...))
			}
			s.tileLoop.Body = ast.NewBlock(body...)
			s.tileLoop = nil
			return nil
		}
		// The copies of the first tile before the loop (pipelining's
		// prologue), with their barriers.
		first := at
		for first > 0 {
			st := parent.List[first-1]
			if _, ok := st.(*ast.Barrier); !ok && len(g.stmtRoots(st)) == 0 {
				break
			}
			first--
		}
		list := slices.Clone(parent.List[:first])
		for _, r := range g.roots {
			pro, _ := g.filter(parent.List[first:at], r)
			list = append(list, pro...)
			body, _ := g.filter(s.tileLoop.Body.List, r)
			t := *s.tileLoop
			t.Lo, t.Hi, t.Step = ast.CloneExpr(t.Lo), ast.CloneExpr(t.Hi), ast.CloneExpr(t.Step)
			t.Body = ast.NewBlock(body...)
			list = append(list, &t)
		}
		parent.List = append(list, parent.List[at+1:]...)
		s.tileLoop = nil
		return nil
	},
}

// findStmt returns the block that holds target directly, and its index
// there; nil when b does not hold it.
func findStmt(b *ast.Block, target ast.Stmt) (*ast.Block, int) {
	for i, st := range b.List {
		if st == target {
			return b, i
		}
		var subs []*ast.Block
		switch st := st.(type) {
		case *ast.Block:
			subs = []*ast.Block{st}
		case *ast.If:
			subs = []*ast.Block{st.Then, st.Else}
		case *ast.For:
			subs = []*ast.Block{st.Body}
		case *ast.While:
			subs = []*ast.Block{st.Body}
		}
		for _, sb := range subs {
			if sb == nil {
				continue
			}
			if p, j := findStmt(sb, target); p != nil {
				return p, j
			}
		}
	}
	return nil, -1
}

// fissionGroups partitions the data of a tile loop: the local arrays and
// the private variables its statements move their elements through.
type fissionGroups struct {
	parent map[string]string // union-find over the data names
	accs   map[string]bool   // accumulators: declared before the loop, only += or -= in it
	roots  []string          // one per group holding a local array, in the order of s.local.arrays
}

func (g *fissionGroups) find(n string) string {
	for g.parent[n] != n {
		g.parent[n] = g.parent[g.parent[n]]
		n = g.parent[n]
	}
	return n
}

// leaves returns the statements of list that are not blocks, ifs or
// loops, in order, descending into those.
func leaves(list []ast.Stmt) []ast.Stmt {
	var out []ast.Stmt
	for _, st := range list {
		switch st := st.(type) {
		case *ast.Block:
			out = append(out, leaves(st.List)...)
		case *ast.If:
			out = append(out, leaves(st.Then.List)...)
			if st.Else != nil {
				out = append(out, leaves(st.Else.List)...)
			}
		case *ast.For:
			out = append(out, leaves(st.Body.List)...)
		case *ast.While:
			out = append(out, leaves(st.Body.List)...)
		default:
			out = append(out, st)
		}
	}
	return out
}

// written returns the variable or array a leaf statement writes ("" for
// none) and the assignment's operator.
func written(st ast.Stmt) (string, ast.AssignOp) {
	switch st := st.(type) {
	case *ast.Decl:
		return st.Name, ast.Set
	case *ast.Assign:
		return writtenName(st.LHS), st.Op
	}
	return "", ast.Set
}

// dataNames returns the identifiers and arrays a leaf statement reads, with
// the one it writes unless skipWritten.
func dataNames(st ast.Stmt, skipWritten bool) []string {
	var out []string
	add := func(n ast.Node) {
		if n == nil {
			return
		}
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				out = append(out, n.Name)
			case *ast.Index:
				out = append(out, n.Array)
			}
			return true
		})
	}
	switch st := st.(type) {
	case *ast.Decl:
		if !skipWritten {
			out = append(out, st.Name)
		}
		if st.Init != nil {
			add(st.Init)
		}
	case *ast.Assign:
		add(st.RHS)
		switch l := st.LHS.(type) {
		case *ast.Index:
			if !skipWritten {
				out = append(out, l.Array)
			}
			for _, x := range l.Indices {
				add(x)
			}
		case *ast.Load:
			if !skipWritten {
				out = append(out, l.Ref.Array)
			}
			for _, x := range l.Ref.Indices {
				add(x)
			}
		default:
			if !skipWritten {
				add(l)
			}
		}
	}
	return out
}

// fissionGroups finds the groups of the tile loop t's data, or says why the
// loop cannot be split.
func (s *state) fissionGroups(t *ast.For) (*fissionGroups, error) {
	types := kernelTypes(s.k)
	params := map[string]bool{}
	for _, p := range s.k.Params {
		params[p.Name] = true
	}
	inside := map[string]bool{}
	ast.Inspect(t.Body, func(n ast.Node) bool {
		if d, ok := n.(*ast.Decl); ok {
			inside[d.Name] = true
		}
		return true
	})
	ls := leaves(t.Body.List)
	g := &fissionGroups{parent: map[string]string{}, accs: map[string]bool{}}
	node := func(n string) {
		if _, ok := g.parent[n]; !ok {
			g.parent[n] = n
		}
	}
	for _, a := range s.local.arrays {
		node(a)
	}
	set := map[string]bool{}
	for _, st := range ls {
		w, op := written(st)
		switch {
		case w == "":
		case params[w]:
			return nil, illegal("fission: the tile loop writes the global array %s", w)
		case inside[w]:
			if types[w].IsFloat() {
				node(w)
			}
		case op == ast.AddSet || op == ast.SubSet:
			g.accs[w] = true
		default:
			if !types[w].IsFloat() {
				return nil, illegal("fission: the tile loop assigns %s, declared before it", w)
			}
			set[w] = true
			node(w)
		}
	}
	for w := range set {
		delete(g.accs, w) // assigned too: carried data, not a sum
	}
	// An integer declared in the loop from the data (an index read from
	// local memory) joins the data's group.
	for changed := true; changed; {
		changed = false
		for _, st := range ls {
			w, _ := written(st)
			if w == "" || !inside[w] {
				continue
			}
			if _, ok := g.parent[w]; ok {
				continue
			}
			for _, n := range dataNames(st, true) {
				if _, ok := g.parent[n]; ok {
					node(w)
					changed = true
					break
				}
			}
		}
	}
	for _, st := range ls {
		var prev string
		for _, n := range dataNames(st, g.summed(st)) {
			if g.accs[n] {
				return nil, illegal("fission: the accumulator %s is read in the tile loop", n)
			}
			if _, ok := g.parent[n]; !ok {
				continue
			}
			if r := g.find(n); prev == "" {
				prev = r
			} else if r != prev {
				g.parent[r] = prev
			}
		}
	}
	for _, a := range s.local.arrays {
		if r := g.find(a); !slices.Contains(g.roots, r) {
			g.roots = append(g.roots, r)
		}
	}
	return g, nil
}

// summed reports whether the leaf statement st adds to or subtracts from
// an accumulator (which then joins no group).
func (g *fissionGroups) summed(st ast.Stmt) bool {
	w, op := written(st)
	return g.accs[w] && (op == ast.AddSet || op == ast.SubSet)
}

// stmtRoots returns the groups the leaves of st belong to.
func (g *fissionGroups) stmtRoots(st ast.Stmt) []string {
	var out []string
	for _, l := range leaves([]ast.Stmt{st}) {
		if r := g.root(l); r != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// root returns the group of a leaf statement: "" when it touches no data
// (it is repeated in every loop).
func (g *fissionGroups) root(st ast.Stmt) string {
	for _, n := range dataNames(st, g.summed(st)) {
		if _, ok := g.parent[n]; ok {
			return g.find(n)
		}
	}
	return ""
}

// filter returns clones of the statements of list that belong to group r
// or to none, keeping a block, if or loop only when it holds a statement
// of r; has says whether the result holds one.
func (g *fissionGroups) filter(list []ast.Stmt, r string) (out []ast.Stmt, has bool) {
	for _, st := range list {
		switch st := st.(type) {
		case *ast.Block:
			if sub, h := g.filter(st.List, r); h {
				out, has = append(out, ast.NewBlock(sub...)), true
			}
		case *ast.If:
			then, h := g.filter(st.Then.List, r)
			var els []ast.Stmt
			h2 := false
			if st.Else != nil {
				els, h2 = g.filter(st.Else.List, r)
			}
			if h || h2 {
				c := &ast.If{Cond: ast.CloneExpr(st.Cond), Then: ast.NewBlock(then...)}
				if st.Else != nil {
					c.Else = ast.NewBlock(els...)
				}
				out, has = append(out, c), true
			}
		case *ast.For:
			if body, h := g.filter(st.Body.List, r); h {
				c := *st
				c.Lo, c.Hi, c.Step = ast.CloneExpr(st.Lo), ast.CloneExpr(st.Hi), ast.CloneExpr(st.Step)
				c.Body = ast.NewBlock(body...)
				out, has = append(out, &c), true
			}
		case *ast.While:
			if body, h := g.filter(st.Body.List, r); h {
				out, has = append(out, &ast.While{Cond: ast.CloneExpr(st.Cond), Body: ast.NewBlock(body...)}), true
			}
		default:
			switch g.root(st) {
			case "":
				out = append(out, ast.Clone(st).(ast.Stmt))
			case r:
				out, has = append(out, ast.Clone(st).(ast.Stmt)), true
			}
		}
	}
	return out, has
}

// Fissionable reports whether a compute loop of the kernel accumulates a
// sum of terms that read different array elements
// (c += a[y][k]*b[x][k] + b[y][k]*a[x][k]): staged, each term's tiles then
// form a group of their own that fission can give a tile loop. A search
// space includes fission only for such kernels.
func Fissionable(prob *Problem) bool {
	found := false
	ast.Inspect(prob.Kernel.Body, func(n ast.Node) bool {
		if f, ok := n.(*ast.For); ok {
			ast.Inspect(f.Body, func(n ast.Node) bool {
				if a, ok := n.(*ast.Assign); ok && (a.Op == ast.AddSet || a.Op == ast.SubSet) && termGroups(a.RHS) >= 2 {
					found = true
				}
				return !found
			})
		}
		return !found
	})
	return found
}

// termGroups returns the number of groups of the terms of a sum that read
// array elements, two terms being in one group when they read an element
// in common (the same array and subscripts).
func termGroups(x ast.Expr) int {
	var groups []map[string]bool
	for _, t := range flattenSum(x, false, nil) {
		refs := map[string]bool{}
		ast.Inspect(t.x, func(n ast.Node) bool {
			if ix, ok := n.(*ast.Index); ok {
				refs[ast.ExprString(ix)] = true
			}
			return true
		})
		if len(refs) == 0 {
			continue
		}
		// Merge every group that shares an element with this term.
		var rest []map[string]bool
		for _, g := range groups {
			shared := false
			for r := range refs {
				shared = shared || g[r]
			}
			if shared {
				for r := range g {
					refs[r] = true
				}
			} else {
				rest = append(rest, g)
			}
		}
		groups = append(rest, refs)
	}
	return len(groups)
}
