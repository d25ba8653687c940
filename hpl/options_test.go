package hpl_test

import (
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
