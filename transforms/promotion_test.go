package transforms_test

import (
	"strings"
	"testing"

	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/opencl"
)

// accScaled sums into a private variable and only then reads out's
// element: out[x] = out[x]*0.5 + s, the epilogue of SGEMM's c = beta*c +
// alpha*a*b written in OpenCL C.
var accScaled = accKernel("acc_scaled", func(k *hpl.K, out hpl.ArrayVar, p, q hpl.Expr, loop func(func())) {
	s := k.Float("s", 0.0)
	loop(func() { k.Set(s, s.Add(p.Add(q))) })
	k.Set(out.At(hpl.Idx), out.At(hpl.Idx).Mul(0.5).Add(s))
})

// TestPromotionLoadsLate checks that an element first read after the loop
// nest is loaded there, not before the nest where its value would hold a
// register across it, and that the variants compute the kernel's result
// (on the OpenCL device, from a random start of out).
func TestPromotionLoadsLate(t *testing.T) {
	s, err := opencl.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const nx, n = 64, 24
	args, want := accArgs(accScaled, nx, n, 7)
	out := args[0].(*hpl.Array)
	for i := range out.Float32s() {
		start := float32(i%7) - 3
		out.Float32s()[i] = start
		want[i] += 0.5 * start
	}
	prob := accProblem(accScaled, nx, n)
	settings := []string{"lszx=8", "lszx=8,bszx=4,tw0=8,uf=2", "lszx=8,bszx=4,fullunroll=1,tw0=8,uf=4,lmem=1", "lszx=8,bszx=2,tw0=4,split=2"}
	vs, ps := variantsOf(t, prob, settings)
	for i, v := range vs {
		src, err := codegen.Source(v.Kernel)
		if err != nil {
			t.Fatal(err)
		}
		// The nest's last read of v or its local copy and the first load
		// of out's element.
		nest := strings.LastIndex(src, "v[")
		load := strings.Index(src, "= out[")
		if nest < 0 || load < 0 {
			t.Fatalf("%s: want the loop's reads of v and a load of out:\n%s", settings[i], src)
		}
		if load < nest {
			t.Errorf("%s: out's element is loaded before the loop nest:\n%s", settings[i], src)
		}
		if !strings.Contains(src, "p_out") {
			t.Errorf("%s: out's element is not held privately:\n%s", settings[i], src)
		}
	}
	runBatchOn(t, s, accScaled.Params(), args, map[string][]float32{"out": want}, nx, vs, ps)
}
