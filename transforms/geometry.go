package transforms

import "github.com/hplopt/hplopt/ast"

// geometry is the work distribution of a setting: blocks of points
// distributed block-cyclically over the work-items. newState fixes it before
// any pass runs; the passes read it.
type geometry struct {
	dims   int        // dimensions of the domain, 1 to 3
	points int        // points per block: the product of the block sizes
	geom   [3]dimGeom // per dimension, x first; the first dims are set
	// warp, when set (parameter warp), names the work-item coordinates
	// remapped so that each warp of 32 items covers a warp x 32/warp
	// sub-block (x, y, and the flat index they are computed from): the
	// points use them instead of lidx and lidy.
	warp [3]string
	// swizzle, when set (parameter gswz), names the group coordinates
	// remapped into bands of gswz rows of groups (x, y, flat).
	swizzle [3]string
	// nparts is the number of parts the outermost compute loop is split
	// into (parameter split; 1 when off), each run by its own work-item
	// along the launch dimension after the kernel's (dimension dims, of
	// global and local size nparts); part names the variable that holds
	// the work-item's part, its local id along that dimension.
	nparts int
	part   string
}

// dimGeom is the work distribution along one dimension.
type dimGeom struct {
	N, sz, lsz, bsz int    // points, work-items, work-items per group, points per block
	cyclic          bool   // a work-item visits several blocks
	guard           bool   // some points of a block can fall outside N
	c, b, p         string // names of the group's block base, the work-item's block base, the point offset
}

// checkGeometry rejects a setting whose sizes do not fit the domain or the
// device, and fixes the geometry of the others.
func (s *state) checkGeometry() error {
	p := s.p
	wg := 1
	s.points = 1
	for d := 0; d < 3; d++ {
		axis := "xyz"[d : d+1]
		if d >= s.dims {
			if p.Global[d] > 1 || p.Local[d] > 1 || p.Block[d] > 1 {
				return illegal("the kernel has %d dimension(s); sz%s, lsz%s and bsz%s must be unset", s.dims, axis, axis, axis)
			}
			continue
		}
		g := dimGeom{N: s.prob.Domain[d], sz: p.Global[d], lsz: p.Local[d], bsz: p.Block[d]}
		if g.N < 1 {
			return illegal("domain size %d along %s", g.N, axis)
		}
		if g.sz < 1 || g.lsz < 1 || g.bsz < 1 {
			return illegal("sz%s=%d, lsz%s=%d and bsz%s=%d must all be at least 1", axis, g.sz, axis, g.lsz, axis, g.bsz)
		}
		if g.sz%g.lsz != 0 {
			return illegal("the local size lsz%s=%d does not divide the global size sz%s=%d", axis, g.lsz, axis, g.sz)
		}
		if lim := s.prob.MaxWorkItems[d]; lim > 0 && g.lsz > lim {
			return illegal("lsz%s=%d exceeds the device's %d work-items along %s", axis, g.lsz, lim, axis)
		}
		if g.bsz > g.N {
			return illegal("bsz%s=%d exceeds the %d points along %s", axis, g.bsz, g.N, axis)
		}
		blocks := (g.N + g.bsz - 1) / g.bsz
		if g.sz > (blocks+g.lsz-1)/g.lsz*g.lsz {
			return illegal("sz%s=%d work-items for %d block(s) of %d points along %s: more work-groups than work", axis, g.sz, blocks, g.bsz, axis)
		}
		g.c, g.b, g.p = s.fresh("c_"+axis), s.fresh("b_"+axis), s.fresh("p_"+axis)
		span := g.sz * g.bsz
		g.cyclic = (g.N+span-1)/span > 1
		g.guard = g.N%span != 0
		wg *= g.lsz
		s.points *= g.bsz
		s.geom[d] = g
	}
	if p.Chunk < 0 {
		return illegal("vw=%d", p.Chunk)
	}
	if p.Interleave {
		for d := 0; d < s.dims; d++ {
			if c := s.chunk(d); s.geom[d].bsz%c != 0 {
				return illegal("runs of vw=%d points do not divide the block bsz%s=%d", c, "xyz"[d:d+1], s.geom[d].bsz)
			}
		}
	}
	s.nparts = max(1, p.Split)
	if p.Split < 0 {
		return illegal("split=%d", p.Split)
	}
	if s.nparts > 1 {
		if s.dims == 3 {
			return illegal("split=%d needs a launch dimension beyond the kernel's; the kernel has 3", s.nparts)
		}
		axis := "xyz"[s.dims : s.dims+1]
		if lim := s.prob.MaxWorkItems[s.dims]; lim > 0 && s.nparts > lim {
			return illegal("split=%d exceeds the device's %d work-items along %s", s.nparts, lim, axis)
		}
		wg *= s.nparts
		s.part = s.fresh("part")
	}
	if lim := s.prob.MaxWorkGroup; lim > 0 && wg > lim {
		if s.nparts > 1 {
			return illegal("work-groups of %d work-items (split=%d parts of %d) exceed the device's %d", wg, s.nparts, wg/s.nparts, lim)
		}
		return illegal("work-groups of %d work-items exceed the device's %d", wg, lim)
	}
	if err := s.checkRemaps(); err != nil {
		return err
	}
	if p.Unroll < 0 {
		return illegal("uf=%d", p.Unroll)
	}
	return nil
}

// warpSize is the number of work-items that the parameter warp arranges
// in a sub-block: an NVIDIA warp.
const warpSize = 32

// checkRemaps rejects a setting of warp or gswz that the work-groups do not
// allow or that would change nothing, and names the remapped coordinates.
func (s *state) checkRemaps() error {
	p := s.p
	if p.Warp < 0 || p.Swizzle < 0 {
		return illegal("warp=%d, gswz=%d must not be negative", p.Warp, p.Swizzle)
	}
	if wx := p.Warp; wx > 0 {
		if s.dims < 2 {
			return illegal("warp=%d needs two dimensions; the kernel has one", wx)
		}
		lx, ly := s.geom[0].lsz, s.geom[1].lsz
		switch {
		case warpSize%wx != 0:
			return illegal("warp=%d does not divide the %d work-items of a warp", wx, warpSize)
		case wx >= min(lx, warpSize):
			return illegal("warp=%d: with lszx=%d a warp already covers rows of %d work-items", wx, lx, min(lx, warpSize))
		case lx%wx != 0 || ly%(warpSize/wx) != 0:
			return illegal("warp=%d: sub-blocks of %dx%d work-items do not tile lszx=%d, lszy=%d", wx, wx, warpSize/wx, lx, ly)
		}
		s.warp = [3]string{s.fresh("wl_x"), s.fresh("wl_y"), s.fresh("wf")}
	}
	if g := p.Swizzle; g > 1 {
		if s.dims < 2 {
			return illegal("gswz=%d needs two dimensions; the kernel has one", g)
		}
		nx, ny := s.geom[0].sz/s.geom[0].lsz, s.geom[1].sz/s.geom[1].lsz
		if nx < 2 || ny%g != 0 {
			return illegal("gswz=%d: bands of %d rows of work-groups do not tile %dx%d work-groups", g, g, nx, ny)
		}
		s.swizzle = [3]string{s.fresh("g_x"), s.fresh("g_y"), s.fresh("gf")}
	}
	return nil
}

// localID is the work-item's coordinate in its work-group along dimension d
// for placing its points: lid, or its remapping by warp.
func (s *state) localID(d int) ast.Expr {
	if d < 2 && s.warp[d] != "" {
		return ast.Id(s.warp[d])
	}
	return &ast.Special{Kind: ast.LocalID, Dim: d}
}

// groupID is the work-group's coordinate along dimension d: gid, or its
// remapping by gswz.
func (s *state) groupID(d int) ast.Expr {
	if d < 2 && s.swizzle[d] != "" {
		return ast.Id(s.swizzle[d])
	}
	return &ast.Special{Kind: ast.GroupID, Dim: d}
}

// remaps declares the remapped coordinates of warp and gswz.
func (s *state) remaps() []ast.Stmt {
	var out []ast.Stmt
	if s.warp[0] != "" {
		wx := int64(s.p.Warp)
		lx := int64(s.geom[0].lsz)
		f := s.warp[2]
		lid := func(d int) ast.Expr { return &ast.Special{Kind: ast.LocalID, Dim: d} }
		c := ast.IntConst
		warp := ast.Bin(ast.Div, ast.Id(f), c(warpSize))
		lane := ast.Bin(ast.Rem, ast.Id(f), c(warpSize))
		out = append(out,
			ast.IntDecl(f, ast.Sum(lid(0), ast.Product(lid(1), c(lx)))),
			ast.IntDecl(s.warp[0], ast.Sum(ast.Product(ast.Bin(ast.Rem, warp, c(lx/wx)), c(wx)), ast.Bin(ast.Rem, ast.Id(f), c(wx)))),
			ast.IntDecl(s.warp[1], ast.Sum(ast.Product(ast.Bin(ast.Div, ast.CloneExpr(warp), c(lx/wx)), c(warpSize/wx)), ast.Bin(ast.Div, lane, c(wx)))))
	}
	if s.swizzle[0] != "" {
		g := int64(s.p.Swizzle)
		nx := int64(s.geom[0].sz / s.geom[0].lsz)
		f := s.swizzle[2]
		gid := func(d int) ast.Expr { return &ast.Special{Kind: ast.GroupID, Dim: d} }
		c := ast.IntConst
		band := ast.Bin(ast.Rem, ast.Id(f), c(g*nx))
		out = append(out,
			ast.IntDecl(f, ast.Sum(gid(0), ast.Product(gid(1), c(nx)))),
			ast.IntDecl(s.swizzle[0], ast.Bin(ast.Div, band, c(g))),
			ast.IntDecl(s.swizzle[1], ast.Sum(ast.Product(ast.Bin(ast.Div, ast.Id(f), c(g*nx)), c(g)), ast.Bin(ast.Rem, ast.CloneExpr(band), c(g)))))
	}
	return out
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
	lid := s.localID(d)
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
	return ast.Sum(ast.Id(g.c), ast.Product(s.localID(d), ast.IntConst(int64(s.chunk(d)))))
}

// pointRepl maps the global ids to the current point's coordinates and
// the global sizes to the domain's, as coarsening rewrites the compute
// section (ast.Substitute).
func (s *state) pointRepl() map[string]ast.Expr {
	repl := map[string]ast.Expr{}
	for d := 0; d < s.dims; d++ {
		repl[(&ast.Special{Kind: ast.GlobalID, Dim: d}).Name()] = s.coord(d)
		repl[(&ast.Special{Kind: ast.GlobalSize, Dim: d}).Name()] = ast.IntConst(int64(s.geom[d].N))
	}
	return repl
}
