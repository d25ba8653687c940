package runner_test

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/runner"
)

// The kernels of these tests compute y = a*x + y on n floats: they read
// their output, so a Measurer that does not reset it before each launch
// gets wrong results.
const (
	axpyN = 1 << 18
	axpyA = 2.5
)

// axpyProblem is the data of the axpy kernels: y (output), x, a, n.
func axpyProblem() *runner.Problem {
	x, y := make([]float32, axpyN), make([]float32, axpyN)
	for i := range x {
		x[i] = float32(i%97) * 0.25
		y[i] = float32(i%13) - 6
	}
	return &runner.Problem{Args: []runner.Arg{
		{Name: "y", Type: ast.Float, Dims: []int{axpyN}, F32: y, Output: true},
		{Name: "x", Type: ast.Float, Dims: []int{axpyN}, F32: x},
		{Name: "a", Scalar: true, Type: ast.Float, Value: axpyA},
		{Name: "n", Scalar: true, Type: ast.Int, Value: axpyN},
	}}
}

// axpyWant is the expected contents of y, computed here.
func axpyWant(p *runner.Problem) []runner.Arg {
	want := make([]runner.Arg, len(p.Args))
	y, x := p.Args[0].F32, p.Args[1].F32
	w := make([]float32, len(y))
	for i := range w {
		w[i] = axpyA*x[i] + y[i]
	}
	want[0] = runner.Arg{Name: "y", Type: ast.Float, Dims: []int{axpyN}, F32: w, Output: true}
	return want
}

// The reference variant: one element per work-item.
var axpyRef = runner.Variant{
	KernelName: "axpy",
	Global:     []int{axpyN},
	Source: `__kernel void axpy(__global float *y, __global const float *x, float a, int n) {
	int i = get_global_id(0);
	y[i] = a * x[i] + y[i];
}
`,
}

// axpyCoarse is a correct variant: four elements per work-item, 64 per
// work-group. tag makes distinct sources of the same kernel.
func axpyCoarse(tag string) runner.Variant {
	return runner.Variant{
		KernelName: "axpy4",
		Global:     []int{axpyN / 4},
		Local:      []int{64},
		Source: `/* ` + tag + ` */
__kernel void axpy4(__global float *y, __global const float *x, float a, int n) {
	int s = get_global_size(0);
	for (int k = 0; k < 4; k++) {
		int i = get_global_id(0) + k * s;
		y[i] = a * x[i] + y[i];
	}
}
`,
	}
}

// axpyWrong forgets the last element of every 1000.
var axpyWrong = runner.Variant{
	KernelName: "axpy",
	Global:     []int{axpyN},
	Source: `__kernel void axpy(__global float *y, __global const float *x, float a, int n) {
	int i = get_global_id(0);
	if (i % 1000 != 999)
		y[i] = a * x[i] + y[i];
}
`,
}

// axpyBroken does not compile.
var axpyBroken = runner.Variant{
	KernelName: "axpy",
	Global:     []int{axpyN},
	Source: `__kernel void axpy(__global float *y, __global const float *x, float a, int n) {
	y[get_global_id(0)] = a * x[get_global_id(0)] + undeclared_variable;
}
`,
}

// newMeasurer opens the default device for p, skipping the test when
// there is none.
func newMeasurer(t *testing.T, p *runner.Problem, set runner.MeasureSettings) *runner.Measurer {
	t.Helper()
	m, err := runner.NewMeasurer("", p, set)
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// expect checks a result's outcome and that its error mentions each of
// msgs.
func expect(t *testing.T, what string, r autotune.Result, o autotune.Outcome, msgs ...string) {
	t.Helper()
	if r.Outcome != o {
		t.Fatalf("%s: outcome %v (%v), want %v", what, r.Outcome, r.Err, o)
	}
	if o == autotune.OK && !(r.Ms > 0) {
		t.Fatalf("%s: OK in %v ms, want a positive time", what, r.Ms)
	}
	// Every timed launch comes back (through the worker too), the time
	// that counts their median.
	if o == autotune.OK && (len(r.Times) == 0 || r.Ms < slices.Min(r.Times) || r.Ms > slices.Max(r.Times)) {
		t.Fatalf("%s: %v ms is not the median of the timed launches %v", what, r.Ms, r.Times)
	}
	for _, m := range msgs {
		if r.Err == nil || !strings.Contains(r.Err.Error(), m) {
			t.Fatalf("%s: error %v, want it to mention %q", what, r.Err, m)
		}
	}
}

func TestMeasurer(t *testing.T) {
	p := axpyProblem()
	m := newMeasurer(t, p, runner.MeasureSettings{})
	ctx := context.Background()
	if r := m.Measure(ctx, axpyRef); r.Outcome != autotune.Launch {
		t.Fatalf("Measure without expected outputs: %v, want launch", r.Outcome)
	}
	base, err := m.SetReference(axpyRef)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := m.Baseline(); err != nil || b != base || !(b > 0) {
		t.Fatalf("Baseline() = %v, %v; SetReference returned %v", b, err, base)
	}
	// The reference's outputs are the CPU's (to the tolerance).
	want := axpyWant(p)
	for i, w := range want[0].F32 {
		if g := m.Expected()[0].F32[i]; !p.Tolerance.Close(float64(g), float64(w)) {
			t.Fatalf("reference y[%d] = %v, want %v", i, g, w)
		}
	}

	m.Prepare(axpyCoarse("prepared"))
	expect(t, "coarse (prepared)", m.Measure(ctx, axpyCoarse("prepared")), autotune.OK)
	expect(t, "wrong", m.Measure(ctx, axpyWrong), autotune.Wrong, "y[999]", "of 262144 elements wrong")
	expect(t, "broken", m.Measure(ctx, axpyBroken), autotune.Compile, "undeclared_variable")
	expect(t, "coarse", m.Measure(ctx, axpyCoarse("again")), autotune.OK)

	bad := axpyCoarse("odd local")
	bad.Local = []int{96}
	expect(t, "local not dividing global", m.Measure(ctx, bad), autotune.Illegal, "does not divide")
	bad.Local = []int{1 << 20}
	bad.Global = []int{1 << 20}
	expect(t, "huge work-group", m.Measure(ctx, bad), autotune.Illegal)
	// A variant's own build options reach the compiler: a macro that only
	// they define.
	opt := axpyCoarse("options")
	opt.Source = strings.Replace(opt.Source, "y[i] = a *", "y[i] = ONE * a *", 1)
	expect(t, "without its options", m.Measure(ctx, opt), autotune.Compile, "ONE")
	opt.Source = "/* with options */" + opt.Source
	opt.Options = "-D ONE=1.0f"
	expect(t, "with its options", m.Measure(ctx, opt), autotune.OK)
	noname := axpyCoarse("no such kernel")
	noname.KernelName = "nope"
	expect(t, "missing kernel", m.Measure(ctx, noname), autotune.Compile)
}

// TestMeasurerDeadline: a variant whose Deadline leaves no time for a timed
// launch is timed by its first launch, its outputs still checked; one
// with time left gets every timed launch.
func TestMeasurerDeadline(t *testing.T) {
	p := axpyProblem()
	m := newMeasurer(t, p, runner.MeasureSettings{Runs: 5})
	if err := m.SetExpected(axpyWant(p)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v := axpyCoarse("deadline")
	v.Deadline = time.Now()
	r := m.Measure(ctx, v)
	expect(t, "past its deadline", r, autotune.OK)
	if len(r.Times) != 1 {
		t.Fatalf("past its deadline: %d times, want the first launch's alone", len(r.Times))
	}
	w := axpyWrong
	w.Deadline = time.Now()
	expect(t, "wrong, past its deadline", m.Measure(ctx, w), autotune.Wrong, "y[999]")
	v.Deadline = time.Now().Add(time.Minute)
	if r := m.Measure(ctx, v); len(r.Times) != 5 {
		t.Fatalf("a minute before its deadline: %d times, want 5", len(r.Times))
	}
}

func TestMeasurerPrepare(t *testing.T) {
	p := axpyProblem()
	m := newMeasurer(t, p, runner.MeasureSettings{Runs: 1})
	if err := m.SetExpected(axpyWant(p)); err != nil {
		t.Fatal(err)
	}
	// Six prepared, four kept: the first two are built again by Measure.
	var vs []runner.Variant
	for i := range 6 {
		vs = append(vs, axpyCoarse(fmt.Sprint("prepare ", i)))
		m.Prepare(vs[i])
	}
	m.Prepare(axpyBroken)
	for i, v := range vs {
		expect(t, fmt.Sprint("prepared ", i), m.Measure(context.Background(), v), autotune.OK)
	}
	expect(t, "prepared broken", m.Measure(context.Background(), axpyBroken), autotune.Compile, "undeclared_variable")
}

func TestMeasurerExpected(t *testing.T) {
	p := axpyProblem()
	m := newMeasurer(t, p, runner.MeasureSettings{Warmup: -1, Runs: 2})
	if err := m.SetExpected(axpyWant(p)[:1]); err == nil {
		t.Fatal("SetExpected accepted outputs for 1 of 4 arguments")
	}
	if err := m.SetExpected(axpyWant(p)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Baseline(); err == nil {
		t.Error("Baseline without a reference variant: no error")
	}
	r := m.Measure(context.Background(), axpyCoarse("expected"))
	expect(t, "coarse", r, autotune.OK)
	if len(r.Times) != 2 {
		t.Errorf("Runs 2: %d timed launches %v", len(r.Times), r.Times)
	}
	// A reference variant is checked against given outputs.
	if _, err := m.SetReference(axpyWrong); err == nil || !strings.Contains(err.Error(), "wrong") {
		t.Errorf("SetReference(wrong variant) = %v, want a wrong-result error", err)
	}
}

func TestTolerance(t *testing.T) {
	var tol runner.Tolerance
	for _, c := range []struct {
		got, want float64
		ok        bool
	}{
		{1, 1, true},
		{0, 0.0009, true},
		{0, 0.0011, false},
		{1000.9, 1000, true},
		{1001.1, 1000, false},
		{-1e6 * 1.0009, -1e6, true},
		{math.NaN(), math.NaN(), true},
		{math.NaN(), 1, false},
		{1, math.NaN(), false},
		{math.Inf(1), math.Inf(1), true},
		{math.Inf(1), 1e300, false},
	} {
		if ok := tol.Close(c.got, c.want); ok != c.ok {
			t.Errorf("Close(%v, %v) = %v, want %v", c.got, c.want, ok, c.ok)
		}
	}
	exact := runner.Tolerance{Rel: -1, Abs: -1}
	if exact.Close(1+1e-9, 1) {
		t.Error("Tolerance{-1, -1} accepts a difference")
	}
}

func TestProblemValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(p *runner.Problem)
		msg  string
	}{
		{"ok", func(*runner.Problem) {}, ""},
		{"short", func(p *runner.Problem) { p.Args[1].F32 = p.Args[1].F32[1:] }, "need 262144"},
		{"wrong slice", func(p *runner.Problem) { p.Args[1].F64, p.Args[1].F32 = make([]float64, axpyN), nil }, "F32 slice"},
		{"no type", func(p *runner.Problem) { p.Args[2].Type = ast.Invalid }, "type"},
		{"scalar output", func(p *runner.Problem) { p.Args[2].Output = true }, "scalar"},
		{"no output", func(p *runner.Problem) { p.Args[0].Output = false }, "no output"},
		{"no dims", func(p *runner.Problem) { p.Args[0].Dims = nil }, "Dims"},
	} {
		p := axpyProblem()
		c.edit(p)
		err := p.Validate()
		if (err == nil) != (c.msg == "") || (err != nil && !strings.Contains(err.Error(), c.msg)) {
			t.Errorf("%s: Validate() = %v, want an error mentioning %q", c.name, err, c.msg)
		}
	}
}

func TestProblemGob(t *testing.T) {
	p := axpyProblem()
	p.Tolerance.Rel = 1e-5
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(p); err != nil {
		t.Fatal(err)
	}
	var q runner.Problem
	if err := gob.NewDecoder(&buf).Decode(&q); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(q) != fmt.Sprint(*p) {
		t.Error("Problem changed in a gob round trip")
	}
}

// TestMeasurerCutoff checks that a variant slower than its cutoff is timed
// once and still checked: a wrong one is still Wrong.
func TestMeasurerCutoff(t *testing.T) {
	p := axpyProblem()
	m := newMeasurer(t, p, runner.MeasureSettings{Runs: 50})
	if _, err := m.SetReference(axpyRef); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v := axpyCoarse("cut")
	v.CutoffMs = 1e-9
	r := m.Measure(ctx, v)
	expect(t, "cut off", r, autotune.OK)
	if !(r.Ms > v.CutoffMs) {
		t.Errorf("cut-off time %v ms, want above the cutoff", r.Ms)
	}
	w := axpyWrong
	w.CutoffMs = 1e-9
	expect(t, "wrong and cut off", m.Measure(ctx, w), autotune.Wrong)
}
