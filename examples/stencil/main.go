// Command stencil is an example of a program that hands its own kernel to
// hplopt's command line (package cli): one step of heat diffusion on a
// grid, written as a single-point kernel with a bounds guard that keeps
// the border fixed, with its sizes, its data set-up and a Go reference.
// The program then has every verb hplopt has, for its kernel:
//
//	stencil kernels
//	stencil run heat                        # tiny size, checked against the reference
//	stencil analyze heat                    # its access patterns
//	stencil gen heat --params lszx=64,lmem=1
//	stencil tune heat --size S -t 60        # search the optimizer's parameters
//	stencil bench --sizes S -t 30
package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/hplopt/hplopt/cli"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
)

// heat is one explicit step of the heat equation on an ny x nx grid: every
// point inside the border moves towards the mean of its four neighbours,
// out = in + alpha*(neighbours - 4*in); the border keeps out's values.
var heat = hpl.MustKernel("heat", func(k *hpl.K) {
	out := k.Array("out", hpl.Float32, 2)
	in := k.Array("in", hpl.Float32, 2)
	nx, ny := k.Scalar("nx", hpl.Int32), k.Scalar("ny", hpl.Int32)
	alpha := k.Scalar("alpha", hpl.Float32)
	x, y := hpl.Idx, hpl.Idy
	k.Compute(func() {
		inside := x.Ge(1).And(x.Lt(nx.Sub(1))).And(y.Ge(1)).And(y.Lt(ny.Sub(1)))
		k.If(inside, func() {
			c := in.At(y, x)
			around := in.At(y.Sub(1), x).Add(in.At(y.Add(1), x)).Add(in.At(y, x.Sub(1))).Add(in.At(y, x.Add(1)))
			k.Set(out.At(y, x), c.Add(alpha.Mul(around.Sub(c.Mul(4.0)))))
		})
	})
})

// alpha is the diffusion number of the step (stable below 1/4).
const alpha = 0.2

// setup makes a grid of random temperatures for size s (N: nx, ny) and the
// reference step computed in float64.
func setup(s kernels.Size, seed int64) (*kernels.Data, error) {
	nx, ny := s.N[0], s.N[1]
	if nx < 3 || ny < 3 {
		return nil, fmt.Errorf("the grid needs at least 3x3 points, not %dx%d", nx, ny)
	}
	r := rand.New(rand.NewPCG(uint64(seed), 1))
	in, out := hpl.NewArray(hpl.Float32, ny, nx), hpl.NewArray(hpl.Float32, ny, nx)
	v := in.Float32s()
	for i := range v {
		v[i] = r.Float32() * 100
	}
	reference := func() map[string][]float32 {
		want := make([]float32, nx*ny) // the border stays 0, as out starts
		for y := 1; y < ny-1; y++ {
			for x := 1; x < nx-1; x++ {
				c := float64(v[y*nx+x])
				around := float64(v[(y-1)*nx+x]) + float64(v[(y+1)*nx+x]) + float64(v[y*nx+x-1]) + float64(v[y*nx+x+1])
				want[y*nx+x] = float32(c + alpha*(around-4*c))
			}
		}
		return map[string][]float32{"out": want}
	}
	return &kernels.Data{
		Args:      []any{out, in, int32(nx), int32(ny), float32(alpha)},
		Reference: reference,
		FLOPs:     7 * float64(nx*ny),
		Bytes:     8 * float64(nx*ny),
	}, nil
}

func main() {
	cli.Main(cli.Program("stencil", kernels.Def{
		Name:   "heat",
		Doc:    "one step of heat diffusion on a grid, the border fixed",
		Kernel: heat,
		Sizes: map[string]kernels.Size{
			"tiny": {N: []int{70, 50}},
			"S":    {N: []int{2048, 2048}},
			"M":    {N: []int{4096, 4096}},
		},
		Setup: setup,
	}))
}
