package optimizer

import "github.com/hplopt/hplopt/transforms"

// canonicalSeeds are starting points for the genetic search beside the
// single-point setting. On a GPU: the register-blocked, local-memory shapes
// that hand-tuned GPU kernels use (work-groups of 256, a few points per
// work-item, interleaved singly or in runs of two, tiles of 16 or 32). On a
// CPU device (cpu): first, work-groups of one work-item that computes a
// block of rows of 32 or 64 points along x as 16-wide vectors (vec=16), the
// shape that took MATMUL 1024 on PoCL from 0.2x of OpenBLAS to more than it
// (docs/results/pocl/matmul-openblas.md); then few work-items per group,
// each with a run of 16 points along x in vectors of 4, the shapes that won
// PoCL's searches before (the GPU shapes are slow there: 2DCONV's first
// takes 4 times the single-point kernel), and wide work-groups of one point
// per work-item, which PoCL vectorizes across work-items (stencils without
// loops run 2 to 3 times faster so than with the work-groups PoCL chooses).
// Parameters fixed by the user are pinned by the space anyway; values
// outside the space are repaired.
func canonicalSeeds(domain, loops []int, cpu bool) []map[string]int {
	type shape struct {
		local, block          [3]int
		vw, tile, lcopy, lmem int
		uf                    int
		scalar                bool // interleave 0 (points side by side), else 1
		vec                   int
	}
	shapes := map[int][]shape{
		1: {{[3]int{128, 1, 1}, [3]int{4, 1, 1}, 1, 32, 0, 1, 4, false, 0}, {[3]int{256, 1, 1}, [3]int{1, 1, 1}, 1, 32, 0, 1, 4, false, 0}},
		2: {{[3]int{16, 16, 1}, [3]int{8, 8, 1}, 2, 16, 0, 1, 4, false, 0}, {[3]int{16, 8, 1}, [3]int{8, 8, 1}, 1, 32, 1, 1, 4, false, 0}, {[3]int{16, 16, 1}, [3]int{8, 8, 1}, 1, 32, 0, 1, 4, false, 0}, {[3]int{16, 16, 1}, [3]int{4, 4, 1}, 1, 32, 0, 1, 4, false, 0}, {[3]int{32, 8, 1}, [3]int{4, 8, 1}, 1, 32, 0, 1, 4, false, 0}},
		3: {{[3]int{16, 8, 2}, [3]int{1, 2, 2}, 1, 32, 0, 1, 4, false, 0}, {[3]int{32, 4, 2}, [3]int{2, 2, 1}, 1, 32, 0, 1, 4, false, 0}},
	}
	if cpu {
		shapes = map[int][]shape{
			1: {{[3]int{1, 1, 1}, [3]int{64, 1, 1}, 1, 0, 0, 0, 4, true, 16}, {[3]int{1, 1, 1}, [3]int{16, 1, 1}, 4, 0, 0, 0, 8, false, 0}, {[3]int{4, 1, 1}, [3]int{16, 1, 1}, 1, 256, 0, 0, 16, false, 0}, {[3]int{256, 1, 1}, [3]int{1, 1, 1}, 1, 0, 0, 0, 1, false, 0}},
			2: {{[3]int{1, 1, 1}, [3]int{32, 8, 1}, 1, 0, 0, 0, 4, true, 16}, {[3]int{1, 1, 1}, [3]int{16, 8, 1}, 1, 0, 0, 0, 8, true, 16}, {[3]int{4, 2, 1}, [3]int{16, 2, 1}, 4, 0, 0, 0, 8, false, 0}, {[3]int{32, 4, 1}, [3]int{16, 16, 1}, 4, 32, 0, 1, 4, false, 0}, {[3]int{16, 8, 1}, [3]int{16, 8, 1}, 1, 256, 0, 1, 4, false, 0}, {[3]int{64, 4, 1}, [3]int{1, 1, 1}, 1, 0, 0, 0, 1, false, 0}},
			3: {{[3]int{1, 1, 1}, [3]int{32, 4, 1}, 1, 0, 0, 0, 4, true, 16}, {[3]int{1, 2, 2}, [3]int{16, 1, 2}, 4, 0, 0, 0, 8, false, 0}, {[3]int{1, 4, 4}, [3]int{16, 1, 4}, 4, 8, 0, 1, 8, false, 0}, {[3]int{256, 1, 1}, [3]int{1, 1, 1}, 1, 0, 0, 0, 1, false, 0}},
		}
	}
	list := shapes[len(domain)]
	if cpu && len(loops) == 0 {
		// Without compute loops, PoCL's best shapes are wide work-groups of
		// one point per work-item: that seed first, for short budgets.
		last := len(list) - 1
		list = append([]shape{list[last]}, list[:last]...)
	}
	var out []map[string]int
	if !cpu && len(domain) >= 2 && len(loops) == len(domain) {
		out = convSeeds(domain, loops)
	}
	if !cpu && len(domain) >= 2 && len(loops) > 0 {
		out = append(out, nearSeeds(domain, loops)...)
	}
	for _, sh := range list {
		il := 1
		if sh.scalar {
			il = 0
		}
		m := map[transforms.Name]int{transforms.FullUnroll: 1, transforms.Interleave: il, transforms.VW: sh.vw, transforms.LMem: sh.lmem, transforms.LCopy: sh.lcopy, transforms.UF: sh.uf, transforms.Vec: max(1, sh.vec)}
		if len(loops) == 0 {
			// No uf without compute loops (a seed with a parameter the
			// space lacks would be dropped), and lmem only stages a halo.
			m[transforms.LMem], m[transforms.LCopy] = 0, 0
			delete(m, transforms.UF)
		}
		out = append(out, place(m, domain, loops, sh.local, sh.block, sh.tile))
	}
	return out
}

// place completes a seed's parameters m with its geometry, local and
// block sizes per dimension (at most the points of each) and the global
// sizes that cover the domain, and tile along every compute loop (at most
// its length), and returns it by parameter name.
func place(m map[transforms.Name]int, domain, loops []int, local, block [3]int, tile int) map[string]int {
	for d, n := range domain {
		lsz, bsz := min(local[d], n), min(block[d], n)
		blocks := (n + bsz - 1) / bsz
		m[transforms.Local(d)], m[transforms.Block(d)], m[transforms.Global(d)] = lsz, bsz, (blocks+lsz-1)/lsz*lsz
	}
	for i, l := range loops {
		m[transforms.Tile(i)] = min(l, tile)
	}
	pt := map[string]int{}
	for n, v := range m {
		pt[string(n)] = v
	}
	return pt
}

// nearSeeds are the GPU shapes of the techniques near the hardware, first
// for kernels of two or more dimensions with compute loops: 8x8 points per
// work-item in float4 runs (vw 4) read from local memory as float4
// (pack), the tile along the loop stored transposed (ltrans, set back by
// Repair where the kernel's tiles cannot be transposed), the next tile
// prefetched into registers, in work-groups of 16x16 and of 32x16 with
// warp tiling. They are the shape the H100's MATMUL 4096 search reached
// with ltrans, pack and lmem pinned (46.3 TFLOP/s, 0.91-0.94x cuBLAS),
// which the unpinned search, starting from float2 runs, did not find in 100
// s (docs/results/h100/README.md). The third, work-groups of 16x32 with
// warp tiling and 8 steps unrolled, is the shape of SYRK 4096's best on
// the H100 (2.97 ms, 99.5% of MATMUL's TFLOP/s), which a search in the
// subspace around the 32x16 shape found in 130 s and a 270 s search of the
// whole space did not (docs/results/h100/a46bca2/). The fourth, work-groups
// of 32x8 items of 8x16 points in float2 runs, warp tiles of 16 and
// staging copies in runs (lcopy), is the shape of MATMUL 4096's fastest on
// the H100 (2.812 ms, 0.97-0.98x cuBLAS), which one of five 75 s searches
// of the whole space found (docs/results/h100/e01335c/).
func nearSeeds(domain, loops []int) []map[string]int {
	var out []map[string]int
	for _, sh := range []struct{ lx, ly, by, vw, lcopy, tile, warp, uf int }{
		{16, 16, 8, 4, 0, 16, 0, 4}, {32, 16, 8, 4, 0, 8, 2, 4}, {16, 32, 8, 4, 0, 8, 2, 8}, {32, 8, 16, 2, 1, 8, 16, 8},
	} {
		m := map[transforms.Name]int{transforms.FullUnroll: 1, transforms.Interleave: 1, transforms.VW: sh.vw, transforms.LMem: 1, transforms.LCopy: sh.lcopy, transforms.UF: sh.uf, transforms.Vec: 1,
			transforms.Pack: 1, transforms.LTrans: 1, transforms.Prefetch: 1, transforms.Warp: sh.warp}
		out = append(out, place(m, domain, loops, [3]int{sh.lx, sh.ly, 1}, [3]int{8, sh.by, 1}, sh.tile))
	}
	return out
}

// convSeeds are the GPU shapes for kernels with a compute loop along each
// dimension of their domain, as convolutions have (out[y][x] sums
// in[y+i][x+j]*f[i][j]), first: 16x2 points per work-item along x and y,
// the input tile with its halo and the filter's staged in local memory, the
// innermost loop's tile of 16 unrolled, in two shapes.
//
// The first: work-groups of 2x64 items (2D) or 2x32 (3D, one plane of z),
// point by point (no float2 runs), the loops' tiles of 16 along y and x and
// of 1 along z. It is the shape of 2DCONV 2048's best in the 45 s search at
// 813bce5 (13.43 ms, 0.612 of FP32 peak) and, with its tiles, 3DCONV 128's
// best of hand-picked neighbours (216.6 ms, 0.607; the 3D start point
// below reached 470.9 ms in its 45 s search), both on an H200
// (docs/results/h100/813bce5/, docs/results/h100/scripts/session7b.sh).
//
// The second: work-groups of 2x16 items (32x32 points), in runs of 2 as
// float2 vectors read in runs (pack), the other loops' tiles of 64 (2D) or
// 16 and 2 (3D: the outermost of 2, so that the input tile with its halo
// fits 48 KiB). It is the shape the H100's 2DCONV 2048 search reached in
// 45 s at cf9e9d7 (0.396 of FP32 peak, docs/results/h100/cf9e9d7/); the 3D
// shapes above stage tiles of 32 or 16 along every loop, whose halo needs
// up to 2.9 MB of local memory for 3DCONV, so that its search started from
// illegal points.
func convSeeds(domain, loops []int) []map[string]int {
	plain := map[transforms.Name]int{transforms.FullUnroll: 0, transforms.Interleave: 0, transforms.VW: 1, transforms.LMem: 1, transforms.LCopy: 1, transforms.UF: 16, transforms.Vec: 1,
		transforms.Pack: 0, transforms.LTrans: 0, transforms.Prefetch: 0, transforms.Warp: 0}
	runs := map[transforms.Name]int{transforms.FullUnroll: 0, transforms.Interleave: 1, transforms.VW: 2, transforms.LMem: 1, transforms.LCopy: 1, transforms.UF: 16, transforms.Vec: 2,
		transforms.Pack: 1, transforms.LTrans: 0, transforms.Prefetch: 0, transforms.Warp: 0}
	first, second := []int{16, 16}, []int{64, 16}
	local := [3]int{2, 64, 1}
	if len(loops) == 3 {
		first, second = []int{1, 16, 16}, []int{2, 16, 16}
		local = [3]int{2, 32, 1}
	}
	var out []map[string]int
	for _, sh := range []struct {
		m     map[transforms.Name]int
		local [3]int
		tiles []int
	}{{plain, local, first}, {runs, [3]int{2, 16, 1}, second}} {
		pt := place(sh.m, domain, loops, sh.local, [3]int{16, 2, 1}, 0)
		for i, l := range loops {
			pt[string(transforms.Tile(i))] = min(l, sh.tiles[i])
		}
		out = append(out, pt)
	}
	return out
}
