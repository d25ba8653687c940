package transforms

import (
	"fmt"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/patterns"
)

var splitting = &Pass{
	Name:     "split",
	Requires: []*Pass{tiling, staging, promotion},
	Doc: `With split=S, runs the outermost loop of the main compute nest in S
contiguous parts of its iterations, each on its own work-item: the launch
gets a further dimension (y for a 1D kernel, z for a 2D one) of global and
local size S, and the work-item with local id part along it runs the part's
tiles (tiling makes the loop's tiles divide the part). It is legal when what
the nest computes for a point is a linear accumulation (+=, -=) into private
accumulators that are set before the nest and that the loop body reads
nowhere else, the body's other assignments being temporaries that nothing
after the nest reads, and the code outside the compute section writes no
shared memory. The accumulators of parts other than 0 start at 0; after the
nest, those parts write their partial sums into local memory (one buffer per
accumulator of [S-1][points of a block][work-items of a part]), and after a
barrier part 0 adds them in the order of the parts (the same order at every
run) and alone runs the statements after the nest, the global writes among
them. Each part stages its own tiles: the local arrays get a leading
dimension of S and the copies are spread over the work-items of one part.
Illegal when the loop's length is not known, not divisible by S, or its
parts not by tw0; with local copies, when a tiled inner loop is bounded by
the split loop's counter (the parts would meet different numbers of
barriers); with vec; and when the local memory or the work-group (S times
the kernel's) exceeds the device's. Adding
the partial sums reassociates the sum: such variants differ from the
single-point kernel by rounding.`,
	Run: func(s *state) error {
		if s.nparts <= 1 {
			return nil
		}
		n := s.nparts
		if len(s.loops) == 0 {
			return illegal("split=%d: the compute section has no loop nest to split", n)
		}
		if s.p.Vec > 1 {
			return illegal("split=%d with vec=%d: the parts' partial sums are combined per point, not as vectors", n, s.p.Vec)
		}
		if why := s.sharedWritesOutside(); why != "" {
			return illegal("split=%d: %s, which every part would run", n, why)
		}
		if len(s.local.copies) > 0 {
			// The tile loops hold barriers: every part must run as many
			// tiles.
			first := s.loops[0]
			for _, l := range s.loops[1:] {
				for _, b := range []*patterns.Subscript{l.lower, l.upper} {
					if l.split && b != nil && (b.Kind == patterns.Counter || b.Kind == patterns.IDCounter) && b.Loop == first.index {
						return illegal("split=%d: the tiles of loop %s are bounded by the counter of loop %s, so the parts would run different numbers of tiles, each with barriers for the local copies", n, l.Var, first.Var)
					}
				}
			}
		}
		accs, err := s.partialSums()
		if err != nil {
			return err
		}
		part := ast.Id(s.part)
		// Each part stages its own tiles.
		staged := map[string]bool{}
		for _, st := range s.local.decls {
			d := st.(*ast.Decl)
			if s.p.Pack {
				// Each part's tile starts at a multiple of 4 elements,
				// so that packed runs stay aligned.
				for d.Elems()%4 != 0 {
					d.Extents[len(d.Extents)-1]++
				}
			}
			d.Extents = append([]int{n}, d.Extents...)
			staged[d.Name] = true
		}
		if len(staged) > 0 {
			s.local.bytes = 0
			for _, st := range s.local.decls {
				d := st.(*ast.Decl)
				s.local.bytes += d.Bytes()
			}
			for i, c := range s.local.copies {
				s.local.copies[i] = withLeading(c, staged, part)
			}
			for i, st := range s.body {
				s.body[i] = withLeading(st, staged, part)
			}
		}
		// The buffers of the partial sums.
		items := 1
		for d := 0; d < s.dims; d++ {
			items *= s.geom[d].lsz
		}
		plan := splitPlan{on: true, q: s.fresh("q")}
		plan.decls = append(plan.decls, ast.IntDecl(s.part, &ast.Special{Kind: ast.LocalID, Dim: s.dims}))
		var zero []ast.Stmt
		for _, a := range accs {
			name, _ := s.accumulator(a)
			t := s.privateDecl(name).Type
			buf := s.fresh("l_" + name)
			d := &ast.Decl{Name: buf, Type: t, Mem: ast.Local, Extents: []int{n - 1, s.points, items}}
			plan.decls = append(plan.decls, d)
			plan.bytes += d.Bytes()
			plan.accs = append(plan.accs, a)
			plan.bufs = append(plan.bufs, buf)
			if !s.startsAtZero(name) {
				zero = append(zero, &ast.Assign{LHS: ast.CloneExpr(a), Op: ast.Set, RHS: zeroOf(t)})
			}
		}
		if lim := s.prob.LocalMem; lim > 0 && s.local.bytes+plan.bytes > lim {
			return illegal("split=%d needs %d bytes of local memory (%d for the %d parts' staged tiles, %d for their partial sums); the device has %d",
				n, s.local.bytes+plan.bytes, s.local.bytes, n, plan.bytes, lim)
		}
		// Parts other than 0 start their partial sums at 0; part 0 keeps
		// the value set before the nest.
		if len(zero) > 0 {
			s.pre = append(s.pre, &ast.If{Cond: ast.Bin(ast.Ne, ast.CloneExpr(part), ast.IntConst(0)), Then: ast.NewBlock(zero...)})
		}
		s.split = plan
		return nil
	},
}

// splitPlan is how the parts of a split loop (the splitting pass) combine
// their partial sums, for the assembly pass.
type splitPlan struct {
	on    bool
	accs  []ast.Expr // the accumulators, as the loop body writes them for the current point
	bufs  []string   // the local buffer of each accumulator: [parts-1][points][items]
	decls []ast.Stmt // the part variable and the buffers
	bytes int64      // the local memory of the buffers
	q     string     // the counter of the loops that add the parts
}

// startsAtZero reports whether the statements before the nest end with
// accumulator name set to the constant 0 at their top level, nothing after
// touching it: then every part starts from 0 already.
func (s *state) startsAtZero(name string) bool {
	list := concat(s.private.loads, s.pre)
	for i := len(list) - 1; i >= 0; i-- {
		st := list[i]
		if !refs([]ast.Stmt{st}, name) && !refsArray([]ast.Stmt{st}, name) {
			continue
		}
		a, ok := st.(*ast.Assign)
		if !ok || a.Op != ast.Set {
			return false
		}
		if m, _ := s.accumulator(a.LHS); m != name {
			return false
		}
		switch z := a.RHS.(type) {
		case *ast.FloatLit:
			return z.Value == 0
		case *ast.IntLit:
			return z.Value == 0
		}
		return false
	}
	return false
}

// zeroOf is the constant 0 of type t.
func zeroOf(t ast.Type) ast.Expr {
	if t.IsFloat() {
		return &ast.FloatLit{Value: 0, Type: t}
	}
	return ast.IntConst(0)
}

// sharedWritesOutside describes a write to global or local memory outside
// the compute section, or returns "".
func (s *state) sharedWritesOutside() string {
	why := ""
	for _, st := range s.k.Body.List {
		if _, ok := st.(*ast.Compute); ok {
			continue
		}
		ast.Inspect(st, func(n ast.Node) bool {
			a, ok := n.(*ast.Assign)
			if !ok || why != "" {
				return why == ""
			}
			if arr := a.Array(); arr != "" {
				if d := s.k.Decl(arr); d == nil || d.Mem != ast.Private {
					why = fmt.Sprintf("the code outside the compute section writes %s", ast.ExprString(a.LHS))
				}
			}
			return true
		})
	}
	return why
}

// partialSums returns the accumulators of the nest's loop body, each once
// (as the body writes them for the current point), or an error wrapping
// ErrIllegal when the body does more than accumulate linearly into them.
func (s *state) partialSums() ([]ast.Expr, error) {
	n := s.nparts
	// Variables declared in the body are its own.
	own := map[string]bool{}
	for _, st := range s.body {
		ast.Inspect(st, func(x ast.Node) bool {
			if d, ok := x.(*ast.Decl); ok {
				own[d.Name] = true
			}
			return true
		})
	}
	var accs []ast.Expr
	names := map[string]bool{}
	seen := map[string]bool{}
	var err error
	for _, st := range s.body {
		ast.Inspect(st, func(x ast.Node) bool {
			a, ok := x.(*ast.Assign)
			if !ok || err != nil {
				return err == nil
			}
			text := fmt.Sprintf("%s %s %s", ast.ExprString(a.LHS), a.Op, ast.ExprString(a.RHS))
			name, isAcc := s.accumulator(a.LHS)
			sum, _, accum := accumulated(a)
			switch {
			case accum && isAcc && !readsVar(sum, name):
				if key := ast.ExprString(a.LHS); !seen[key] {
					seen[key] = true
					names[name] = true
					accs = append(accs, a.LHS)
				}
			case accum && isAcc:
				err = illegal("split=%d: %s reads its accumulator in the sum, so it is not a linear accumulation", n, text)
			case accum && a.Op != ast.Set:
				err = illegal("split=%d: %s accumulates into memory other than a private accumulator of the point, which the parts would share", n, text)
			case a.Op == ast.Set:
				id, ok := a.LHS.(*ast.Ident)
				switch {
				case ok && own[id.Name]:
				case ok && localTemp(s.body, id.Name, false) && !refs(concat(s.post, s.private.stores), id.Name):
				default:
					err = illegal("split=%d: %s is neither a linear accumulation (+=, -=) nor a temporary of the loop body, so the parts cannot compute it separately", n, text)
				}
			default:
				err = illegal("split=%d: %s is not a linear accumulation (+=, -=)", n, text)
			}
			return err == nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(accs) == 0 {
		return nil, illegal("split=%d: the loop body accumulates into no private accumulator", n)
	}
	// The body reads the accumulators only in their accumulations.
	for _, st := range s.body {
		ast.Inspect(st, func(x ast.Node) bool {
			if err != nil {
				return false
			}
			if a, ok := x.(*ast.Assign); ok {
				if name, isAcc := s.accumulator(a.LHS); isAcc && names[name] {
					if l, ok := a.LHS.(*ast.Index); ok {
						for _, i := range l.Indices {
							err = readAcc(i, names, n)
						}
					}
					if err == nil {
						err = readAcc(a.RHS, names, n)
					}
					return false
				}
			}
			if e, ok := x.(ast.Expr); ok {
				err = readAcc(e, names, n)
				return false
			}
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	// Each accumulator is set before the nest.
	for _, a := range accs {
		name, _ := s.accumulator(a)
		set := false
		for _, st := range concat(s.private.loads, s.pre) {
			ast.Inspect(st, func(x ast.Node) bool {
				if b, ok := x.(*ast.Assign); ok && b.Op == ast.Set {
					if m, _ := s.accumulator(b.LHS); m == name {
						set = true
					}
				}
				return !set
			})
		}
		if !set {
			return nil, illegal("split=%d: accumulator %s is not set before the loop nest, so the parts' partial sums have no start value", n, ast.ExprString(a))
		}
	}
	return accs, nil
}

// readAcc returns an error when x reads one of the accumulators names.
func readAcc(x ast.Expr, names map[string]bool, n int) error {
	for name := range names {
		if readsVar(x, name) {
			return illegal("split=%d: the loop body reads accumulator %s besides accumulating into it (in %s), but each part holds only a partial sum", n, name, ast.ExprString(x))
		}
	}
	return nil
}

// combine is the code after a split nest: parts other than 0 write their
// partial sums into the local buffers, and after a barrier part 0 adds
// them, part after part, and runs the statements after the nest (post and
// the stores of promoted elements). With several blocks per work-group, a
// barrier after it keeps the next block's partial sums from overwriting
// those part 0 still reads.
func (s *state) combine(cyclic bool) []ast.Stmt {
	sp := s.split
	part := func() ast.Expr { return ast.Id(s.part) }
	item := s.flatLocalID()
	var point ast.Expr = ast.IntConst(0)
	stride := 1
	for d := 0; d < s.dims; d++ {
		if g := s.geom[d]; g.bsz > 1 {
			point = ast.Sum(point, ast.Product(ast.Id(g.p), ast.IntConst(int64(stride))))
			stride *= g.bsz
		}
	}
	q := sp.q
	var writes, reads []ast.Stmt
	for i, a := range sp.accs {
		slot := func(at ast.Expr) ast.Expr {
			return &ast.Index{Array: sp.bufs[i], Indices: []ast.Expr{at, ast.CloneExpr(point), ast.CloneExpr(item)}}
		}
		writes = append(writes, &ast.Assign{LHS: slot(ast.Bin(ast.Sub, part(), ast.IntConst(1))), Op: ast.Set, RHS: ast.CloneExpr(a)})
		reads = append(reads, &ast.For{Var: q, Lo: ast.IntConst(0), Hi: ast.IntConst(int64(s.nparts - 1)), Step: ast.IntConst(1),
			Body: ast.NewBlock(&ast.Assign{LHS: ast.CloneExpr(a), Op: ast.AddSet, RHS: slot(ast.Id(q))}), Role: ast.PartLoop, Unroll: -1})
	}
	out := []ast.Stmt{
		&ast.If{Cond: ast.Bin(ast.Ne, part(), ast.IntConst(0)), Then: ast.NewBlock(s.perPoint(writes)...)},
		&ast.Barrier{Local: true},
		&ast.If{Cond: ast.Bin(ast.Eq, part(), ast.IntConst(0)), Then: ast.NewBlock(s.perPoint(concat(reads, s.post, s.private.stores))...)},
	}
	if cyclic {
		out = append(out, &ast.Barrier{Local: true})
	}
	return out
}
