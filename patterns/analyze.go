package patterns

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hplopt/hplopt/ast"
)

// Settings says what the analysis may take as known besides the kernel's
// code. The zero value analyses a kernel whose int arguments are unknown,
// for passes that need every loop's bounds fixed for the whole launch.
type Settings struct {
	// Ints holds the values of int scalar arguments, as a problem
	// specialized for its arguments has them (transforms.Problem.Ints). An
	// int argument with a value is a constant of the problem: a subscript
	// that uses it (a[i][k], fict[t]) is classified with the value folded
	// into Subscript.Offset and the argument listed in Subscript.Scalars.
	// Default nil: such a subscript is Unsupported.
	Ints map[string]int
	// Triangular accepts loops whose bounds depend on a global id or on an
	// enclosing loop's counter, for (j2 = j1; j2 < m; j2++), when the bound
	// is a global id and/or a counter plus a constant: Loop.Lower and
	// Loop.Upper say how, and the references that use the counter are
	// classified. Default false: such a loop is a kernel-level reason in
	// Info.Unsupported and the references that use its counter are
	// Unsupported, as passes that tile every loop with launch-wide bounds
	// need.
	Triangular bool
}

// Analyze classifies the references to global arrays in k's compute
// section with the zero Settings. It returns ErrNoCompute for a kernel
// without one.
func Analyze(k *ast.Kernel) (*Info, error) { return Settings{}.Analyze(k) }

// Analyze classifies the references to global arrays in k's compute
// section, taking as known what set gives. It returns ErrNoCompute for a
// kernel without one.
func (set Settings) Analyze(k *ast.Kernel) (*Info, error) {
	comp := k.Compute()
	if comp == nil {
		return nil, fmt.Errorf("patterns: kernel %s: %w", k.Name, ErrNoCompute)
	}
	a := &analyzer{set: set, k: k, info: &Info{Kernel: k.Name}, arrays: map[string]*Array{},
		assigned: map[string]bool{}, data: map[string]bool{}, once: map[string]bool{}, defs: map[string]ast.Expr{}}
	// Scalars set in the compute section (assigned, or declared there with
	// an initial value) are not loop-invariant; those whose value comes
	// from an array, directly or through other such scalars, hold data.
	// A private int set at one place only may stand for its value.
	type setting struct {
		name string
		val  ast.Expr
	}
	var sets []setting
	sites := map[string]int{}
	ast.Inspect(comp, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.Assign:
			if id, ok := s.LHS.(*ast.Ident); ok {
				a.assigned[id.Name] = true
				sets = append(sets, setting{id.Name, s.RHS})
				sites[id.Name]++
				if s.Op != ast.Set {
					sites[id.Name]++
				}
			}
		case *ast.Decl:
			if len(s.Extents) == 0 {
				a.assigned[s.Name] = true
				if s.Init != nil {
					sets = append(sets, setting{s.Name, s.Init})
					sites[s.Name]++
				}
			}
		case *ast.For:
			sites[s.Var] += 2 // a counter takes many values
		}
		return true
	})
	for name, n := range sites {
		if d := k.Decl(name); n == 1 && d != nil && d.Type == ast.Int && d.Mem == ast.Private && len(d.Extents) == 0 {
			a.once[name] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, st := range sets {
			if !a.data[st.name] && a.readsData(st.val) {
				a.data[st.name] = true
				changed = true
			}
		}
	}
	a.open()
	for _, s := range comp.Body.List {
		a.stmt(s, nil, "")
	}
	a.findGuard(comp.Body.List)
	a.close()
	for _, arr := range a.arrays {
		a.neighbourhood(arr)
		a.info.Arrays = append(a.info.Arrays, arr)
	}
	sort.Slice(a.info.Arrays, func(i, j int) bool { return a.info.Arrays[i].Name < a.info.Arrays[j].Name })
	return a.info, nil
}

type analyzer struct {
	set      Settings
	k        *ast.Kernel
	info     *Info
	arrays   map[string]*Array
	assigned map[string]bool // scalars assigned or initialized in the compute section
	data     map[string]bool // scalars of the compute section whose value is read from an array
	loopWhy  []string        // per Info.Loops entry: why the loop cannot be followed, or ""
	// once marks the private ints set at exactly one place of the compute
	// section; defs holds the values of those whose setting is visible at
	// the statement being analysed (it dominates it: an earlier statement
	// of the same or an enclosing block), written with global ids, loop
	// counters, arguments and constants only. scopes lists the names
	// defined per open block.
	once   map[string]bool
	defs   map[string]ast.Expr
	scopes [][]string
}

func (a *analyzer) open() { a.scopes = append(a.scopes, nil) }

func (a *analyzer) close() {
	for _, name := range a.scopes[len(a.scopes)-1] {
		delete(a.defs, name)
	}
	a.scopes = a.scopes[:len(a.scopes)-1]
}

// define records name = val when name is a private int set only here and
// val reads nothing but global ids and sizes, the counters of the loops
// around it, arguments, constants and ints defined before: the value the
// name holds wherever the definition dominates.
func (a *analyzer) define(name string, val ast.Expr, loops []int) {
	if !a.once[name] {
		return
	}
	ok := true
	ast.Inspect(val, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Index:
			ok = false
		case *ast.Ident:
			_, def := a.defs[n.Name]
			ok = ok && (def || a.isLoop(n.Name, loops) || a.k.Param(n.Name) != nil)
		}
		return ok
	})
	if !ok {
		return
	}
	a.defs[name] = ast.Substitute(val, a.defs)
	a.scopes[len(a.scopes)-1] = append(a.scopes[len(a.scopes)-1], name)
}

// isLoop reports whether name is the counter of one of loops.
func (a *analyzer) isLoop(name string, loops []int) bool {
	for _, l := range loops {
		if a.info.Loops[l].Var == name {
			return true
		}
	}
	return false
}

// block analyses statements inside the given enclosing loops; cond, if not
// empty, says why the statements run under a data-dependent condition.
func (a *analyzer) block(b *ast.Block, loops []int, cond string) {
	a.open()
	for _, s := range b.List {
		a.stmt(s, loops, cond)
	}
	a.close()
}

func (a *analyzer) stmt(s ast.Stmt, loops []int, cond string) {
	switch s := s.(type) {
	case *ast.Decl:
		if s.Init != nil {
			a.expr(s.Init, loops, cond, true, false)
			a.define(s.Name, s.Init, loops)
		}
	case *ast.Assign:
		a.expr(s.RHS, loops, cond, true, false)
		a.expr(s.LHS, loops, cond, s.Op != ast.Set, true)
		if id, ok := s.LHS.(*ast.Ident); ok && s.Op == ast.Set {
			a.define(id.Name, s.RHS, loops)
		}
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
		if why := a.bounds(l, loops); why != "" {
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

// dependence is what an expression's value depends on besides constants
// and arguments.
type dependence struct {
	data     bool   // the contents of an array
	assigned string // a scalar set in the compute section that the analysis cannot follow
	item     bool   // the work-item (a global, local or group id)
	loop     string // the counter of an enclosing loop
	private  string // a private int followed to its value
}

func (a *analyzer) depends(e ast.Expr, loops []int, d *dependence) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Special:
			if n.Kind == ast.GlobalID || n.Kind == ast.LocalID || n.Kind == ast.GroupID {
				d.item = true
			}
		case *ast.Ident:
			if v, ok := a.defs[n.Name]; ok {
				if d.private == "" {
					d.private = n.Name
				}
				a.depends(v, loops, d)
			} else if a.isLoop(n.Name, loops) {
				if d.loop == "" {
					d.loop = n.Name
				}
			} else if a.assigned[n.Name] && d.assigned == "" {
				d.assigned = n.Name
			}
		case *ast.Index:
			d.data = true
		}
		return true
	})
}

// bounds says why a loop's bounds cannot be followed, or "". A bound that
// depends on the work-item or an enclosing counter makes a triangular
// loop: with Settings.Triangular, one the analysis can describe sets
// l.Lower or l.Upper.
func (a *analyzer) bounds(l *Loop, loops []int) string {
	for i, e := range []ast.Expr{l.Lo, l.Hi} {
		var d dependence
		a.depends(e, loops, &d)
		text := ast.ExprString(e)
		if v := ast.Substitute(e, a.defs); d.private != "" {
			text += " (= " + ast.ExprString(v) + ")"
		}
		var why string
		switch {
		case d.data:
			return fmt.Sprintf("loop %s has the data-dependent bound %s", l.Var, ast.ExprString(e))
		case d.assigned != "":
			return fmt.Sprintf("loop %s has the bound %s, which depends on %s, assigned in the compute section", l.Var, ast.ExprString(e), d.assigned)
		case d.item:
			why = fmt.Sprintf("loop %s has the bound %s, which depends on the work-item (a triangular loop)", l.Var, text)
		case d.loop != "":
			why = fmt.Sprintf("loop %s has the bound %s, which depends on the enclosing loop %s (a triangular loop)", l.Var, text, d.loop)
		case d.private != "":
			// Fixed for the launch, but through a private int that passes
			// hoisting loops around the point's code would not see set.
			return fmt.Sprintf("loop %s has the bound %s, which depends on %s, assigned in the compute section", l.Var, ast.ExprString(e), d.private)
		default:
			continue
		}
		if !a.set.Triangular {
			return why
		}
		s, sw := a.subscript(e, loops)
		if sw != "" {
			return why + "; the analysis follows a bound that is a global id and/or an enclosing loop's counter plus a constant"
		}
		if i == 0 {
			l.Lower = &s
		} else {
			l.Upper = &s
		}
	}
	return ""
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
			found = found || a.data[n.Name]
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

// findGuard records the compute section's bounds guard, if list ends with
// one (see Guard). It runs with the definitions of list's private ints
// still visible.
func (a *analyzer) findGuard(list []ast.Stmt) {
	if len(list) == 0 {
		return
	}
	g, ok := list[len(list)-1].(*ast.If)
	if !ok || g.Else != nil {
		return
	}
	for _, s := range list[:len(list)-1] {
		var val ast.Expr
		switch s := s.(type) {
		case *ast.Decl:
			if len(s.Extents) > 0 {
				return
			}
			val = s.Init
		case *ast.Assign:
			if _, ok := s.LHS.(*ast.Ident); !ok {
				return
			}
			val = s.RHS
		default:
			return
		}
		if val != nil && a.readsData(val) {
			return
		}
	}
	cond := ast.Substitute(g.Cond, a.defs)
	uniform := true
	ast.Inspect(cond, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Index:
			uniform = false
		case *ast.Special:
			uniform = uniform && (n.Kind == ast.GlobalID || n.Kind == ast.GlobalSize)
		case *ast.Ident:
			p := a.k.Param(n.Name)
			uniform = uniform && p != nil && p.Rank == 0
		}
		return uniform
	})
	if uniform {
		a.info.Guard = &Guard{If: g, Index: len(list) - 1, Cond: cond}
	}
}

// neighbourhood marks the references of arr that read it at several
// constant offsets around the same global ids, and sets arr.Halo.
func (a *analyzer) neighbourhood(arr *Array) {
	shapes := map[string][]*Ref{}
	var order []string
	for _, r := range arr.Refs {
		if r.Pattern == Unsupported {
			continue
		}
		var key strings.Builder
		ids, counters := 0, false
		for _, s := range r.Subs {
			if s.Kind == ID {
				ids++
			}
			counters = counters || s.Kind != ID && s.Kind != Const
			fmt.Fprintf(&key, "%d.%d|", s.Kind, s.Dim)
		}
		if ids == 0 || counters {
			continue
		}
		if shapes[key.String()] == nil {
			order = append(order, key.String())
		}
		shapes[key.String()] = append(shapes[key.String()], r)
	}
	for _, key := range order {
		refs := shapes[key]
		halo := make([]Span, len(refs[0].Subs))
		for d, s := range refs[0].Subs {
			if s.Kind == ID {
				halo[d] = Span{s.Offset, s.Offset}
			}
		}
		spread := false
		for _, r := range refs[1:] {
			for d, s := range r.Subs {
				if s.Kind == ID {
					halo[d].Min, halo[d].Max = min(halo[d].Min, s.Offset), max(halo[d].Max, s.Offset)
					spread = spread || halo[d].Min != halo[d].Max
				}
			}
		}
		if !spread {
			continue
		}
		for _, r := range refs {
			r.Pattern = RadiusPat
		}
		arr.Pattern = max(arr.Pattern, RadiusPat)
		if arr.Halo == nil {
			arr.Halo = halo
			continue
		}
		for d := range halo {
			arr.Halo[d].Min, arr.Halo[d].Max = min(arr.Halo[d].Min, halo[d].Min), max(arr.Halo[d].Max, halo[d].Max)
		}
	}
}

// affine is sum(coef*term) + c over terms named "id0".."id2" (global ids),
// "L<n>" (loop indices) and "s:<name>" (int arguments).
type affine struct {
	terms map[string]int64
	c     int64
}

// kinds counts the global id and loop counter terms and the int argument
// terms of f with a nonzero coefficient.
func (f affine) kinds() (ids, scalars int) {
	for t, c := range f.terms {
		switch {
		case c == 0:
		case t[0] == 's':
			scalars++
		default:
			ids++
		}
	}
	return ids, scalars
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
	offset := f.c
	terms := make([]string, 0, len(f.terms))
	for t := range f.terms {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	ids, ctrs := 0, 0
	for _, t := range terms {
		c := f.terms[t]
		switch {
		case c == 0:
		case t[0] == 's':
			name := t[2:]
			v, ok := a.set.Ints[name]
			if !ok {
				return s, fmt.Sprintf("the subscript %s uses the int argument %s, whose value the analysis was not given", ast.ExprString(e), name)
			}
			if s.Scalars == nil {
				s.Scalars = map[string]int64{}
			}
			s.Scalars[name] = c
			offset += c * int64(v)
		case c != 1:
			return s, fmt.Sprintf("the subscript %s has the coefficient %d (a linearized or strided index)", ast.ExprString(e), c)
		case t[0] == 'i':
			ids++
			s.Dim = int(t[2] - '0')
		default:
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
		return Subscript{Expr: e, Kind: Other}, fmt.Sprintf("the subscript %s combines several ids or loop counters", ast.ExprString(e))
	}
	s.Offset = offset
	for name := range s.Scalars {
		if a.info.Ints == nil {
			a.info.Ints = map[string]int{}
		}
		a.info.Ints[name] = a.set.Ints[name]
	}
	return s, ""
}

// linearized returns a product in e of a global id or loop counter and an
// operand that is not a constant, such as idy*n in idy*n+idx, or nil.
func (a *analyzer) linearized(e ast.Expr, loops []int) ast.Expr {
	var found ast.Expr
	runtime := func(f affine, why string) bool {
		ids, scalars := f.kinds()
		return why != "" || ids == 0 && scalars > 0
	}
	ast.Inspect(e, func(n ast.Node) bool {
		b, ok := n.(*ast.Binary)
		if !ok || b.Op != ast.Mul || found != nil {
			return found == nil
		}
		fx, whyX := a.affine(b.X, loops)
		fy, whyY := a.affine(b.Y, loops)
		idsX, _ := fx.kinds()
		idsY, _ := fy.kinds()
		if whyX == "" && idsX > 0 && runtime(fy, whyY) || whyY == "" && idsY > 0 && runtime(fx, whyX) {
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
		if v, ok := a.defs[e.Name]; ok {
			f, why := a.affine(v, loops)
			if why != "" {
				return f, fmt.Sprintf("the subscript depends on %s = %s: %s", e.Name, ast.ExprString(v), why)
			}
			return f, ""
		}
		if p := a.k.Param(e.Name); p != nil {
			if p.Rank == 0 && p.Type == ast.Int {
				return affine{terms: map[string]int64{"s:" + e.Name: 1}}, ""
			}
			return affine{}, fmt.Sprintf("the subscript uses the argument %s, which is not an int", e.Name)
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
			return affine{}, fmt.Sprintf("the subscript multiplies ids, counters or int arguments: %s", ast.ExprString(e))
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
