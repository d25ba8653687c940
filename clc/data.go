package clc

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hplopt/hplopt/ast"
)

// Inputs makes arguments for Run for kernel k (parsed or delinearized: only
// its parameters matter): for each array, random data of the size its
// shape gives (floats uniform in [-1, 1), ints in [-50, 50)); for each
// scalar, its value from scalars, converted to the argument's type.
func Inputs(k *ast.Kernel, shapes map[string][]int, scalars map[string]float64, rng *rand.Rand) ([]any, error) {
	var args []any
	for _, p := range k.Params {
		if p.Rank == 0 {
			v, ok := scalars[p.Name]
			if !ok {
				return nil, fmt.Errorf("clc: kernel %s: no value for the argument %s", k.Name, p.Name)
			}
			switch p.Type {
			case ast.Int:
				if v != math.Trunc(v) || v < math.MinInt32 || v > math.MaxInt32 {
					return nil, fmt.Errorf("clc: kernel %s: the int argument %s cannot be %v", k.Name, p.Name, v)
				}
				args = append(args, int32(v))
			case ast.Float:
				args = append(args, float32(v))
			default:
				args = append(args, v)
			}
			continue
		}
		shape, ok := shapes[p.Name]
		if !ok {
			return nil, fmt.Errorf("clc: kernel %s: no shape for the array %s", k.Name, p.Name)
		}
		n := 1
		for _, e := range shape {
			n *= e
		}
		switch p.Type {
		case ast.Float:
			x := make([]float32, n)
			for i := range x {
				x[i] = rng.Float32()*2 - 1
			}
			args = append(args, x)
		case ast.Double:
			x := make([]float64, n)
			for i := range x {
				x[i] = rng.Float64()*2 - 1
			}
			args = append(args, x)
		default:
			x := make([]int32, n)
			for i := range x {
				x[i] = rng.Int32N(100) - 50
			}
			args = append(args, x)
		}
	}
	return args, nil
}

// Copy returns a copy of arguments made by Inputs, the arrays copied.
func Copy(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case []float32:
			out[i] = append([]float32(nil), a...)
		case []float64:
			out[i] = append([]float64(nil), a...)
		case []int32:
			out[i] = append([]int32(nil), a...)
		default:
			out[i] = a
		}
	}
	return out
}

// Compare checks that every array of got equals the same array of want
// (arguments of kernel k after two runs): ints exactly, floats to the
// relative tolerance tol (absolute below 1), NaN equal to NaN. It reports
// the first difference of each array.
func Compare(k *ast.Kernel, want, got []any, tol float64) error {
	var errs []error
	near := func(a, b float64) bool {
		return math.Abs(a-b) <= tol*max(1, math.Abs(a)) || math.IsNaN(a) && math.IsNaN(b)
	}
	for i, p := range k.Params {
		if p.Rank == 0 {
			continue
		}
		bad, w, g := -1, any(nil), any(nil)
		switch ws := want[i].(type) {
		case []float32:
			gs := got[i].([]float32)
			for j := range ws {
				if !near(float64(ws[j]), float64(gs[j])) {
					bad, w, g = j, ws[j], gs[j]
					break
				}
			}
		case []float64:
			gs := got[i].([]float64)
			for j := range ws {
				if !near(ws[j], gs[j]) {
					bad, w, g = j, ws[j], gs[j]
					break
				}
			}
		case []int32:
			gs := got[i].([]int32)
			for j := range ws {
				if ws[j] != gs[j] {
					bad, w, g = j, ws[j], gs[j]
					break
				}
			}
		}
		if bad >= 0 {
			errs = append(errs, fmt.Errorf("%s[%d] is %v, want %v", p.Name, bad, g, w))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("clc: kernel %s: %v", k.Name, errs)
	}
	return nil
}
