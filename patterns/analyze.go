package patterns

import (
	"fmt"
	"sort"

	"github.com/hplopt/hplopt/ast"
)

// Analyze classifies the references to global arrays in k's compute
// section. It returns ErrNoCompute for a kernel without one.
func Analyze(k *ast.Kernel) (*Info, error) {
	comp := k.Compute()
	if comp == nil {
		return nil, fmt.Errorf("patterns: kernel %s: %w", k.Name, ErrNoCompute)
	}
	a := &analyzer{k: k, info: &Info{Kernel: k.Name}, arrays: map[string]*Array{}, assigned: map[string]bool{}, data: map[string]bool{}}
	// Scalars set in the compute section (assigned, or declared there with
	// an initial value) are not loop-invariant; those whose value comes
	// from an array, directly or through other such scalars, hold data.
	type set struct {
		name string
		val  ast.Expr
	}
	var sets []set
	ast.Inspect(comp, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.Assign:
			if id, ok := s.LHS.(*ast.Ident); ok {
				a.assigned[id.Name] = true
				sets = append(sets, set{id.Name, s.RHS})
			}
		case *ast.Decl:
			if len(s.Extents) == 0 {
				a.assigned[s.Name] = true
				if s.Init != nil {
					sets = append(sets, set{s.Name, s.Init})
				}
			}
		}
		return true
	})
	for changed := true; changed; {
		changed = false
		for _, st := range sets {
			if !a.data[st.name] && a.readsData(st.val) {
				a.data[st.name] = true
				changed = true
			}
		}
	}
	a.block(comp.Body, nil, "")
	for _, arr := range a.arrays {
		a.info.Arrays = append(a.info.Arrays, arr)
	}
	sort.Slice(a.info.Arrays, func(i, j int) bool { return a.info.Arrays[i].Name < a.info.Arrays[j].Name })
	return a.info, nil
}

type analyzer struct {
	k        *ast.Kernel
	info     *Info
	arrays   map[string]*Array
	assigned map[string]bool // scalars assigned or initialized in the compute section
	data     map[string]bool // scalars of the compute section whose value is read from an array
	loopWhy  []string        // per Info.Loops entry: why the loop cannot be followed, or ""
}

// block analyses statements inside the given enclosing loops; cond, if not
// empty, says why the statements run under a data-dependent condition.
func (a *analyzer) block(b *ast.Block, loops []int, cond string) {
	for _, s := range b.List {
		a.stmt(s, loops, cond)
	}
}

func (a *analyzer) stmt(s ast.Stmt, loops []int, cond string) {
	switch s := s.(type) {
	case *ast.Decl:
		if s.Init != nil {
			a.expr(s.Init, loops, cond, true, false)
		}
	case *ast.Assign:
		a.expr(s.RHS, loops, cond, true, false)
		a.expr(s.LHS, loops, cond, s.Op != ast.Set, true)
	case *ast.Block:
		a.block(s, loops, cond)
	case *ast.If:
		a.expr(s.Cond, loops, cond, true, false)
		c := cond
		if c == "" && a.readsData(s.Cond) {
			c = "it is under the data-dependent condition " + ast.ExprString(s.Cond)
		}
		a.block(s.Then, loops, c)
		if s.Else != nil {
			a.block(s.Else, loops, c)
		}
	case *ast.While:
		a.info.Unsupported = append(a.info.Unsupported, fmt.Sprintf("a while loop (while %s) has no counter the analysis can follow", ast.ExprString(s.Cond)))
		a.expr(s.Cond, loops, cond, true, false)
		c := cond
		if c == "" {
			c = "it is inside a while loop"
		}
		a.block(s.Body, loops, c)
	case *ast.For:
		idx := len(a.info.Loops)
		l := &Loop{Var: s.Var, Lo: s.Lo, Hi: s.Hi, Step: s.Step, For: s, Parent: -1, Depth: len(loops)}
		if len(loops) > 0 {
			l.Parent = loops[len(loops)-1]
		}
		a.info.Loops = append(a.info.Loops, l)
		a.loopWhy = append(a.loopWhy, "")
		for _, e := range []ast.Expr{s.Lo, s.Hi, s.Step} {
			a.expr(e, loops, cond, true, false)
		}
		if why := a.bound(s, loops); why != "" {
			a.info.Unsupported = append(a.info.Unsupported, why)
			a.loopWhy[idx] = why
		}
		if st, ok := s.Step.(*ast.IntLit); !ok || st.Value != 1 {
			why := fmt.Sprintf("loop %s has the non-unit stride %s", s.Var, ast.ExprString(s.Step))
			a.info.Unsupported = append(a.info.Unsupported, why)
			if a.loopWhy[idx] == "" {
				a.loopWhy[idx] = why
			}
		}
		a.block(s.Body, append(append([]int(nil), loops...), idx), cond)
	case *ast.Barrier, *ast.Compute:
	}
}

// bound says why a loop's bounds are not loop-invariant, or "".
func (a *analyzer) bound(f *ast.For, loops []int) string {
	why := ""
	for _, e := range []ast.Expr{f.Lo, f.Hi} {
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Special:
				if n.Kind == ast.GlobalID || n.Kind == ast.LocalID || n.Kind == ast.GroupID {
					why = fmt.Sprintf("loop %s has the bound %s, which depends on the work-item (a triangular loop)", f.Var, ast.ExprString(e))
				}
			case *ast.Ident:
				for _, l := range loops {
					if a.info.Loops[l].Var == n.Name {
						why = fmt.Sprintf("loop %s has the bound %s, which depends on the enclosing loop %s (a triangular loop)", f.Var, ast.ExprString(e), n.Name)
					}
				}
				if why == "" && a.assigned[n.Name] {
					why = fmt.Sprintf("loop %s has the bound %s, which depends on %s, assigned in the compute section", f.Var, ast.ExprString(e), n.Name)
				}
			case *ast.Index:
				why = fmt.Sprintf("loop %s has the data-dependent bound %s", f.Var, ast.ExprString(e))
			}
			return why == ""
		})
	}
	return why
}

// readsData reports whether e's value depends on the contents of an array:
// it reads an element of any array (global, local or private), or a scalar
// of the compute section that holds such a value.
func (a *analyzer) readsData(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Index:
			found = true
		case *ast.Ident:
			found = a.data[n.Name]
		}
		return !found
	})
	return found
}

// expr records the global references in e; the top-level reference is read
// and/or written as given, nested ones are read.
func (a *analyzer) expr(e ast.Expr, loops []int, cond string, read, write bool) {
	ast.Inspect(e, func(n ast.Node) bool {
		ix, ok := n.(*ast.Index)
		if !ok {
			return true
		}
		top := ast.Expr(ix) == e
		if p := a.k.Param(ix.Array); p != nil && p.Rank > 0 {
			a.ref(ix, loops, cond, !top || read, top && write)
		}
		for _, sub := range ix.Indices {
			a.expr(sub, loops, cond, true, false)
		}
		return false
	})
}

func (a *analyzer) ref(ix *ast.Index, loops []int, cond string, read, write bool) {
	r := &Ref{Array: ix.Array, Node: ix, Read: read, Write: write, Loops: loops}
	for _, sub := range ix.Indices {
		s, why := a.subscript(sub, loops)
		r.Subs = append(r.Subs, s)
		if why != "" && r.Reason == "" {
			r.Reason = why
		}
	}
	if r.Reason == "" && cond != "" {
		r.Reason = cond
	}
	if r.Reason == "" {
		for _, l := range loops {
			if why := a.loopWhy[l]; why != "" && a.usesLoop(r, l) {
				r.Reason = why
				break
			}
		}
	}
	if r.Reason != "" {
		r.Pattern = Unsupported
	} else {
		r.Pattern = classify(r.Subs)
	}
	arr := a.arrays[ix.Array]
	if arr == nil {
		arr = &Array{Name: ix.Array}
		a.arrays[ix.Array] = arr
	}
	arr.Refs = append(arr.Refs, r)
	arr.Read = arr.Read || read
	arr.Written = arr.Written || write
	if r.Pattern > arr.Pattern {
		arr.Pattern = r.Pattern
	}
	if r.Reason != "" && arr.Reason == "" {
		arr.Reason = fmt.Sprintf("%s: %s", ast.ExprString(ix), r.Reason)
	}
}

func (a *analyzer) usesLoop(r *Ref, l int) bool {
	for _, s := range r.Subs {
		if (s.Kind == Counter || s.Kind == IDCounter) && s.Loop == l {
			return true
		}
	}
	return false
}

// affine is sum(coef*term) + c over terms named "id0".."id2" and loop
// indices "L<n>".
type affine struct {
	terms map[string]int64
	c     int64
}

// subscript classifies one subscript, or says why it cannot.
func (a *analyzer) subscript(e ast.Expr, loops []int) (Subscript, string) {
	s := Subscript{Expr: e, Kind: Other}
	var inner *ast.Index
	ast.Inspect(e, func(n ast.Node) bool {
		if ix, ok := n.(*ast.Index); ok && inner == nil {
			inner = ix
		}
		return inner == nil
	})
	if inner != nil {
		return s, fmt.Sprintf("indirect indexing through %s", ast.ExprString(inner))
	}
	f, why := a.affine(e, loops)
	if why != "" {
		if m := a.linearized(e, loops); m != nil {
			return s, fmt.Sprintf("the subscript %s is a linearized multi-dimensional index (%s scales a global id or loop counter by a run-time value); index the array with one subscript per dimension", ast.ExprString(e), ast.ExprString(m))
		}
		return s, why
	}
	s.Offset = f.c
	ids, ctrs := 0, 0
	for t, c := range f.terms {
		if c == 0 {
			continue
		}
		if c != 1 {
			return s, fmt.Sprintf("the subscript %s has the coefficient %d (a linearized or strided index)", ast.ExprString(e), c)
		}
		if t[0] == 'i' {
			ids++
			s.Dim = int(t[2] - '0')
		} else {
			ctrs++
			fmt.Sscanf(t[1:], "%d", &s.Loop)
		}
	}
	switch {
	case ids == 0 && ctrs == 0:
		s.Kind = Const
	case ids == 1 && ctrs == 0:
		s.Kind = ID
	case ids == 0 && ctrs == 1:
		s.Kind = Counter
	case ids == 1 && ctrs == 1:
		s.Kind = IDCounter
	default:
		return s, fmt.Sprintf("the subscript %s combines several ids or loop counters", ast.ExprString(e))
	}
	return s, ""
}

// linearized returns a product in e of a global id or loop counter and an
// operand that is not a constant, such as idy*n in idy*n+idx, or nil.
func (a *analyzer) linearized(e ast.Expr, loops []int) ast.Expr {
	var found ast.Expr
	ast.Inspect(e, func(n ast.Node) bool {
		b, ok := n.(*ast.Binary)
		if !ok || b.Op != ast.Mul || found != nil {
			return found == nil
		}
		fx, whyX := a.affine(b.X, loops)
		fy, whyY := a.affine(b.Y, loops)
		if whyX == "" && len(fx.terms) > 0 && whyY != "" || whyY == "" && len(fy.terms) > 0 && whyX != "" {
			found = b
		}
		return found == nil
	})
	return found
}

func (a *analyzer) affine(e ast.Expr, loops []int) (affine, string) {
	switch e := e.(type) {
	case *ast.IntLit:
		return affine{c: e.Value}, ""
	case *ast.Special:
		if e.Kind == ast.GlobalID {
			return affine{terms: map[string]int64{fmt.Sprintf("id%d", e.Dim): 1}}, ""
		}
		return affine{}, fmt.Sprintf("the subscript uses %s", e.Name())
	case *ast.Ident:
		for i := len(loops) - 1; i >= 0; i-- {
			if a.info.Loops[loops[i]].Var == e.Name {
				return affine{terms: map[string]int64{fmt.Sprintf("L%d", loops[i]): 1}}, ""
			}
		}
		if a.k.Param(e.Name) != nil {
			return affine{}, fmt.Sprintf("the subscript uses the argument %s (only constants, global ids and loop counters are followed)", e.Name)
		}
		if a.assigned[e.Name] {
			return affine{}, fmt.Sprintf("the subscript depends on %s, assigned in the compute section", e.Name)
		}
		return affine{}, fmt.Sprintf("the subscript uses the variable %s", e.Name)
	case *ast.Index:
		return affine{}, fmt.Sprintf("indirect indexing through %s", ast.ExprString(e))
	case *ast.Unary:
		if e.Op == ast.Neg {
			x, why := a.affine(e.X, loops)
			return x.scale(-1), why
		}
	case *ast.Binary:
		x, why := a.affine(e.X, loops)
		if why != "" {
			return x, why
		}
		y, why := a.affine(e.Y, loops)
		if why != "" {
			return y, why
		}
		switch e.Op {
		case ast.Add:
			return x.add(y, 1), ""
		case ast.Sub:
			return x.add(y, -1), ""
		case ast.Mul:
			if len(x.terms) == 0 {
				return y.scale(x.c), ""
			}
			if len(y.terms) == 0 {
				return x.scale(y.c), ""
			}
			return affine{}, fmt.Sprintf("the subscript multiplies ids or counters: %s", ast.ExprString(e))
		}
	case *ast.Cast:
		if e.Type == ast.Int {
			return a.affine(e.X, loops)
		}
	}
	return affine{}, fmt.Sprintf("the subscript %s is not an affine expression of ids and loop counters", ast.ExprString(e))
}

func (f affine) scale(k int64) affine {
	out := affine{c: f.c * k, terms: map[string]int64{}}
	for t, c := range f.terms {
		out.terms[t] = c * k
	}
	return out
}

func (f affine) add(g affine, sign int64) affine {
	out := affine{c: f.c + sign*g.c, terms: map[string]int64{}}
	for t, c := range f.terms {
		out.terms[t] += c
	}
	for t, c := range g.terms {
		out.terms[t] += sign * c
	}
	return out
}

// classify applies the paper's definitions to classified subscripts.
func classify(subs []Subscript) Pattern {
	ids, ctrs, radius := 0, 0, false
	for _, s := range subs {
		switch s.Kind {
		case ID:
			ids++
		case Counter:
			ctrs++
		case IDCounter:
			radius = true
		}
	}
	n := len(subs)
	switch {
	case radius:
		return RadiusPat
	case ctrs == 0 && ids == 0:
		return NoPat
	case ctrs == 0:
		return SinglePat
	case ids == 0:
		return InnerPat
	case ctrs == 1 && subs[n-1].Kind == Counter:
		return RowPat
	case ctrs == 1 && n >= 2 && subs[n-2].Kind == Counter:
		return ColPat
	case ctrs == 1 && n >= 3 && subs[n-3].Kind == Counter:
		return DepthPat
	}
	// Several counters beside ids (a[k1][idy][k2]): the most complex
	// staging shape.
	return DepthPat
}

// LoopOf returns the index in in.Loops of the loop f, or -1.
func LoopOf(in *Info, f *ast.For) int {
	for i, l := range in.Loops {
		if l.For == f {
			return i
		}
	}
	return -1
}

// Supported reports whether the compute section as a whole can be
// transformed: no kernel-level reason against it.
func (in *Info) Supported() bool { return len(in.Unsupported) == 0 }
