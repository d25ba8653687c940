package transforms

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/patterns"
)

var tiling = &Pass{
	Name: "tiling",
	Doc: `Splits each loop of the main compute nest into a tile loop and an element
loop (Figure 4), with the bound min(tile+tW, end) when tW does not divide the
loop. Tile loops are hoisted outside the element loops; when that reorders
iterations (any loop but the outermost is split) the body must be a reduction.`,
	Run: func(s *state) error {
		for i, l := range s.loops {
			lo, okLo := evalInt(l.Lo, s.prob.Ints)
			hi, okHi := evalInt(l.Hi, s.prob.Ints)
			if okLo && okHi {
				l.known, l.length = true, max(0, hi-lo)
				l.Lo, l.Hi = ast.IntConst(int64(lo)), ast.IntConst(int64(hi))
			}
			t := s.p.Tile[i]
			if t > 0 && l.known && t > l.length {
				return illegal("tw%d=%d exceeds the %d iterations of loop %s", i, t, l.length, l.Var)
			}
			if t > 0 && (!l.known || t < l.length) {
				l.split, l.T = true, t
				l.tile = s.fresh(l.Var + "_t")
			} else if l.known {
				l.T = l.length
			}
		}
		for i, l := range s.loops {
			if l.split && i > 0 {
				if why := reduction(s.body); why != "" {
					return illegal("tw%d=%d reorders the iterations of the loop nest, but its body is not a reduction: %s", i, l.T, why)
				}
				break
			}
		}
		for _, l := range s.loops {
			e := &ast.For{Var: l.Var, Lo: l.Lo, Hi: l.Hi, Step: ast.IntConst(1), Role: ast.ElementLoop}
			if l.split {
				e.Lo = ast.Id(l.tile)
				end := ast.Sum(ast.Id(l.tile), ast.IntConst(int64(l.T)))
				if l.known && l.length%l.T == 0 {
					e.Hi = end
				} else {
					e.Hi = ast.Min(end, ast.CloneExpr(l.Hi))
				}
			}
			l.elem = e
		}
		return nil
	},
}

// tileBase is the first iteration of loop l's current tile.
func (l *nestLoop) tileBase() ast.Expr {
	if l.split {
		return ast.Id(l.tile)
	}
	return ast.CloneExpr(l.Lo)
}

// reduction returns "" if the statements' iterations can be reordered: every
// assignment either sets a temporary before it is read in the same
// iteration, or accumulates (+=, -=) into a location that nothing else in the
// body reads. Otherwise it says why not.
func reduction(body []ast.Stmt) string {
	why := ""
	for _, st := range body {
		ast.Inspect(st, func(n ast.Node) bool {
			a, ok := n.(*ast.Assign)
			if !ok || why != "" {
				return why == ""
			}
			switch a.Op {
			case ast.Set:
				id, ok := a.LHS.(*ast.Ident)
				if !ok || !localTemp(body, id.Name, false) {
					why = fmt.Sprintf("%s is assigned with = but is not a temporary", ast.ExprString(a.LHS))
				}
			case ast.AddSet, ast.SubSet:
				name, isArray := "", false
				switch l := a.LHS.(type) {
				case *ast.Ident:
					name = l.Name
				case *ast.Index:
					name, isArray = l.Array, true
				}
				reads := 0
				for _, other := range body {
					ast.Inspect(other, func(m ast.Node) bool {
						switch m := m.(type) {
						case *ast.Ident:
							if !isArray && m.Name == name {
								reads++
							}
						case *ast.Index:
							if isArray && m.Array == name {
								reads++
							}
						}
						return true
					})
				}
				if reads > 1 {
					why = fmt.Sprintf("%s accumulates but is also read in the loop body", ast.ExprString(a.LHS))
				}
			default:
				why = fmt.Sprintf("%s %s is not an accumulation", ast.ExprString(a.LHS), a.Op)
			}
			return why == ""
		})
	}
	return why
}

// group is the set of references to one array with one shape of subscripts,
// staged together in one local array.
type group struct {
	arr            *patterns.Array
	subs           []patterns.Subscript // the shape (offsets ignored)
	minOff, maxOff []int64
	refs           map[*ast.Index]*patterns.Ref
	name           string
	ext            []int
}

func shapeKey(r *patterns.Ref) string {
	var b strings.Builder
	for _, sub := range r.Subs {
		fmt.Fprintf(&b, "%d.%d.%d|", sub.Kind, sub.Dim, sub.Loop)
	}
	return b.String()
}

var localMemory = &Pass{
	Name:     "local memory",
	Requires: []string{"tiling"},
	Doc: `Stages in local memory every read-only array whose references in the loop
body follow a pattern more complex than SinglePat, one local array per shape
of reference, sized as the paper's Table 1 (generalized: lsz*bsz along a
global id, the tile along a loop counter, both for RadiusPat). The
work-group copies each tile cooperatively between two barriers; the
references are rewritten to local indices.`,
	Run: func(s *state) error {
		if !s.p.LocalMem {
			return nil
		}
		inBody := map[*ast.Index]bool{}
		for _, st := range s.body {
			ast.Inspect(st, func(n ast.Node) bool {
				if ix, ok := n.(*ast.Index); ok {
					inBody[ix] = true
				}
				return true
			})
		}
		byIndex := map[int]*nestLoop{}
		for _, l := range s.loops {
			byIndex[l.index] = l
		}
		var groups []*group
		for _, arr := range s.info.Arrays {
			if arr.Pattern <= patterns.SinglePat || arr.Pattern >= patterns.Unsupported || arr.Written {
				continue
			}
			keyed := map[string]*group{}
			var order []string
			for _, r := range arr.Refs {
				if !inBody[r.Node] {
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
					order = append(order, key)
				}
				g.refs[r.Node] = r
				for d, sub := range r.Subs {
					g.minOff[d] = min(g.minOff[d], sub.Offset)
					g.maxOff[d] = max(g.maxOff[d], sub.Offset)
				}
			}
			for _, key := range order {
				g := keyed[key]
				if s.stageable(g, byIndex) {
					groups = append(groups, g)
				}
			}
		}
		if len(groups) == 0 {
			return illegal("lmem=1: no array of the loop body can be staged in local memory")
		}
		for _, g := range groups {
			g.name = s.fresh("l_" + g.arr.Name)
			s.staged = append(s.staged, g.name)
			elems := int64(1)
			for _, e := range padded(g.ext) {
				elems *= int64(e)
			}
			q := s.k.Param(g.arr.Name)
			s.localBytes += elems * int64(q.Type.Size())
			s.decls = append(s.decls, &ast.Decl{Name: g.name, Type: q.Type, Mem: ast.Local, Extents: padded(g.ext)})
		}
		if lim := s.prob.LocalMem; lim > 0 && s.localBytes > lim {
			return illegal("lmem=1 needs %d bytes of local memory; the device has %d", s.localBytes, lim)
		}
		for _, g := range groups {
			s.staging = append(s.staging, s.copyIn(g, byIndex))
			s.rewriteStaged(g, byIndex)
		}
		return nil
	},
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
			if l == nil || l.T <= 0 {
				return false
			}
			counter = true
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
		var i ast.Expr = ast.Bin(ast.Div, ast.Id(e), ast.IntConst(int64(stride)))
		if d > 0 {
			i = ast.Bin(ast.Rem, i, ast.IntConst(int64(g.ext[d])))
		}
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
			repl := map[string]ast.Expr{e: ast.Sum(s.flatLocalID(), ast.IntConst(int64(round*wg)))}
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

// all is the conjunction of conds, nil for none.
func all(conds []ast.Expr) ast.Expr {
	var c ast.Expr
	for _, x := range conds {
		if c == nil {
			c = x
		} else {
			c = &ast.Binary{Op: ast.And, X: c, Y: x}
		}
	}
	return c
}

// chunk is the number of a work-item's points that lie side by side along
// dimension d: bsz without interleave, 1 with plain interleave, vw (at most
// bsz) with interleaved runs.
func (s *state) chunk(d int) int {
	g := s.geom[d]
	if !s.p.Interleave {
		return g.bsz
	}
	return max(1, min(s.p.Chunk, g.bsz))
}

// pointOffset is the offset of the current point in the work-group's block
// along dimension d: lid*bsz + p, or lid + p*lsz when interleaved, or in
// general (p/vw)*lsz*vw + lid*vw + p%vw.
func (s *state) pointOffset(d int) ast.Expr {
	g := s.geom[d]
	lid := &ast.Special{Kind: ast.LocalID, Dim: d}
	if g.bsz == 1 {
		return lid
	}
	return ast.Sum(ast.Product(lid, ast.IntConst(int64(s.chunk(d)))), s.pointStep(d))
}

// pointStep is the offset of the current point from the work-item's first
// point along dimension d: p side by side, p*lsz interleaved, and
// (p/vw)*lsz*vw + p%vw for runs of vw.
func (s *state) pointStep(d int) ast.Expr {
	g := s.geom[d]
	p := ast.Id(g.p)
	switch c := s.chunk(d); {
	case c == g.bsz:
		return p
	case c == 1:
		return ast.Product(p, ast.IntConst(int64(g.lsz)))
	default:
		run := ast.Product(ast.Bin(ast.Div, p, ast.IntConst(int64(c))), ast.IntConst(int64(g.lsz*c)))
		return ast.Sum(run, ast.Bin(ast.Rem, ast.Id(g.p), ast.IntConst(int64(c))))
	}
}

// coord is the coordinate of the current point along dimension d: the
// work-item's block base b plus the point's step from it (pointStep).
func (s *state) coord(d int) ast.Expr {
	g := s.geom[d]
	var e ast.Expr = ast.Id(g.b)
	if g.bsz > 1 {
		e = ast.Sum(e, s.pointStep(d))
	}
	return e
}

// blockBase is the work-item's first point along dimension d, given the
// work-group's block base c.
func (s *state) blockBase(d int) ast.Expr {
	g := s.geom[d]
	lid := &ast.Special{Kind: ast.LocalID, Dim: d}
	return ast.Sum(ast.Id(g.c), ast.Product(lid, ast.IntConst(int64(s.chunk(d)))))
}

// rewriteStaged replaces g's references in the loop body by local ones.
func (s *state) rewriteStaged(g *group, byIndex map[int]*nestLoop) {
	for i, st := range s.body {
		s.body[i] = ast.Apply(st, nil, func(c *ast.Cursor) bool {
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
					l := byIndex[sub.Loop]
					e = ast.Sum(ast.Bin(ast.Sub, ast.Id(l.Var), l.tileBase()), e)
				}
				out.Indices = append(out.Indices, e)
			}
			c.Replace(out)
			return true
		}).(ast.Stmt)
	}
}

var coarsening = &Pass{
	Name:     "coarsening",
	Requires: []string{"local memory"},
	Doc: `Distributes blocks of bszx*bszy*bszz points block-cyclically over
szx*szy*szz work-items (Figure 7): global ids become point coordinates. The
cyclic loop is dropped when a work-item gets one block, the point loop when
a block has one point. Variables whose values live across the parts of the
compute section are held once per point.`,
	Run: func(s *state) error {
		repl := map[string]ast.Expr{}
		for d := 0; d < s.dims; d++ {
			g := s.geom[d]
			repl[(&ast.Special{Kind: ast.GlobalID, Dim: d}).Name()] = s.coord(d)
			repl[(&ast.Special{Kind: ast.GlobalSize, Dim: d}).Name()] = ast.IntConst(int64(g.N))
		}
		for _, part := range []*[]ast.Stmt{&s.pre, &s.body, &s.post} {
			for i, st := range *part {
				(*part)[i] = ast.SubstituteStmt(st, repl)
			}
		}
		for _, l := range s.loops {
			if refs(s.pre, l.Var) || refs(s.post, l.Var) {
				return illegal("loop counter %s is used outside its loop", l.Var)
			}
		}
		// Declarations at the top of the compute section move to its
		// start, so that every part sees them.
		for _, part := range []*[]ast.Stmt{&s.pre, &s.post} {
			var kept []ast.Stmt
			for _, st := range *part {
				d, ok := st.(*ast.Decl)
				if !ok {
					kept = append(kept, st)
					continue
				}
				if len(d.Extents) > 0 {
					if s.points > 1 {
						return illegal("the private array %s declared in the compute section cannot be held per point", d.Name)
					}
					s.decls = append(s.decls, d)
					continue
				}
				s.decls = append(s.decls, &ast.Decl{Name: d.Name, Type: d.Type, Mem: d.Mem})
				if d.Init != nil {
					kept = append(kept, &ast.Assign{LHS: ast.Id(d.Name), Op: ast.Set, RHS: d.Init})
				}
			}
			*part = kept
		}
		if s.points == 1 {
			return nil
		}
		// Expand the variables assigned in the compute section that carry
		// values from one part to another.
		types := map[string]ast.Type{}
		for _, st := range s.decls {
			if d, ok := st.(*ast.Decl); ok {
				types[d.Name] = d.Type
			}
		}
		ast.Inspect(s.k.Body, func(n ast.Node) bool {
			if d, ok := n.(*ast.Decl); ok {
				types[d.Name] = d.Type
			}
			return true
		})
		var vars []string
		seen := map[string]bool{}
		for _, part := range [][]ast.Stmt{s.pre, s.body, s.post} {
			for _, st := range part {
				ast.Inspect(st, func(n ast.Node) bool {
					if a, ok := n.(*ast.Assign); ok {
						if id, ok := a.LHS.(*ast.Ident); ok && !seen[id.Name] {
							seen[id.Name] = true
							vars = append(vars, id.Name)
						}
					}
					return true
				})
			}
		}
		for _, v := range vars {
			var in [][]ast.Stmt
			for _, part := range [][]ast.Stmt{s.pre, s.body, s.post} {
				if refs(part, v) {
					in = append(in, part)
				}
			}
			if len(in) == 1 && localTemp(in[0], v, false) {
				continue
			}
			s.expand(v+"_p", types[v], func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				return ok && id.Name == v
			})
		}
		return nil
	},
}

// expand holds a value per point: references that match are replaced by an
// element of a private array indexed by the point offsets. It returns the
// per-point reference for the current point.
func (s *state) expand(base string, t ast.Type, match func(ast.Node) bool) ast.Expr {
	name := s.fresh(base)
	var ext []int
	var idx []ast.Expr
	for d := s.dims - 1; d >= 0; d-- {
		if g := s.geom[d]; g.bsz > 1 {
			ext = append(ext, g.bsz)
			idx = append(idx, ast.Id(g.p))
		}
	}
	s.decls = append(s.decls, &ast.Decl{Name: name, Type: t, Mem: ast.Private, Extents: ext})
	s.expanded[name] = &expansion{name: name, typ: t}
	ref := func() ast.Expr { return &ast.Index{Array: name, Indices: cloneAll(idx)} }
	for _, part := range []*[]ast.Stmt{&s.pre, &s.body, &s.post} {
		for i, st := range *part {
			(*part)[i] = ast.Apply(st, nil, func(c *ast.Cursor) bool {
				if match(c.Node()) {
					c.Replace(ref())
				}
				return true
			}).(ast.Stmt)
		}
	}
	return ref()
}

func cloneAll(xs []ast.Expr) []ast.Expr {
	out := make([]ast.Expr, len(xs))
	for i, x := range xs {
		out[i] = ast.CloneExpr(x)
	}
	return out
}

var privateMemory = &Pass{
	Name:     "private memory",
	Requires: []string{"coarsening"},
	Doc: `Holds in private memory the elements of arrays that the compute section both
reads and writes at the point's own position (SinglePat): one private value
per point, loaded before the compute section if it is read before written,
and stored back after it.`,
	Run: func(s *state) error {
		for _, arr := range s.info.Arrays {
			if !arr.Read || !arr.Written || arr.Pattern != patterns.SinglePat {
				continue
			}
			if !ownElement(arr, s.dims) {
				continue
			}
			q := s.k.Param(arr.Name)
			// The element of the current point, as the coarsened code spells it.
			elem := &ast.Index{Array: arr.Name}
			for _, sub := range arr.Refs[0].Subs {
				var e ast.Expr = ast.IntConst(sub.Offset)
				if sub.Kind == patterns.ID {
					e = ast.Sum(s.coord(sub.Dim), e)
				}
				elem.Indices = append(elem.Indices, e)
			}
			whole := append(append(append([]ast.Stmt{}, s.pre...), ast.NewBlock(s.body...)), s.post...)
			needLoad := !localTemp(whole, arr.Name, true)
			var ref ast.Expr
			match := func(n ast.Node) bool {
				ix, ok := n.(*ast.Index)
				return ok && ix.Array == arr.Name
			}
			if s.points > 1 {
				ref = s.expand("p_"+arr.Name, q.Type, match)
			} else {
				name := s.fresh("p_" + arr.Name)
				s.decls = append(s.decls, &ast.Decl{Name: name, Type: q.Type, Mem: ast.Private})
				ref = ast.Id(name)
				for _, part := range []*[]ast.Stmt{&s.pre, &s.body, &s.post} {
					for i, st := range *part {
						(*part)[i] = ast.Apply(st, nil, func(c *ast.Cursor) bool {
							if match(c.Node()) {
								c.Replace(ast.Id(name))
							}
							return true
						}).(ast.Stmt)
					}
				}
			}
			if needLoad {
				s.loads = append(s.loads, &ast.Assign{LHS: ast.CloneExpr(ref), Op: ast.Set, RHS: ast.CloneExpr(elem)})
			}
			s.stores = append(s.stores, &ast.Assign{LHS: elem, Op: ast.Set, RHS: ref})
			s.promoted = append(s.promoted, arr.Name)
		}
		return nil
	},
}

// ownElement reports whether every reference of arr names the same element,
// indexed by every global id of the domain: the element belongs to one point.
func ownElement(arr *patterns.Array, dims int) bool {
	first := arr.Refs[0].Subs
	ids := map[int]bool{}
	for _, sub := range first {
		switch sub.Kind {
		case patterns.ID:
			ids[sub.Dim] = true
		case patterns.Const:
		default:
			return false
		}
	}
	if len(ids) != dims {
		return false
	}
	for _, r := range arr.Refs[1:] {
		if len(r.Subs) != len(first) {
			return false
		}
		for d, sub := range r.Subs {
			if sub.Kind != first[d].Kind || sub.Dim != first[d].Dim || sub.Offset != first[d].Offset {
				return false
			}
		}
	}
	return true
}

var assembly = &Pass{
	Name:     "assembly",
	Requires: []string{"tiling", "local memory", "coarsening", "private memory"},
	Doc: `Rebuilds the compute section from the parts: the cyclic loops over the
work-group's blocks; per point, the loads and the statements before the nest;
the tile loops with the local-memory copies between barriers around the
element loops, whose body runs once per point; per point, the statements after
the nest and the stores.`,
	Run: func(s *state) error {
		var inner []ast.Stmt
		for d := 0; d < s.dims; d++ {
			g := s.geom[d]
			inner = append(inner, ast.IntDecl(g.b, s.blockBase(d)))
		}
		inner = append(inner, s.perPoint(append(s.loads, s.pre...))...)
		if len(s.loops) > 0 {
			var nest ast.Stmt
			for i := len(s.loops) - 1; i >= 0; i-- {
				e := s.loops[i].elem
				if nest == nil {
					e.Body = ast.NewBlock(s.perPoint(s.body)...)
				} else {
					e.Body = ast.NewBlock(nest)
				}
				nest = e
			}
			list := []ast.Stmt{nest}
			if len(s.staging) > 0 {
				list = append(append(append([]ast.Stmt{}, s.staging...), &ast.Barrier{Local: true}), nest, &ast.Barrier{Local: true})
			}
			for i := len(s.loops) - 1; i >= 0; i-- {
				l := s.loops[i]
				if l.split {
					list = []ast.Stmt{ast.Loop(ast.TileLoop, l.tile, ast.CloneExpr(l.Lo), ast.CloneExpr(l.Hi), ast.IntConst(int64(l.T)), list...)}
				}
			}
			inner = append(inner, list...)
		}
		inner = append(inner, s.perPoint(append(s.post, s.stores...))...)
		out := inner
		for d := 0; d < s.dims; d++ {
			g := s.geom[d]
			start := ast.Product(&ast.Special{Kind: ast.GroupID, Dim: d}, ast.IntConst(int64(g.lsz*g.bsz)))
			if g.cyclic {
				out = []ast.Stmt{ast.Loop(ast.CyclicLoop, g.c, start, ast.IntConst(int64(g.N)), ast.IntConst(int64(g.sz*g.bsz)), out...)}
			} else {
				out = append([]ast.Stmt{ast.IntDecl(g.c, start)}, out...)
			}
		}
		s.comp.Body = ast.NewBlock(append(append([]ast.Stmt{}, s.decls...), out...)...)
		return nil
	},
}

// perPoint wraps stmts in the loops over the points of a block, with a
// guard when points can fall outside the domain.
func (s *state) perPoint(stmts []ast.Stmt) []ast.Stmt {
	if len(stmts) == 0 {
		return nil
	}
	body := stmts
	var conds []ast.Expr
	for d := 0; d < s.dims; d++ {
		g := s.geom[d]
		if !g.guard {
			continue
		}
		conds = append(conds, ast.Bin(ast.Lt, s.coord(d), ast.IntConst(int64(g.N))))
	}
	if c := all(conds); c != nil {
		body = []ast.Stmt{&ast.If{Cond: c, Then: ast.NewBlock(body...)}}
	}
	looped := false
	for d := 0; d < s.dims; d++ {
		g := s.geom[d]
		if g.bsz > 1 {
			body = []ast.Stmt{ast.Loop(ast.PointLoop, g.p, ast.IntConst(0), ast.IntConst(int64(g.bsz)), ast.IntConst(1), body...)}
			looped = true
		}
	}
	if !looped {
		if _, ok := body[0].(*ast.If); ok && len(body) == 1 {
			return body
		}
		return []ast.Stmt{ast.NewBlock(body...)}
	}
	return body
}

var unrolling = &Pass{
	Name:     "unrolling",
	Requires: []string{"assembly"},
	Doc: `Unrolls the innermost element loop by uf (Figure 9), with a remainder loop
when uf does not divide every tile, and, with fullunroll, unrolls the loops
over the points of a block completely, turning each per-point private array
into one scalar per point.`,
	Run: func(s *state) error {
		if uf := s.p.Unroll; uf > 1 {
			if len(s.loops) == 0 {
				return illegal("uf=%d: no compute loop to unroll", uf)
			}
			l := s.loops[len(s.loops)-1]
			if l.T > 0 && uf > l.T {
				return illegal("uf=%d exceeds the %d iterations of a tile of loop %s", uf, l.T, l.Var)
			}
			s.unroll(l, uf)
		}
		if s.p.FullUnroll && s.points > 1 {
			s.comp.Body = ast.Apply(s.comp.Body, nil, func(c *ast.Cursor) bool {
				f, ok := c.Node().(*ast.For)
				if !ok || f.Role != ast.PointLoop {
					return true
				}
				n := int(f.Hi.(*ast.IntLit).Value)
				var copies []ast.Stmt
				for i := 0; i < n; i++ {
					copies = append(copies, ast.SubstituteStmt(f.Body, map[string]ast.Expr{f.Var: ast.IntConst(int64(i))}))
				}
				c.Replace(ast.NewBlock(copies...))
				return true
			}).(*ast.Block)
			s.scalarize()
		}
		return nil
	},
}

// unroll replaces loop l's element loop by a loop stepping uf iterations at a
// time with uf copies of the body, and a remainder loop when needed.
func (s *state) unroll(l *nestLoop, uf int) {
	e := l.elem
	exact := false
	switch {
	case l.split && l.known:
		exact = l.T%uf == 0 && l.length%l.T == 0
	case !l.split && l.known:
		exact = l.length%uf == 0
	}
	body := e.Body
	var copies []ast.Stmt
	for j := 0; j < uf; j++ {
		copies = append(copies, ast.SubstituteStmt(body, map[string]ast.Expr{l.Var: ast.Sum(ast.Id(l.Var), ast.IntConst(int64(j)))}))
	}
	main := &ast.For{Var: l.Var, Lo: e.Lo, Hi: e.Hi, Step: ast.IntConst(int64(uf)), Body: ast.NewBlock(copies...), Role: ast.ElementLoop}
	var repl ast.Stmt = main
	if !exact {
		// main loop: lo + (hi-lo)/uf*uf; remainder: the rest, one by one
		span := ast.Bin(ast.Sub, ast.CloneExpr(e.Hi), ast.CloneExpr(e.Lo))
		end := ast.Sum(ast.CloneExpr(e.Lo), ast.Product(ast.Bin(ast.Div, span, ast.IntConst(int64(uf))), ast.IntConst(int64(uf))))
		main.Hi = end
		rest := &ast.For{Var: l.Var, Lo: ast.CloneExpr(end), Hi: ast.CloneExpr(e.Hi), Step: ast.IntConst(1), Body: body, Role: ast.ElementLoop}
		repl = ast.NewBlock(main, rest)
	}
	s.comp.Body = ast.Apply(s.comp.Body, nil, func(c *ast.Cursor) bool {
		if c.Node() == ast.Node(e) {
			c.Replace(repl)
		}
		return true
	}).(*ast.Block)
}

// scalarize turns per-point private arrays indexed by constants into
// scalars: v_p[1][2] becomes v_p_1_2.
func (s *state) scalarize() {
	scalarName := func(ix *ast.Index) (string, bool) {
		name := ix.Array
		for _, i := range ix.Indices {
			l, ok := i.(*ast.IntLit)
			if !ok {
				return "", false
			}
			name += "_" + strconv.FormatInt(l.Value, 10)
		}
		return name, true
	}
	s.comp.Body = ast.Apply(s.comp.Body, nil, func(c *ast.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.Index:
			if s.expanded[n.Array] != nil {
				if name, ok := scalarName(n); ok {
					c.Replace(ast.Id(name))
				}
			}
		case *ast.Decl:
			if x := s.expanded[n.Name]; x != nil && len(n.Extents) > 0 {
				var decls []ast.Stmt
				var rec func(prefix string, ext []int)
				rec = func(prefix string, ext []int) {
					if len(ext) == 0 {
						decls = append(decls, &ast.Decl{Name: prefix, Type: n.Type, Mem: ast.Private})
						return
					}
					for i := 0; i < ext[0]; i++ {
						rec(prefix+"_"+strconv.Itoa(i), ext[1:])
					}
				}
				rec(n.Name, n.Extents)
				c.Replace(ast.NewBlock()) // placeholder, flattened below
				c.InsertAfter(decls...)
			}
		}
		return true
	}).(*ast.Block)
	// Drop the empty placeholder blocks left by replaced declarations.
	var list []ast.Stmt
	for _, st := range s.comp.Body.List {
		if b, ok := st.(*ast.Block); ok && len(b.List) == 0 {
			continue
		}
		list = append(list, st)
	}
	s.comp.Body.List = list
}

var cleanup = &Pass{
	Name:     "cleanup",
	Requires: []string{"unrolling"},
	Doc: `Folds the integer constants that substitution leaves (lidy*4 + 0) and
merges blocks that declare nothing into the enclosing block, so that the
generated code reads like hand-written code.`,
	Run: func(s *state) error {
		s.comp.Body = ast.Simplify(s.comp.Body).(*ast.Block)
		return nil
	},
}

// padded returns the declared extents of a local array: a row whose length
// is a multiple of 16 gets one more element, so that work-items reading a
// column (l_a[lidy + 16*i][k]) hit different memory banks.
func padded(ext []int) []int {
	out := append([]int(nil), ext...)
	if n := len(out); n >= 2 && out[n-1]%16 == 0 {
		out[n-1]++
	}
	return out
}
