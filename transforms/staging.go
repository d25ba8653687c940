package transforms

import (
	"fmt"
	"strings"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/patterns"
)

var staging = &Pass{
	Name:     "staging",
	Requires: []*Pass{tiling},
	Patterns: true,
	Doc: `With lmem, stages in local memory every read-only array whose references in
the loop body follow a pattern more complex than SinglePat, one local array
per shape of reference, sized as the paper's Table 1 (generalized: lsz*bsz
along a global id, the tile along a loop counter, both for RadiusPat). The
work-group copies each tile cooperatively between two barriers, in
straight-line rounds or, with lcopy, in loops; the references are rewritten
to local indices. A compute section without a loop nest has its arrays read
in a neighbourhood of the point (a stencil's, patterns.Array.Halo) staged:
the work-group's points with the halo, copied once per block. With coff,
each round of a copy indexes its element as the work-item's plus
constants (illegal where no copy has rounds to fold).`,
	Run: func(s *state) error {
		if !s.p.LocalMem {
			if s.p.Transpose {
				return illegal("ltrans=1 needs lmem=1")
			}
			if s.p.CopyOffsets {
				return illegal("coff=1 needs lmem=1")
			}
			return nil
		}
		if err := s.stage(); err != nil {
			return err
		}
		if s.p.CopyOffsets && !s.local.folded {
			return illegal("coff=1: no copy into local memory runs in rounds whose offsets are multiples of its tile's strides (each copies its tile in one round, or the work-group's size is not a multiple of a row): nothing to fold")
		}
		return nil
	},
}

// stage stages the arrays of the loop body, or a stencil's halo without a
// loop nest, in local memory.
func (s *state) stage() error {
	if len(s.loops) == 0 {
		if s.p.Transpose {
			return illegal("ltrans=1: no tile is read along a compute loop (the compute section has no loop nest)")
		}
		return s.stageHalos()
	}
	byIndex := map[int]*nestLoop{}
	for _, l := range s.loops {
		byIndex[l.index] = l
	}
	if s.outer != nil {
		// Its counter is one value for a whole tile of the nest: a
		// constant of the staged tile.
		byIndex[s.outer.index] = s.outer
	}
	var groups []*group
	for _, arr := range s.info.Arrays {
		if arr.Pattern <= patterns.SinglePat || arr.Pattern >= patterns.Unsupported || arr.Written {
			continue
		}
		for _, g := range s.groupRefs(arr, s.body) {
			if s.stageable(g, byIndex) {
				groups = append(groups, g)
			}
		}
	}
	if len(groups) == 0 {
		return illegal("lmem=1: no array of the loop body can be staged in local memory%s", s.whyNotStaged())
	}
	if s.p.Transpose {
		n := 0
		for _, g := range groups {
			if g.perm = transposition(g.subs); g.perm != nil {
				n++
			}
		}
		if n == 0 {
			return illegal("ltrans=1: no staged tile is read along a compute loop after a global id")
		}
	}
	if err := s.declareStaged(groups); err != nil {
		return err
	}
	for _, g := range groups {
		s.local.copies = append(s.local.copies, s.copyIn(g, byIndex))
		s.rewriteStaged(g, byIndex, s.body)
	}
	return nil
}

// stageHalos stages, for a compute section without a loop nest, the
// arrays read in a neighbourhood of the point (patterns.Array.Halo: a
// stencil's in[idy-1][idx], in[idy][idx+1], ...): the work-group's points
// with their halo are copied once into local memory, before the points'
// code, and the references read them there.
func (s *state) stageHalos() error {
	var groups []*group
	for _, arr := range s.info.Arrays {
		if arr.Halo == nil || arr.Written || arr.Pattern != patterns.RadiusPat {
			continue
		}
		for _, g := range s.groupRefs(arr, s.pre, s.post) {
			if s.haloStageable(g) {
				groups = append(groups, g)
			}
		}
	}
	if len(groups) == 0 {
		return illegal("lmem=1: the compute section has no loop, and no array it reads in a neighbourhood of the point (a stencil's in[idy-1][idx], in[idy][idx+1]) to stage in local memory")
	}
	if err := s.declareStaged(groups); err != nil {
		return err
	}
	for _, g := range groups {
		if c := s.copyAlongDims(g); c != nil {
			s.local.copies = append(s.local.copies, c)
		} else {
			s.local.copies = append(s.local.copies, s.copyIn(g, nil))
		}
		s.rewriteStaged(g, nil, s.pre, s.post)
	}
	return nil
}

// copyAlongDims builds the cooperative copy of a halo group whose
// subscripts are the global ids, each once (in[idy+dy][idx+dx]): work-item
// (lidx, lidy) copies the elements lidx, lidx+lszx, ... of each row lidy,
// lidy+lszy, ... of the tile, so that neighbouring work-items copy
// neighbouring elements without dividing a flat index. It returns nil for
// another group (copyIn's flat copy serves it).
func (s *state) copyAlongDims(g *group) ast.Stmt {
	seen := map[int]bool{}
	for _, sub := range g.subs {
		if sub.Kind != patterns.ID || seen[sub.Dim] {
			return nil
		}
		seen[sub.Dim] = true
	}
	if len(seen) != s.dims {
		return nil
	}
	q := s.k.Param(g.arr.Name)
	local := &ast.Index{Array: g.name}
	global := &ast.Index{Array: g.arr.Name}
	var conds []ast.Expr
	type round struct {
		v          string
		trips, lsz int
		ext        int
	}
	var rounds []round
	for d, sub := range g.subs {
		geom := s.geom[sub.Dim]
		v := s.fresh(fmt.Sprintf("i%d_%s", d, g.arr.Name))
		rounds = append(rounds, round{v, (g.ext[d] + geom.lsz - 1) / geom.lsz, geom.lsz, g.ext[d]})
		local.Indices = append(local.Indices, ast.Id(v))
		coord := ast.Sum(ast.Sum(ast.Id(geom.c), ast.IntConst(g.minOff[d])), ast.Id(v))
		global.Indices = append(global.Indices, coord)
		span := geom.lsz * geom.bsz
		if lo := g.minOff[d]; lo < 0 {
			conds = append(conds, ast.Bin(ast.Ge, ast.CloneExpr(coord), ast.IntConst(0)))
		}
		if hi := int(g.minOff[d]) + (geom.N-1)/span*span + g.ext[d] - 1; hi >= q.Extents[d] {
			conds = append(conds, ast.Bin(ast.Lt, ast.CloneExpr(coord), ast.IntConst(int64(q.Extents[d]))))
		}
	}
	// copyAt is the copy of the elements at the local indices of the rounds'
	// variables, guarded where a round can pass the tile (partial: per
	// dimension) and where the tile can pass the array.
	copyAt := func(partial []bool) ast.Stmt {
		var c []ast.Expr
		for d, r := range rounds {
			if partial[d] {
				c = append(c, ast.Bin(ast.Lt, ast.Id(r.v), ast.IntConst(int64(r.ext))))
			}
		}
		var st ast.Stmt = &ast.Assign{LHS: ast.CloneExpr(local), Op: ast.Set, RHS: ast.CloneExpr(global)}
		if c := all(append(c, cloneAll(conds)...)); c != nil {
			st = &ast.If{Cond: c, Then: ast.NewBlock(st)}
		}
		return st
	}
	lid := func(d int) ast.Expr { return &ast.Special{Kind: ast.LocalID, Dim: g.subs[d].Dim} }
	total := 1
	for _, r := range rounds {
		total *= r.trips
	}
	if total <= maxUnrolledCopies && !s.p.LoopCopy {
		// Straight-line rounds, as copyIn's.
		var out []ast.Stmt
		partial := make([]bool, len(rounds))
		var rec func(d int, repl map[string]ast.Expr)
		rec = func(d int, repl map[string]ast.Expr) {
			if d == len(rounds) {
				out = append(out, ast.SubstituteStmt(copyAt(partial), repl))
				return
			}
			r := rounds[d]
			for k := 0; k < r.trips; k++ {
				next := map[string]ast.Expr{}
				for n, e := range repl {
					next[n] = e
				}
				next[r.v] = ast.Sum(lid(d), ast.IntConst(int64(k*r.lsz)))
				partial[d] = (k+1)*r.lsz > r.ext
				rec(d+1, next)
			}
		}
		rec(0, map[string]ast.Expr{})
		return ast.NewBlock(out...)
	}
	partial := make([]bool, len(rounds))
	for d, r := range rounds {
		partial[d] = r.ext%r.lsz != 0
	}
	var body ast.Stmt = copyAt(partial)
	for d := len(rounds) - 1; d >= 0; d-- {
		r := rounds[d]
		// No #pragma unroll: the loop starts at the local id.
		body = ast.Loop(ast.CopyLoop, r.v, lid(d), ast.IntConst(int64(r.trips*r.lsz)), ast.IntConst(int64(r.lsz)), body)
	}
	return body
}

// Halos returns the arrays that lmem stages in local memory in prob's
// kernel although its compute section has no loop nest: the read-only
// arrays it reads in a neighbourhood of the point (patterns.Array.Halo),
// sorted. It returns none for a kernel with a loop nest, whose staging
// follows the loops.
func Halos(prob *Problem) ([]string, error) {
	s, err := newState(prob, Baseline(prob))
	if err != nil || len(s.loops) > 0 || len(s.info.Unsupported) > 0 {
		return nil, err
	}
	var out []string
	for _, arr := range s.info.Arrays {
		if arr.Halo == nil || arr.Written || arr.Pattern != patterns.RadiusPat {
			continue
		}
		for _, g := range s.groupRefs(arr, s.pre, s.post) {
			if s.haloStageable(g) {
				out = append(out, arr.Name)
				break
			}
		}
	}
	return out, nil
}

// groupRefs groups the classified references to arr in parts by the shape
// of their subscripts (shapeKey), in the order they first appear.
func (s *state) groupRefs(arr *patterns.Array, parts ...[]ast.Stmt) []*group {
	in := map[*ast.Index]bool{}
	for _, part := range parts {
		for _, st := range part {
			ast.Inspect(st, func(n ast.Node) bool {
				if ix, ok := n.(*ast.Index); ok {
					in[ix] = true
				}
				return true
			})
		}
	}
	keyed := map[string]*group{}
	var order []*group
	for _, r := range arr.Refs {
		if !in[s.clones.index[r.Node]] || r.Pattern == patterns.Unsupported {
			continue
		}
		key := shapeKey(r)
		g := keyed[key]
		if g == nil {
			g = &group{arr: arr, subs: r.Subs, refs: map[*ast.Index]*patterns.Ref{}}
			for _, sub := range r.Subs {
				g.minOff = append(g.minOff, sub.Offset)
				g.maxOff = append(g.maxOff, sub.Offset)
			}
			keyed[key] = g
			order = append(order, g)
		}
		g.refs[s.clones.index[r.Node]] = r
		for d, sub := range r.Subs {
			g.minOff[d] = min(g.minOff[d], sub.Offset)
			g.maxOff[d] = max(g.maxOff[d], sub.Offset)
		}
	}
	return order
}

// declareStaged names the local arrays of groups and declares them,
// within the device's local memory.
func (s *state) declareStaged(groups []*group) error {
	pad := 1
	if s.p.Pack {
		pad = 4 // rows stay multiples of 4 elements, for aligned float4 reads
	}
	for _, g := range groups {
		g.name = s.fresh("l_" + g.arr.Name)
		s.local.arrays = append(s.local.arrays, g.name)
		d := &ast.Decl{Name: g.name, Type: s.k.Param(g.arr.Name).Type, Mem: ast.Local, Extents: padded(permute(g.ext, g.perm), pad)}
		s.local.bytes += d.Bytes()
		s.local.decls = append(s.local.decls, d)
	}
	if lim := s.prob.LocalMem; lim > 0 && s.local.bytes > lim {
		return illegal("lmem=1 needs %d bytes of local memory; the device has %d", s.local.bytes, lim)
	}
	return nil
}

// whyNotStaged says why the arrays read in the loop body along a compute
// loop cannot be staged, when a loop they use is not in the main nest: ""
// otherwise.
func (s *state) whyNotStaged() string {
	inNest := map[int]bool{}
	for _, l := range s.loops {
		inNest[l.index] = true
	}
	for _, arr := range s.info.Arrays {
		if arr.Written || arr.Pattern <= patterns.SinglePat || arr.Pattern >= patterns.Unsupported {
			continue
		}
		for _, r := range arr.Refs {
			for _, sub := range r.Subs {
				if (sub.Kind == patterns.Counter || sub.Kind == patterns.IDCounter) && !inNest[sub.Loop] {
					l := s.info.Loops[sub.Loop]
					where := "it is not in the main compute loop nest"
					if p := l.Parent; p >= 0 && inNest[p] {
						where = fmt.Sprintf("it is not in the main compute loop nest: loop %s holds other statements around it, and the passes tile and stage only a perfect nest", s.info.Loops[p].Var)
					}
					return fmt.Sprintf(" (%s reads along loop %s, and %s)", ast.ExprString(r.Node), l.Var, where)
				}
			}
		}
	}
	return ""
}

// group is the set of references to one array with one shape of subscripts,
// staged together in one local array.
type group struct {
	arr            *patterns.Array
	subs           []patterns.Subscript // the shape (offsets ignored)
	minOff, maxOff []int64
	refs           map[*ast.Index]*patterns.Ref // by the reference's node in the clone
	name           string
	ext            []int // the tile's extent per subscript
	// perm, when not nil, is the order of the local array's dimensions
	// (ltrans): dimension i holds subscript perm[i] of the references.
	perm []int
}

// transposition returns the order of a transposed tile's dimensions: a
// tile whose last subscript is a loop counter is stored with the last
// subscript along a global id moved to the end, so that the points of a
// work-item along that id read neighbouring elements. Nil when the tile is
// not read that way.
func transposition(subs []patterns.Subscript) []int {
	n := len(subs)
	if n < 2 || subs[n-1].Kind != patterns.Counter {
		return nil
	}
	for d := n - 2; d >= 0; d-- {
		if k := subs[d].Kind; k == patterns.ID || k == patterns.IDCounter {
			perm := make([]int, n)
			for i := range perm {
				perm[i] = i
			}
			perm[d], perm[n-1] = n-1, d
			return perm
		}
	}
	return nil
}

// Transposable reports whether ltrans can act on prob's kernel: an array
// it only reads has a reference whose last subscript is a loop counter
// after a global id (a[idy][k]), the tile that ltrans stores transposed.
func Transposable(prob *Problem) bool {
	info, err := prob.info()
	if err != nil {
		return false
	}
	for _, arr := range info.Arrays {
		if arr.Written || arr.Pattern <= patterns.SinglePat || arr.Pattern >= patterns.Unsupported {
			continue
		}
		for _, r := range arr.Refs {
			if transposition(r.Subs) != nil {
				return true
			}
		}
	}
	return false
}

// permute returns xs in the order perm (xs itself for nil).
func permute[T any](xs []T, perm []int) []T {
	if perm == nil {
		return xs
	}
	out := make([]T, len(xs))
	for i, p := range perm {
		out[i] = xs[p]
	}
	return out
}

// shapeKey identifies the shape of a reference's subscripts.
func shapeKey(r *patterns.Ref) string {
	var b strings.Builder
	for _, sub := range r.Subs {
		fmt.Fprintf(&b, "%d.%d.%d|", sub.Kind, sub.Dim, sub.Loop)
	}
	return b.String()
}

// stageable decides whether a group can live in local memory and sets its
// extents.
func (s *state) stageable(g *group, byIndex map[int]*nestLoop) bool {
	counter := false
	g.ext = make([]int, len(g.subs))
	for d, sub := range g.subs {
		spread := int(g.maxOff[d] - g.minOff[d])
		switch sub.Kind {
		case patterns.Const:
			g.ext[d] = spread + 1
		case patterns.ID, patterns.IDCounter:
			geom := s.geom[sub.Dim]
			g.ext[d] = geom.lsz*geom.bsz + spread
			if sub.Kind == patterns.ID {
				break
			}
			fallthrough
		case patterns.Counter:
			l := byIndex[sub.Loop]
			if l == nil || l.T <= 0 || l.outer && sub.Kind == patterns.IDCounter {
				return false
			}
			counter = counter || !l.outer
			if sub.Kind == patterns.IDCounter {
				g.ext[d] += l.T - 1
			} else {
				g.ext[d] = l.T + spread
			}
		default:
			return false
		}
	}
	return counter
}

// haloStageable decides whether a group of references without loop
// counters, read around the points at several offsets, can live in local
// memory, and sets its extents: the work-group's points plus the spread of
// the offsets along each global id, the spread along a constant subscript.
func (s *state) haloStageable(g *group) bool {
	spread := false
	g.ext = make([]int, len(g.subs))
	for d, sub := range g.subs {
		width := int(g.maxOff[d] - g.minOff[d])
		switch sub.Kind {
		case patterns.Const:
			g.ext[d] = width + 1
		case patterns.ID:
			geom := s.geom[sub.Dim]
			g.ext[d] = geom.lsz*geom.bsz + width
			spread = spread || width > 0
		default:
			return false
		}
	}
	return spread
}

// flatLocalID is the work-item's index in its work-group, x fastest.
func (s *state) flatLocalID() ast.Expr {
	var e ast.Expr = ast.IntConst(0)
	stride := 1
	for d := 0; d < s.dims; d++ {
		e = ast.Sum(e, ast.Product(&ast.Special{Kind: ast.LocalID, Dim: d}, ast.IntConst(int64(stride))))
		stride *= s.geom[d].lsz
	}
	return e
}

// maxUnrolledCopies is the most rounds of a copy into local memory that are
// written out as straight-line code; longer copies stay loops.
const maxUnrolledCopies = 16

// copyIn builds the cooperative copy of one tile of g into local memory.
func (s *state) copyIn(g *group, byIndex map[int]*nestLoop) ast.Stmt {
	wg := 1
	for d := 0; d < s.dims; d++ {
		wg *= s.geom[d].lsz
	}
	total := 1
	for _, e := range g.ext {
		total *= e
	}
	// Each work-item copies the elements flat + r*wg for r = 0, 1, ...:
	// a loop of a constant trip count that the compiler unrolls, so that
	// the element indices fold to constants plus the flat local id.
	e := s.fresh("e_" + g.arr.Name)
	r := s.fresh("r_" + g.arr.Name)
	trips := (total + wg - 1) / wg
	body := []ast.Stmt{ast.IntDecl(e, ast.Sum(s.flatLocalID(), ast.Product(ast.Id(r), ast.IntConst(int64(wg)))))}
	local := &ast.Index{Array: g.name}
	global := &ast.Index{Array: g.arr.Name}
	q := s.k.Param(g.arr.Name)
	var conds []ast.Expr
	stride := total
	for d, sub := range g.subs {
		stride /= g.ext[d]
		i, folded := s.copyIndex(e, r, wg, stride, g.ext[d], d > 0)
		s.local.folded = s.local.folded || folded && trips > 1
		iv := s.fresh(fmt.Sprintf("i%d_%s", d, g.arr.Name))
		body = append(body, ast.IntDecl(iv, i))
		local.Indices = append(local.Indices, ast.Id(iv))
		// The global coordinate of local index iv, and its static range.
		base, lo, hi := ast.Expr(ast.IntConst(g.minOff[d])), int(g.minOff[d]), int(g.minOff[d])
		if sub.Kind == patterns.ID || sub.Kind == patterns.IDCounter {
			geom := s.geom[sub.Dim]
			base = ast.Sum(ast.Id(geom.c), base)
			span := geom.lsz * geom.bsz
			hi += (geom.N - 1) / span * span
		}
		if sub.Kind == patterns.Counter || sub.Kind == patterns.IDCounter {
			l := byIndex[sub.Loop]
			base = ast.Sum(l.tileBase(), base)
			if l.known {
				lo0, _ := evalInt(l.Lo, nil)
				lo += lo0
				hi += lo0 + (l.length-1)/l.T*l.T
			} else {
				lo, hi = -1, q.Extents[d] // unknown: guard both ends
			}
		}
		hi += g.ext[d] - 1
		coord := ast.Sum(base, ast.Id(iv))
		global.Indices = append(global.Indices, coord)
		if lo < 0 {
			conds = append(conds, ast.Bin(ast.Ge, ast.CloneExpr(coord), ast.IntConst(0)))
		}
		if hi >= q.Extents[d] {
			conds = append(conds, ast.Bin(ast.Lt, ast.CloneExpr(coord), ast.IntConst(int64(q.Extents[d]))))
		}
	}
	local.Indices = permute(local.Indices, g.perm)
	var copyStmt ast.Stmt = &ast.Assign{LHS: local, Op: ast.Set, RHS: global}
	if c := all(conds); c != nil {
		copyStmt = &ast.If{Cond: c, Then: ast.NewBlock(copyStmt)}
	}
	body = append(body, copyStmt)
	if total%wg != 0 { // the last round has fewer elements than work-items
		body[len(body)-1] = &ast.If{Cond: ast.Bin(ast.Lt, ast.Id(e), ast.IntConst(int64(total))), Then: ast.NewBlock(copyStmt)}
	}
	if trips <= maxUnrolledCopies && !s.p.LoopCopy {
		// Unrolled here rather than by the OpenCL compiler (lcopy=0):
		// NVIDIA's compiler, given the loop with #pragma unroll, produced
		// SGEMM code 15% slower than from these straight-line copies for
		// some tiles and faster for others (see
		// docs/results/h100/layout-experiment), so the search chooses.
		var out []ast.Stmt
		for round := 0; round < trips; round++ {
			repl := map[string]ast.Expr{e: ast.Sum(s.flatLocalID(), ast.IntConst(int64(round*wg))), r: ast.IntConst(int64(round))}
			for _, st := range body[1 : len(body)-1] {
				d := st.(*ast.Decl)
				repl[d.Name] = ast.Substitute(d.Init, repl)
			}
			out = append(out, ast.SubstituteStmt(body[len(body)-1], repl))
		}
		return ast.NewBlock(out...)
	}
	unroll := -1 // #pragma unroll: fully
	if trips > 64 {
		unroll = 0
	}
	return &ast.For{Var: r, Lo: ast.IntConst(0), Hi: ast.IntConst(int64(trips)), Step: ast.IntConst(1), Body: ast.NewBlock(body...), Role: ast.CopyLoop, Unroll: unroll}
}

// copyIndex is the local index along one dimension of a tile (of stride
// stride in the tile's flat order and extent ext; rem: taken modulo ext, as
// every dimension's but the first) of the element e = flat + r*wg that the
// work-item of flat local id flat copies in round r of a copy by wg
// work-items: e / stride, modulo ext with rem. With coff, where wg is a
// multiple of stride, it is flat/stride + r*(wg/stride), and only
// (flat/stride) % ext with rem when wg/stride is a multiple of ext too: in
// each round the work-item's own index plus a constant, which the compiler
// cannot find in e / stride, not knowing that flat is never negative.
// folded says that coff took something out of a round's index: a
// division by the stride, or the remainder's constant (a stride of 1
// with the remainder kept is the same code as without coff).
func (s *state) copyIndex(e, r string, wg, stride, ext int, rem bool) (i ast.Expr, folded bool) {
	if !s.p.CopyOffsets || wg%stride != 0 {
		i := ast.Bin(ast.Div, ast.Id(e), ast.IntConst(int64(stride)))
		if rem {
			i = ast.Bin(ast.Rem, i, ast.IntConst(int64(ext)))
		}
		return i, false
	}
	q := s.flatLocalID()
	if stride > 1 {
		q = ast.Bin(ast.Div, q, ast.IntConst(int64(stride)))
	}
	k := wg / stride
	if rem && k%ext == 0 {
		return ast.Bin(ast.Rem, q, ast.IntConst(int64(ext))), true
	}
	q = ast.Sum(q, ast.Product(ast.Id(r), ast.IntConst(int64(k))))
	if rem {
		q = ast.Bin(ast.Rem, q, ast.IntConst(int64(ext)))
	}
	return q, stride > 1
}

// rewriteStaged replaces g's references in parts by local ones.
func (s *state) rewriteStaged(g *group, byIndex map[int]*nestLoop, parts ...[]ast.Stmt) {
	for _, part := range parts {
		s.rewriteRefs(g, byIndex, part)
	}
}

func (s *state) rewriteRefs(g *group, byIndex map[int]*nestLoop, part []ast.Stmt) {
	for i, st := range part {
		part[i] = ast.Apply(st, nil, func(c *ast.Cursor) bool {
			ix, ok := c.Node().(*ast.Index)
			if !ok {
				return true
			}
			r := g.refs[ix]
			if r == nil {
				return true
			}
			out := &ast.Index{Array: g.name}
			for d, sub := range r.Subs {
				var e ast.Expr = ast.IntConst(sub.Offset - g.minOff[d])
				if sub.Kind == patterns.ID || sub.Kind == patterns.IDCounter {
					e = ast.Sum(s.pointOffset(sub.Dim), e)
				}
				if sub.Kind == patterns.Counter || sub.Kind == patterns.IDCounter {
					if l := byIndex[sub.Loop]; !l.outer {
						e = ast.Sum(ast.Bin(ast.Sub, ast.Id(l.Var), l.tileBase()), e)
					}
				}
				out.Indices = append(out.Indices, e)
			}
			out.Indices = permute(out.Indices, g.perm)
			c.Replace(out)
			return true
		}).(ast.Stmt)
	}
}

// padded returns the declared extents of a local array: a row whose length
// is a multiple of 16 gets pad more elements (1, or 4 with pack so that rows
// keep float4 alignment), so that work-items reading a column
// (l_a[lidy + 16*i][k]) hit different memory banks.
func padded(ext []int, pad int) []int {
	out := append([]int(nil), ext...)
	if n := len(out); n >= 2 && out[n-1]%16 == 0 {
		out[n-1] += pad
	}
	return out
}
