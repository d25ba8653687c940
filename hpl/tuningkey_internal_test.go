package hpl

import "testing"

// TestTuningKey checks that the key an optimized Run remembers its search
// under tells apart the kernel's code, the arrays' shapes and the domain,
// and not the value of a float argument, which the variants' code does not
// depend on (TestTimeStepKey checks int arguments).
func TestTuningKey(t *testing.T) {
	saxpy := func(op string) *Kernel {
		return MustKernel("saxpy", func(k *K) {
			y := k.Array("y", Float32, 1)
			x := k.Array("x", Float32, 1)
			a := k.Scalar("a", Float32)
			k.Compute(func() {
				ax := a.Mul(x.At(Idx))
				if op == "-" {
					k.Set(y.At(Idx), ax.Sub(y.At(Idx)))
				} else {
					k.Set(y.At(Idx), ax.Add(y.At(Idx)))
				}
			})
		})
	}
	key := func(k *Kernel, n int, global []int, a float32) [32]byte {
		args := []any{NewArray(Float32, n), NewArray(Float32, n), a}
		sk, err := Specialize(k, args...)
		if err != nil {
			t.Fatal(err)
		}
		return tuningKey(sk, global, args)
	}
	base := key(saxpy("+"), 64, []int{64}, 2)
	if key(saxpy("+"), 64, []int{64}, 2) != base {
		t.Error("the same kernel on the same shapes and values: another key")
	}
	if key(saxpy("+"), 64, []int{64}, 3) != base {
		t.Error("another value of a float argument: another key")
	}
	for what, k := range map[string][32]byte{
		"another operator":    key(saxpy("-"), 64, []int{64}, 2),
		"other array extents": key(saxpy("+"), 128, []int{64}, 2),
		"another global size": key(saxpy("+"), 64, []int{32}, 2),
	} {
		if k == base {
			t.Errorf("%s: the same key", what)
		}
	}
}
