package clc_test

import (
	"strings"
	"testing"

	"github.com/hplopt/hplopt/clc"
)

const mv = `__kernel void mv(__global const float *A, __global const float *x, __global float *y,
                 __global int *count, int m, int n, float scale) {
    int i = get_global_id(0);
    float s = 0.0f;
    for (int j = 0; j < n; j++)
        s += A[i*n + j] * x[j];
    y[i] = scale * s;
    count[i] += 1;
}`

func TestLoad(t *testing.T) {
	var opts clc.Options
	for _, f := range []func() error{
		func() error { return opts.SetGlobal("64") },
		func() error { return opts.SetArg("m=64") },
		func() error { return opts.SetArg("n=16") },
		func() error { return opts.SetArg("scale=0.5") },
	} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	k, err := clc.Load("mv.cl", []byte(mv), opts)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, a := range k.Args {
		args = append(args, a.String())
	}
	want := []string{
		"A  global float[szx][n]  read",
		"x  global float[n]  read",
		"y  global float[szx]  written",
		"count  global int[szx]  read, written",
		"m  int",
		"n  int",
		"scale  float",
	}
	if strings.Join(args, "\n") != strings.Join(want, "\n") {
		t.Errorf("arguments\n%s\nwant\n%s", strings.Join(args, "\n"), strings.Join(want, "\n"))
	}
	shapes, err := k.Shapes()
	if err != nil {
		t.Fatal(err)
	}
	if got := shapes["A"]; len(got) != 2 || got[0] != 64 || got[1] != 16 {
		t.Errorf("A has the shape %v, want [64 16]", got)
	}
	parsed, del, err := k.Specialize()
	if err != nil {
		t.Fatal(err)
	}
	if p := parsed.Param("A"); p.Rank != 1 || p.Extents[0] != 64*16 {
		t.Errorf("the parsed A is %d-dimensional with extents %v, want flat [1024]", p.Rank, p.Extents)
	}
	if p := del.Param("A"); p.Rank != 2 || p.Extents[0] != 64 || p.Extents[1] != 16 {
		t.Errorf("the delinearized A is %d-dimensional with extents %v, want [64 16]", p.Rank, p.Extents)
	}
	if string(k.Source) != mv || k.Name != "mv" {
		t.Errorf("kernel %s, source %q", k.Name, k.Source)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name string
		opts clc.Options
		want string
	}{
		{"unknown argument", clc.Options{Args: map[string]float64{"q": 1}}, "clc: kernel mv has no scalar argument q"},
		{"array given a value", clc.Options{Args: map[string]float64{"A": 1}}, "clc: kernel mv has no scalar argument A"},
		{"fractional int", clc.Options{Args: map[string]float64{"n": 1.5}}, "the int argument n cannot be 1.5"},
		{"inner extent disagrees", clc.Options{Args: map[string]float64{"n": 16}, Shapes: map[string][]int{"A": {4, 8}}},
			"delinear: kernel mv: shape 4x8 of A: the subscripts give dimension 1 the extent n = 16, not 8"},
		{"shape of a scalar", clc.Options{Shapes: map[string][]int{"n": {4}}}, "delinear: kernel mv: a shape is given for n, which is not an array argument"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := clc.Load("mv.cl", []byte(mv), c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
	// Extents that need values not given are reported when evaluated.
	k, err := clc.Load("mv.cl", []byte(mv), clc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Shapes(); err == nil || !strings.Contains(err.Error(), "no value for") {
		t.Errorf("Shapes without values: %v", err)
	}
	var opts clc.Options
	for _, bad := range []struct {
		set func(string) error
		arg string
	}{{opts.SetGlobal, "1,2,3,4"}, {opts.SetGlobal, "-1"}, {opts.SetGlobal, "x"}, {opts.SetArg, "n"}, {opts.SetArg, "=3"}, {opts.SetArg, "n=x"},
		{opts.SetShape, "a"}, {opts.SetShape, "a=0x3"}, {opts.SetShape, "=3"}} {
		if err := bad.set(bad.arg); err == nil {
			t.Errorf("%q was accepted", bad.arg)
		}
	}
}
