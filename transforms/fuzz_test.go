package transforms_test

import (
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/patterns"
	"github.com/hplopt/hplopt/transforms"
)

// fuzzing reports whether go test -fuzz is running, rather than the seed
// corpus as regression tests.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// FuzzRandomKernel pushes a random kernel (randomKernel, from the seed)
// through the pattern analysis, the passes for random settings and code
// generation, and checks what must hold for any kernel: no panic (Apply
// runs the passes with the invariants checked after each, not recovering:
// a panic fails the input), every setting either legal or rejected with
// ErrIllegal, every variant passes Check and prints as OpenCL, the
// single-point setting is legal, and patterns.CheckBounds finds no
// overflow in a kernel that has none. For a few of the seeds (see
// deviceSeeds; one input in eight under -fuzz) a few legal variants also
// run on the OpenCL device and must compute what the single-point kernel
// does.
//
//	go test ./transforms -run '^$' -fuzz FuzzRandomKernel -fuzztime 2m
func FuzzRandomKernel(f *testing.F) {
	for seed := uint64(1); seed <= addedSeeds; seed++ {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 0x5eed))
		rk, err := randomKernel(r)
		if err != nil {
			t.Fatal(err)
		}
		args := rk.args()
		k, err := hpl.Specialize(rk.kernel, args...)
		if err != nil {
			t.Fatal(err)
		}
		ints := map[string]int{}
		for i, p := range k.Params {
			if v, ok := args[i].(int32); ok {
				ints[p.Name] = int(v)
			}
		}
		if err := patterns.CheckBounds(k, rk.global, ints); err != nil {
			t.Fatalf("a kernel whose reads stay inside their arrays: %v\n%s", err, ast.String(k))
		}
		prob := &transforms.Problem{Kernel: k, Domain: rk.global, Ints: ints, MaxWorkGroup: 256, LocalMem: 48 << 10}
		if err := prob.Analyze(); err != nil {
			t.Fatalf("Analyze: %v\n%s", err, ast.String(k))
		}
		if _, err := transforms.ApplyChecked(prob, transforms.Baseline(prob)); err != nil {
			t.Fatalf("the single-point setting %s: %v\n%s", transforms.Baseline(prob), err, ast.String(k))
		}
		var legal []*transforms.Variant
		for i := 0; i < 40; i++ {
			p := randomParams(r, rk.size)
			v, err := transforms.ApplyChecked(prob, p)
			if errors.Is(err, transforms.ErrIllegal) {
				continue
			}
			if err != nil {
				t.Fatalf("setting %s: %v (want a variant or ErrIllegal)\n%s", p, err, ast.String(k))
			}
			if err := transforms.Check(v.Kernel, prob.LocalMem); err != nil {
				t.Fatalf("setting %s: %v\n%s", p, err, ast.String(v.Kernel))
			}
			if _, err := codegen.Source(v.Kernel); err != nil {
				t.Fatalf("setting %s: %v\n%s", p, err, ast.String(v.Kernel))
			}
			legal = append(legal, v)
		}
		runs := 0
		switch {
		case fuzzing() && seed%8 == 0:
			runs = 1
		case !fuzzing() && (seed <= deviceSeeds || seed > addedSeeds):
			runs = 2
		}
		if runs > 0 && len(legal) > 0 {
			runVariants(t, rk, legal[:min(runs, len(legal))])
		}
	})
}

// The seeds 1 to addedSeeds are the corpus in the code; of them, 1 to
// deviceSeeds run variants on the device in the regression run, as do the
// seeds of testdata/fuzz/FuzzRandomKernel (the inputs fuzzing found
// failing, kept with their fixes).
const (
	addedSeeds  = 12
	deviceSeeds = 3
)

// runVariants runs the single-point kernel and each variant on fresh
// copies of the arguments on the default device and compares the outputs.
func runVariants(t *testing.T, rk *randKernel, vs []*transforms.Variant) {
	t.Helper()
	if _, err := hpl.Eval(rk.kernel).DeviceInfo(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	want := rk.args()
	if err := hpl.Eval(rk.kernel).Global(rk.global...).Run(want...); err != nil {
		t.Fatalf("the single-point kernel: %v\n%s", err, ast.String(rk.kernel.AST()))
	}
	for _, v := range vs {
		got := rk.args()
		if err := hpl.Eval(rk.kernel).Variant(v.Kernel).Global(v.Global...).Local(v.Local...).Run(got...); err != nil {
			t.Fatalf("variant (global %v, local %v): %v\n%s", v.Global, v.Local, err, ast.String(v.Kernel))
		}
		for _, o := range rk.outs {
			w, g := want[o].(*hpl.Array).ReadFloat32s(), got[o].(*hpl.Array).ReadFloat32s()
			for i := range w {
				if d := math.Abs(float64(g[i] - w[i])); !(d <= 1e-2+1e-3*math.Abs(float64(w[i]))) {
					t.Fatalf("variant (global %v, local %v): output %d element %d = %v, the single-point kernel's %v\nkernel:\n%s\nvariant:\n%s",
						v.Global, v.Local, o, i, g[i], w[i], ast.String(rk.kernel.AST()), ast.String(v.Kernel))
				}
			}
		}
	}
}
