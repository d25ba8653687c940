package transforms

import (
	"fmt"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/codegen"
)

var vectorization = &Pass{
	Name:     "vectorization",
	Requires: []*Pass{assembly},
	Doc: `With vec, computes each run of vec neighbouring points along x as OpenCL
vectors: the loop over a block's points along x is unrolled by runs, and the
statements of the points of a run are merged into one statement over
vectors. Values that differ between the points become vectors (floatN),
per-point private values elements of per-run vector arrays, reads of vec
consecutive elements vector loads (through a pointer to the vector type when
the alignment is proved, so that a GPU makes one wide load), writes of
consecutive elements vector stores, and other reads and writes go element by
element. A setting is illegal where the points of a run would take
different branches or accumulate into one location.`,
	Run: func(s *state) error {
		w := s.p.Vec
		if w <= 1 {
			return nil
		}
		if w&(w-1) != 0 || w > 16 {
			return illegal("vec=%d: want 2, 4, 8 or 16", w)
		}
		g := s.geom[0]
		if c := s.chunk(0); g.bsz < w || c%w != 0 {
			return illegal("vec=%d: a work-item's points along x lie in runs of %d (bszx=%d), not a multiple of vec", w, c, g.bsz)
		}
		v := &vectorizer{s: s, w: w, types: kernelTypes(s.k), vector: map[string]string{}, align: map[string]int64{}}
		for d := 0; d < s.dims; d++ {
			gd := s.geom[d]
			v.align[gd.b] = int64(s.chunk(d))
			v.align[gd.c] = int64(gd.lsz * gd.bsz)
		}
		s.comp.Body = ast.Apply(s.comp.Body, func(c *ast.Cursor) bool {
			if f, ok := c.Node().(*ast.For); ok && f.Role == ast.PointLoop && f.Var == g.p {
				c.Replace(v.loop(f))
				return false
			}
			return v.err == nil
		}, nil).(*ast.Block)
		if v.err != nil {
			return v.err
		}
		// Per-point arrays hold one vector per run along x, their last
		// dimension.
		for _, st := range s.comp.Body.List {
			if d, ok := st.(*ast.Decl); ok && s.private.perPoint[d.Name] {
				d.Extents[len(d.Extents)-1] /= w
				d.Width = w
			}
		}
		s.comp.Body.List = append(v.decls, s.comp.Body.List...)
		return nil
	},
}

// vectorizer merges the statements of the points of a run into vector
// statements.
type vectorizer struct {
	s     *state
	w     int
	types map[string]ast.Type
	// vector names the vector copy of each scalar temporary that has one;
	// active says which of them hold the temporary's value in the run
	// being merged.
	vector  map[string]string
	active  map[string]bool
	decls   []ast.Stmt          // the vector temporaries
	scatter map[ast.Type]string // a temporary per type for values written element by element
	align   map[string]int64    // known alignments of int variables (block bases)
	err     error
}

func (v *vectorizer) fail(format string, args ...any) {
	if v.err == nil {
		v.err = illegal("vec=%d: %s", v.w, fmt.Sprintf(format, args...))
	}
}

// loop unrolls the point loop f over x by runs of w points and merges each
// run.
func (v *vectorizer) loop(f *ast.For) ast.Stmt {
	var out []ast.Stmt
	n := int(f.Hi.(*ast.IntLit).Value)
	for q := 0; q < n/v.w; q++ {
		lanes := make([][]ast.Stmt, v.w)
		for l := range lanes {
			lanes[l] = ast.SubstituteStmt(f.Body, map[string]ast.Expr{f.Var: ast.IntConst(int64(q*v.w + l))}).(*ast.Block).List
		}
		v.active = map[string]bool{}
		out = append(out, v.stmts(lanes, q)...)
	}
	return ast.NewBlock(out...)
}

// stmts merges lists of statements, one list per point of run q.
func (v *vectorizer) stmts(lanes [][]ast.Stmt, q int) []ast.Stmt {
	var out []ast.Stmt
	for i := range lanes[0] {
		ls := make([]ast.Stmt, len(lanes))
		for l := range lanes {
			ls[l] = lanes[l][i]
		}
		out = append(out, v.stmt(ls, q)...)
	}
	return out
}

func (v *vectorizer) block(bs []*ast.Block, q int) *ast.Block {
	lists := make([][]ast.Stmt, len(bs))
	for l, b := range bs {
		lists[l] = b.List
	}
	return ast.NewBlock(v.stmts(lists, q)...)
}

func (v *vectorizer) stmt(ls []ast.Stmt, q int) []ast.Stmt {
	if v.err != nil {
		return nil
	}
	switch st := ls[0].(type) {
	case *ast.Block:
		bs := make([]*ast.Block, len(ls))
		for l := range ls {
			bs[l] = ls[l].(*ast.Block)
		}
		return []ast.Stmt{v.block(bs, q)}
	case *ast.Assign:
		as := make([]*ast.Assign, len(ls))
		for l := range ls {
			as[l] = ls[l].(*ast.Assign)
		}
		return v.assign(as, q)
	case *ast.If:
		conds := make([]ast.Expr, len(ls))
		thens := make([]*ast.Block, len(ls))
		var elses []*ast.Block
		for l := range ls {
			f := ls[l].(*ast.If)
			conds[l], thens[l] = f.Cond, f.Then
			if f.Else != nil {
				elses = append(elses, f.Else)
			}
		}
		out := &ast.If{Cond: v.cond(conds), Then: v.block(thens, q)}
		if len(elses) == len(ls) {
			out.Else = v.block(elses, q)
		}
		return []ast.Stmt{out}
	case *ast.For:
		bodies := make([]*ast.Block, len(ls))
		head := func(f *ast.For) string {
			return f.Var + ast.ExprString(f.Lo) + ";" + ast.ExprString(f.Hi) + ";" + ast.ExprString(f.Step)
		}
		for l := range ls {
			f := ls[l].(*ast.For)
			bodies[l] = f.Body
			if head(f) != head(st) || v.refsVector(f.Lo) || v.refsVector(f.Hi) {
				v.fail("the points of a run loop over different ranges")
				return nil
			}
		}
		return []ast.Stmt{&ast.For{Var: st.Var, Lo: ast.CloneExpr(st.Lo), Hi: ast.CloneExpr(st.Hi), Step: ast.CloneExpr(st.Step), Body: v.block(bodies, q), Role: st.Role, Unroll: st.Unroll}}
	case *ast.Decl:
		for _, d := range ls[1:] {
			if ast.String(d) != ast.String(st) {
				v.fail("the points of a run declare %s differently", st.Name)
				return nil
			}
		}
		if st.Init != nil && v.refsVector(st.Init) {
			v.fail("%s is declared with a value that differs between the points", st.Name)
			return nil
		}
		return []ast.Stmt{ast.Clone(st)}
	}
	v.fail("cannot merge a %T of the points of a run", ls[0])
	return nil
}

// vexpr is a merged expression: one vector of w values, or one value that
// every point of the run shares.
type vexpr struct {
	e   ast.Expr
	vec bool
	t   ast.Type
}

// refsVector reports whether e reads a temporary held as a vector in the
// run or a per-point array.
func (v *vectorizer) refsVector(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			found = found || v.active[n.Name]
		case *ast.Index:
			found = found || v.s.private.perPoint[n.Array]
		}
		return !found
	})
	return found
}

// uniform reports whether the points' expressions have one value: the same
// text (or, for integers, the same affine form) and no vector operand.
func (v *vectorizer) uniform(ls []ast.Expr) bool {
	if v.refsVector(ls[0]) {
		return false
	}
	first := ast.ExprString(ls[0])
	same := true
	for _, e := range ls[1:] {
		same = same && ast.ExprString(e) == first
	}
	if same {
		return true
	}
	if typeOf(ls[0], v.types) != ast.Int {
		return false
	}
	a := affineOf(ls[0])
	for _, e := range ls[1:] {
		if d, ok := affineOf(e).diff(a); !ok || d != 0 {
			return false
		}
	}
	return true
}

// steps returns, for integer expressions of the points that differ by
// constants only, those constants (point l's value minus point 0's).
func steps(ls []ast.Expr) ([]int64, bool) {
	a := affineOf(ls[0])
	out := make([]int64, len(ls))
	for l, e := range ls {
		d, ok := affineOf(e).diff(a)
		if !ok {
			return nil, false
		}
		out[l] = d
	}
	return out, true
}

// consecutive reports whether steps are 0, 1, 2, ...
func consecutive(st []int64) bool {
	for l, d := range st {
		if d != int64(l) {
			return false
		}
	}
	return true
}

func (v *vectorizer) expr(ls []ast.Expr, q int) vexpr {
	t := typeOf(ls[0], v.types)
	if v.err != nil {
		return vexpr{ls[0], false, t}
	}
	if v.uniform(ls) {
		return vexpr{ast.CloneExpr(ls[0]), false, t}
	}
	if t == ast.Int && !v.refsVector(ls[0]) {
		// Integers that differ by constants: the first point's value plus
		// a vector of the differences.
		if st, ok := steps(ls); ok {
			elems := make([]ast.Expr, len(st))
			for l, d := range st {
				elems[l] = ast.IntConst(d)
			}
			return vexpr{ast.Sum(ast.CloneExpr(ls[0]), &ast.Vector{Type: ast.Int, Width: v.w, Elems: elems}), true, t}
		}
	}
	switch e := ls[0].(type) {
	case *ast.Ident:
		if v.active[e.Name] {
			return vexpr{ast.Id(v.vector[e.Name]), true, t}
		}
	case *ast.Index:
		ixs := make([]*ast.Index, len(ls))
		for l := range ls {
			ixs[l] = ls[l].(*ast.Index)
		}
		return v.read(ixs, q)
	case *ast.Binary:
		xs, ys := v.children(ls, func(e ast.Expr) ast.Expr { return e.(*ast.Binary).X }), v.children(ls, func(e ast.Expr) ast.Expr { return e.(*ast.Binary).Y })
		x, y := v.expr(xs, q), v.expr(ys, q)
		if e.Op.IsComparison() || e.Op == ast.And || e.Op == ast.Or {
			v.fail("the comparison %s differs between the points of a run", ast.ExprString(e))
			return vexpr{e, false, t}
		}
		x, y = v.convert(x, t), v.convert(y, t)
		return vexpr{&ast.Binary{Op: e.Op, X: x.e, Y: y.e}, true, t}
	case *ast.Unary:
		if e.Op == ast.Not {
			v.fail("the condition %s differs between the points of a run", ast.ExprString(e))
			return vexpr{e, false, t}
		}
		x := v.expr(v.children(ls, func(e ast.Expr) ast.Expr { return e.(*ast.Unary).X }), q)
		return vexpr{&ast.Unary{Op: e.Op, X: x.e}, x.vec, t}
	case *ast.Call:
		args := make([]vexpr, len(e.Args))
		for i := range e.Args {
			args[i] = v.expr(v.children(ls, func(e ast.Expr) ast.Expr { return e.(*ast.Call).Args[i] }), q)
		}
		out := &ast.Call{Func: e.Func}
		for _, a := range args {
			// Builtins take vectors of one type: scalars are replicated.
			out.Args = append(out.Args, v.widen(v.convert(a, t)).e)
		}
		return vexpr{out, true, t}
	case *ast.Cast:
		x := v.expr(v.children(ls, func(e ast.Expr) ast.Expr { return e.(*ast.Cast).X }), q)
		return v.convert(x, e.Type)
	}
	return v.gather(ls, q, t)
}

// children returns the child of each point's expression that pick selects.
func (v *vectorizer) children(ls []ast.Expr, pick func(ast.Expr) ast.Expr) []ast.Expr {
	out := make([]ast.Expr, len(ls))
	for l, e := range ls {
		out[l] = pick(e)
	}
	return out
}

// convert converts a vector x to element type t (OpenCL converts vectors
// with convert_typeN, not casts); a scalar is cast.
func (v *vectorizer) convert(x vexpr, t ast.Type) vexpr {
	if x.t == t || t == ast.Bool || t == ast.Invalid {
		return x
	}
	if !x.vec {
		if x.t == ast.Int && t.IsFloat() {
			return x // the usual conversions widen a scalar to a vector's type
		}
		return vexpr{&ast.Cast{Type: t, X: x.e}, false, t}
	}
	return vexpr{&ast.Call{Func: "convert_" + t.VectorName(v.w), Args: []ast.Expr{x.e}}, true, t}
}

// widen replicates a scalar into a vector.
func (v *vectorizer) widen(x vexpr) vexpr {
	if x.vec {
		return x
	}
	return vexpr{&ast.Vector{Type: x.t, Width: v.w, Elems: []ast.Expr{x.e}}, true, x.t}
}

// gather builds a vector from the points' scalar expressions.
func (v *vectorizer) gather(ls []ast.Expr, q int, t ast.Type) vexpr {
	out := &ast.Vector{Type: t, Width: v.w}
	for l, e := range ls {
		out.Elems = append(out.Elems, v.scalar(e, l, q))
	}
	return vexpr{out, true, t}
}

// scalar is point l's expression e, reading the vector temporaries and
// per-point arrays of the run element by element.
func (v *vectorizer) scalar(e ast.Expr, l, q int) ast.Expr {
	return ast.Apply(ast.CloneExpr(e), func(c *ast.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.Ident:
			if v.active[n.Name] {
				c.Replace(&ast.Lane{X: ast.Id(v.vector[n.Name]), Lane: l})
			}
		case *ast.Index:
			if v.s.private.perPoint[n.Array] {
				c.Replace(&ast.Lane{X: v.perPoint(n, q), Lane: l})
				return false
			}
		}
		return true
	}, nil).(ast.Expr)
}

// perPoint is the per-run vector element of a per-point array for run q:
// its last subscript, the point along x, becomes the run.
func (v *vectorizer) perPoint(ix *ast.Index, q int) *ast.Index {
	out := &ast.Index{Array: ix.Array, Indices: cloneAll(ix.Indices)}
	out.Indices[len(out.Indices)-1] = ast.IntConst(int64(q))
	return out
}

// location classifies the points' references to one array: "one" (the
// same element), "run" (consecutive elements from the first point's) or
// "other".
func (v *vectorizer) location(ixs []*ast.Index) string {
	for _, ix := range ixs {
		for _, i := range ix.Indices {
			if v.refsVector(i) {
				return "other"
			}
		}
	}
	n := len(ixs[0].Indices)
	last := make([]ast.Expr, len(ixs))
	for d := 0; d < n; d++ {
		sub := make([]ast.Expr, len(ixs))
		for l, ix := range ixs {
			sub[l] = ix.Indices[d]
		}
		if d == n-1 {
			last = sub
			break
		}
		if !v.uniform(sub) {
			return "other"
		}
	}
	if v.uniform(last) {
		return "one"
	}
	if st, ok := steps(last); ok && consecutive(st) {
		return "run"
	}
	return "other"
}

// read merges the points' reads of one array element each.
func (v *vectorizer) read(ixs []*ast.Index, q int) vexpr {
	arr := ixs[0].Array
	t := v.types[arr]
	if v.s.private.perPoint[arr] {
		return vexpr{v.perPoint(ixs[0], q), true, t}
	}
	switch v.location(ixs) {
	case "one":
		return vexpr{ast.CloneExpr(ixs[0]), false, t}
	case "run":
		return vexpr{v.load(ixs[0]), true, t}
	}
	ls := make([]ast.Expr, len(ixs))
	for l, ix := range ixs {
		ls[l] = ix
	}
	return v.gather(ls, q, t)
}

// load is the vector of w elements from ix, aligned when its address
// provably is a multiple of the vector's size (at most 16 bytes: the widest
// load of a GPU).
func (v *vectorizer) load(ix *ast.Index) *ast.Load {
	out := &ast.Load{Width: v.w, Ref: ast.CloneExpr(ix).(*ast.Index)}
	out.Aligned = alignedRun(v.s, ix, v.w, v.align)
	return out
}

// alignedRun reports whether the w elements from ix start at a multiple of
// w elements, w elements are at most 16 bytes, and the array's start is
// aligned as much: a global array (OpenCL buffers are), or a local one,
// which is then declared aligned.
func alignedRun(s *state, ix *ast.Index, w int, known map[string]int64) bool {
	var ext []int
	var local *ast.Decl
	size := 0
	if q := s.k.Param(ix.Array); q != nil {
		ext, size = q.Extents, q.Type.Size()
	} else {
		for _, st := range s.local.decls {
			if d := st.(*ast.Decl); d.Name == ix.Array {
				local, ext, size = d, d.Extents, d.Type.Size()
			}
		}
	}
	if ext == nil || size*w > 16 || len(ext) != len(ix.Indices) {
		return false
	}
	flat := affineOf(codegen.Linear(ix.Indices, ext))
	if flat.alignment(known)%int64(w) != 0 {
		return false
	}
	if local != nil {
		local.Align = 16
	}
	return true
}

// temp declares a new vector temporary of type t.
func (v *vectorizer) temp(base string, t ast.Type) string {
	name := v.s.fresh(base)
	v.decls = append(v.decls, &ast.Decl{Name: name, Type: t, Mem: ast.Private, Width: v.w})
	return name
}

func (v *vectorizer) assign(as []*ast.Assign, q int) []ast.Stmt {
	a := as[0]
	rhs := make([]ast.Expr, len(as))
	for l := range as {
		rhs[l] = as[l].RHS
	}
	r := v.expr(rhs, q)
	switch lhs := a.LHS.(type) {
	case *ast.Ident:
		name := lhs.Name
		t := v.types[name]
		switch {
		case v.active[name]:
			if !r.vec && a.Op == ast.Set {
				v.active[name] = false
				return []ast.Stmt{&ast.Assign{LHS: ast.Id(name), Op: ast.Set, RHS: r.e}}
			}
			return []ast.Stmt{&ast.Assign{LHS: ast.Id(v.vector[name]), Op: a.Op, RHS: v.convert(r, t).e}}
		case !r.vec && a.Op == ast.Set:
			return []ast.Stmt{&ast.Assign{LHS: ast.Id(name), Op: ast.Set, RHS: r.e}}
		case a.Op == ast.Set:
			if v.vector[name] == "" {
				v.vector[name] = v.temp(name+"_v", t)
			}
			v.active[name] = true
			return []ast.Stmt{&ast.Assign{LHS: ast.Id(v.vector[name]), Op: ast.Set, RHS: v.convert(r, t).e}}
		}
		v.fail("every point of a run accumulates into %s", name)
		return nil
	case *ast.Index:
		ixs := make([]*ast.Index, len(as))
		for l := range as {
			ixs[l] = as[l].LHS.(*ast.Index)
		}
		t := v.types[lhs.Array]
		if v.s.private.perPoint[lhs.Array] {
			return []ast.Stmt{&ast.Assign{LHS: v.perPoint(lhs, q), Op: a.Op, RHS: v.convert(r, t).e}}
		}
		switch v.location(ixs) {
		case "one":
			if r.vec || a.Op != ast.Set {
				v.fail("every point of a run writes %s", ast.ExprString(lhs))
				return nil
			}
			return []ast.Stmt{&ast.Assign{LHS: ast.CloneExpr(lhs), Op: ast.Set, RHS: r.e}}
		case "run":
			return []ast.Stmt{&ast.Assign{LHS: v.load(lhs), Op: a.Op, RHS: v.widen(v.convert(r, t)).e}}
		}
		// Element by element, from a vector temporary.
		var out []ast.Stmt
		val := r.e
		if r.vec {
			if v.scatter == nil {
				v.scatter = map[ast.Type]string{}
			}
			tmp := v.scatter[t]
			if tmp == "" {
				tmp = v.temp("st_v", t)
				v.scatter[t] = tmp
			}
			out = append(out, &ast.Assign{LHS: ast.Id(tmp), Op: ast.Set, RHS: v.convert(r, t).e})
			val = ast.Id(tmp)
		}
		for l, ix := range ixs {
			var e ast.Expr = ast.CloneExpr(val)
			if r.vec {
				e = &ast.Lane{X: e, Lane: l}
			}
			out = append(out, &ast.Assign{LHS: v.scalar(ix, l, q), Op: a.Op, RHS: e})
		}
		return out
	}
	v.fail("cannot merge the assignment to %s", ast.ExprString(a.LHS))
	return nil
}

// cond merges the points' conditions of an if: it must have one value for
// the run. A conjunct that bounds the points' x coordinate (x < N) does
// when the run's first coordinate is a multiple of vec and so is N.
func (v *vectorizer) cond(ls []ast.Expr) ast.Expr {
	if v.uniform(ls) {
		return ast.CloneExpr(ls[0])
	}
	if b, ok := ls[0].(*ast.Binary); ok && b.Op == ast.And {
		x := v.cond(v.children(ls, func(e ast.Expr) ast.Expr { return e.(*ast.Binary).X }))
		y := v.cond(v.children(ls, func(e ast.Expr) ast.Expr { return e.(*ast.Binary).Y }))
		return &ast.Binary{Op: ast.And, X: x, Y: y}
	}
	if b, ok := ls[0].(*ast.Binary); ok && b.Op == ast.Lt && !v.refsVector(b.X) {
		xs := v.children(ls, func(e ast.Expr) ast.Expr { return e.(*ast.Binary).X })
		ys := v.children(ls, func(e ast.Expr) ast.Expr { return e.(*ast.Binary).Y })
		n, isConst := b.Y.(*ast.IntLit)
		if st, ok := steps(xs); ok && consecutive(st) && v.uniform(ys) && isConst && n.Value%int64(v.w) == 0 &&
			affineOf(b.X).alignment(v.align)%int64(v.w) == 0 {
			return ast.CloneExpr(b)
		}
	}
	v.fail("the points of a run take different branches on %s", ast.ExprString(ast.Simplify(ast.CloneExpr(ls[0])).(ast.Expr)))
	return ls[0]
}
