package hpl_test

import (
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/hpl"
)

// TestVariantBuildOptions checks that a variant's build options
// (ast.Kernel.Options, -cl-denorms-are-zero with ftz) reach the compiler
// when the evaluation runs it: the variant built with the option runs and
// computes the product, and one whose option the compiler does not know
// fails to build, naming the option's error.
func TestVariantBuildOptions(t *testing.T) {
	c := hpl.NewArray(hpl.Float32, 4, 4)
	a := hpl.NewArray(hpl.Float32, 4, 4)
	b := hpl.NewArray(hpl.Float32, 4, 4)
	av, bv := a.Float32s(), b.Float32s()
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			av[i*4+j] = float32(i + j)
			bv[i*4+j] = float32(i * j)
		}
	}
	v, err := hpl.Specialize(mxm, c, a, b, 4)
	if err != nil {
		t.Fatal(err)
	}
	withFTZ := ast.Clone(v)
	withFTZ.Options = "-cl-denorms-are-zero"
	if err := hpl.Eval(mxm).Variant(withFTZ).Run(c, a, b, 4); err != nil {
		t.Fatalf("the variant built with -cl-denorms-are-zero: %v", err)
	}
	if got := c.ReadFloat32s()[1*4+2]; got != 40 { // the sum over k of (1+k)*(2k)
		t.Errorf("c[1][2] = %v, want 40", got)
	}
	bad := ast.Clone(v)
	bad.Options = "-cl-hplopt-no-such-option"
	if err := hpl.Eval(mxm).Variant(bad).Run(c, a, b, 4); err == nil {
		t.Fatal("a variant built with an option the compiler does not know ran: its options did not reach the compiler")
	}
}

// TestCode: an Evaluation given Code runs that OpenCL C instead of the
// code it generates, with the same checks and launch, and Source returns
// it; "" goes back to the generated code.
func TestCode(t *testing.T) {
	c := hpl.NewArray(hpl.Float32, 4, 4)
	a := hpl.NewArray(hpl.Float32, 4, 4)
	b := hpl.NewArray(hpl.Float32, 4, 4)
	av, bv := a.Float32s(), b.Float32s()
	for i := range av {
		av[i], bv[i] = float32(i%4+i/4), float32((i%4)*(i/4))
	}
	ev := hpl.Eval(mxm)
	src, err := ev.Source(c, a, b, 4)
	if err != nil {
		t.Fatal(err)
	}
	// The same kernel, its sum doubled.
	doubled := strings.Replace(src, " += ", " += 2.0f * ", 1)
	if doubled == src {
		t.Fatalf("no accumulation to edit in\n%s", src)
	}
	if err := ev.Code(doubled).Run(c, a, b, 4); err != nil {
		t.Fatal(err)
	}
	if got := c.ReadFloat32s()[1*4+2]; got != 80 { // twice the sum over k of (1+k)*(2k)
		t.Errorf("with the edited code c[1][2] = %v, want 80", got)
	}
	if got, err := ev.Source(c, a, b, 4); err != nil || got != doubled {
		t.Errorf("Source with Code: %v, want the code given", err)
	}
	if err := ev.Code("").Run(c, a, b, 4); err != nil {
		t.Fatal(err)
	}
	if got := c.ReadFloat32s()[1*4+2]; got != 40 {
		t.Errorf("back to the generated code: c[1][2] = %v, want 40", got)
	}
	if err := ev.Code("__kernel void other(void) {}").Run(c, a, b, 4); err == nil {
		t.Error("code without the kernel ran")
	}
}
