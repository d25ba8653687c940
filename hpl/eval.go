package hpl

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/patterns"
	"github.com/hplopt/hplopt/runner"
)

// Evaluation is one request to run a kernel, the paper's eval(kernel): it
// collects the global and local domains and the device, and Run runs the
// kernel on arguments.
//
//	err := hpl.Eval(mxm).Global(nx, ny).Local(16, 16).Run(c, a, b, k)
//
// Before anything reaches OpenCL, Run checks the arguments against the
// kernel's parameters and the domains against the kernel and the device,
// and reports a mistake as an *Error naming the kernel and the rule broken.
// It specializes the kernel for the arrays' extents, generates OpenCL C,
// builds the program once per source and device, uploads the arguments that
// are stale on the device and runs. An Evaluation may be run many times; it
// is not safe for concurrent use.
type Evaluation struct {
	kernel  *Kernel
	variant *ast.Kernel
	code    string // OpenCL C run in place of the generated code (Code)
	global  []int
	local   []int
	spec    string
	dev     any // an *opencl.Device given to On
	elapsed time.Duration
	err     error              // a misuse of the builder methods (On(nil))
	opt     *OptimizerSettings // set by Optimize
	tuning  *Tuning            // the search behind the last optimized Run
}

// Eval starts an evaluation of k. With no Global, the global domain is the
// shape of the first argument (x first), as in HPL; with no Local, the
// OpenCL implementation picks the work-groups; with no Device or On, the
// default device runs it (see opencl.Select).
func Eval(k *Kernel) *Evaluation { return &Evaluation{kernel: k} }

// Global sets the global domain: work-items per dimension, x first. The
// kernel needs one size per dimension it uses (idx alone: 1; idy: 2; idz: 3).
func (e *Evaluation) Global(sizes ...int) *Evaluation {
	e.global = append([]int(nil), sizes...)
	return e
}

// Local sets the work-group size per dimension, x first: as many sizes as
// the global domain has, each dividing it, their product within the
// device's largest work-group.
func (e *Evaluation) Local(sizes ...int) *Evaluation {
	e.local = append([]int(nil), sizes...)
	return e
}

// Device selects the device by a spec string, as opencl.Select reads it
// (for example "pocl", "nvidia:0", or "" for the default).
func (e *Evaluation) Device(spec string) *Evaluation {
	e.spec, e.dev, e.err = spec, nil, nil
	return e
}

// Variant makes Run execute v, an optimized version of the kernel (as the
// transform passes make it) with the same parameters, instead of the kernel
// as written. v's array extents, if set, must match the arguments.
func (e *Evaluation) Variant(v *ast.Kernel) *Evaluation {
	e.variant = v
	return e
}

// Code makes Run and Build use src, OpenCL C defining the kernel (or the
// variant) under its name with its parameters, in place of the code that
// hplopt generates: a hand-edited copy of `hplopt gen`'s output, for one.
// Everything else stays: the checks of the arguments and domains, the
// kernel's build options and the launch. "" goes back to generating.
func (e *Evaluation) Code(src string) *Evaluation {
	e.code = src
	return e
}

// source returns the OpenCL C of k: the code given to Code, or k's
// generated code.
func (e *Evaluation) source(k *ast.Kernel) (string, error) {
	if e.code != "" {
		return e.code, nil
	}
	return codegen.Source(k)
}

// Elapsed returns the kernel time of the last successful Run, measured by
// OpenCL profiling events (transfers and compilation excluded).
func (e *Evaluation) Elapsed() time.Duration { return e.elapsed }

func (e *Evaluation) name() string {
	switch {
	case e == nil || e.kernel == nil || e.kernel.ast == nil:
		return "?"
	}
	return e.kernel.ast.Name
}

func (e *Evaluation) fail(format string, args ...any) error {
	return &Error{Kernel: e.name(), Rule: fmt.Sprintf(format, args...)}
}

// guard turns a panic into an error at an API boundary.
func (e *Evaluation) guard(err *error) {
	if r := recover(); r != nil {
		*err = e.fail("internal error: %v", r)
	}
}

// Specialize checks args against the kernel's parameters and returns a copy
// of the kernel to run (the variant, if one was given) with every array
// parameter's Extents set to the shape of its argument: the input of the
// optimizer and of codegen.
func (e *Evaluation) Specialize(args ...any) (k *ast.Kernel, err error) {
	defer e.guard(&err)
	if e.kernel == nil || e.kernel.ast == nil {
		return nil, &Error{Kernel: "?", Rule: "Eval of a nil kernel"}
	}
	base := e.kernel.ast
	if e.variant != nil {
		if err := sameParams(base, e.variant); err != nil {
			return nil, err
		}
		base = e.variant
	}
	return specialize(base, args)
}

// Specialize is Eval(k).Specialize(args...).
func Specialize(k *Kernel, args ...any) (*ast.Kernel, error) { return Eval(k).Specialize(args...) }

// sameParams checks that a variant has the parameters of the kernel.
func sameParams(k, v *ast.Kernel) error {
	bad := func(format string, args ...any) error {
		return &Error{Kernel: k.Name, Rule: "the variant does not match the kernel: " + fmt.Sprintf(format, args...)}
	}
	if len(v.Params) != len(k.Params) {
		return bad("%d parameters, the kernel has %d", len(v.Params), len(k.Params))
	}
	for i, p := range k.Params {
		q := v.Params[i]
		if q.Name != p.Name || q.Type != p.Type || q.Rank != p.Rank {
			return bad("parameter %d is %s, the kernel's is %s", i+1, paramString(q), paramString(p))
		}
	}
	return nil
}

func paramString(p *ast.Param) string {
	if p.Rank == 0 {
		return fmt.Sprintf("%s %s", p.Type, p.Name)
	}
	return fmt.Sprintf("%s %s%s", p.Type, p.Name, strings.Repeat("[]", p.Rank))
}

// specialize checks the arguments and sets the extents on a clone of k.
func specialize(k *ast.Kernel, args []any) (*ast.Kernel, error) {
	bad := func(format string, a ...any) error {
		return &Error{Kernel: k.Name, Rule: fmt.Sprintf(format, a...)}
	}
	if len(args) != len(k.Params) {
		var ps []string
		for _, p := range k.Params {
			ps = append(ps, paramString(p))
		}
		return nil, bad("%d argument(s) given, the kernel takes %d: (%s)", len(args), len(k.Params), strings.Join(ps, ", "))
	}
	out := ast.Clone(k)
	for i, p := range out.Params {
		if p.Rank == 0 {
			if _, err := scalarArg(p, args[i]); err != nil {
				return nil, bad("argument %d (%s): %v", i+1, p.Name, err)
			}
			continue
		}
		a, ok := args[i].(*Array)
		if !ok || a == nil {
			return nil, bad("argument %d (%s) is a %d-dimensional %s array; got %s", i+1, p.Name, p.Rank, p.Type, describe(args[i]))
		}
		if a.t != p.Type {
			return nil, bad("argument %d (%s) is an array of %s; got %s", i+1, p.Name, p.Type, a)
		}
		if len(a.dims) != p.Rank {
			return nil, bad("argument %d (%s) has %d dimension(s); got %s", i+1, p.Name, p.Rank, a)
		}
		if p.Extents != nil && !equalInts(p.Extents, a.dims) {
			return nil, bad("argument %d (%s): the variant was specialized for extents %v; got %s", i+1, p.Name, p.Extents, a)
		}
		p.Extents = append([]int(nil), a.dims...)
	}
	return out, nil
}

func describe(x any) string {
	switch x := x.(type) {
	case nil:
		return "nil"
	case *Array:
		if x == nil {
			return "a nil *Array"
		}
		return "the array " + x.String()
	}
	return fmt.Sprintf("%T %v", x, x)
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// scalarArg converts a Go value for a scalar parameter: int32 for Int,
// float32 for Float, float64 for Double. Any Go integer that fits is
// accepted; floats are accepted for floating-point parameters only.
func scalarArg(p *ast.Param, x any) (any, error) {
	v := reflect.ValueOf(x)
	if !v.IsValid() {
		return nil, fmt.Errorf("a scalar %s; got nil", p.Type)
	}
	if _, ok := x.(*Array); ok {
		return nil, fmt.Errorf("a scalar %s; got the array %s", p.Type, x)
	}
	var isInt, isFloat bool
	var i int64
	var f float64
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		isInt, i = true, v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if v.Uint() > math.MaxInt64 {
			return nil, fmt.Errorf("%v does not fit in %s", x, p.Type)
		}
		isInt, i = true, int64(v.Uint())
	case reflect.Float32, reflect.Float64:
		isFloat, f = true, v.Float()
	default:
		return nil, fmt.Errorf("a scalar %s; got %T", p.Type, x)
	}
	switch p.Type {
	case ast.Int:
		if isFloat {
			return nil, fmt.Errorf("an int32; got the %T %v (convert it explicitly)", x, x)
		}
		if i < math.MinInt32 || i > math.MaxInt32 {
			return nil, fmt.Errorf("%d does not fit in int32", i)
		}
		return int32(i), nil
	case ast.Float:
		if isInt {
			return float32(i), nil
		}
		return float32(f), nil
	case ast.Double:
		if isInt {
			return float64(i), nil
		}
		return f, nil
	}
	return nil, fmt.Errorf("unsupported parameter type %s", p.Type)
}

// dimsUsed is the number of dimensions a kernel's predefined identifiers
// reach: 3 if it uses idz (or lidz, ...), 0 if it uses none.
func dimsUsed(k *ast.Kernel) int {
	n := 0
	ast.Inspect(k.Body, func(x ast.Node) bool {
		if s, ok := x.(*ast.Special); ok {
			n = max(n, s.Dim+1)
		}
		return true
	})
	return n
}

// domains checks and completes the global and local domains for kernel k
// (specialized) and its arguments, before any device is involved.
func (e *Evaluation) domains(k *ast.Kernel, args []any) (global, local []int, err error) {
	dims := dimsUsed(k)
	global = e.global
	if global == nil {
		a, _ := args[0].(*Array)
		if a == nil || dims != 0 && a.Rank() != dims {
			first := "the first argument is not an array"
			if a != nil {
				first = fmt.Sprintf("the first argument, %s, has %d dimension(s)", a, a.Rank())
			}
			return nil, nil, e.fail("no global size: call Global with %s (the default, the shape of the first argument, does not fit: %s)", count(dims, "size"), first)
		}
		for i := a.Rank() - 1; i >= 0; i-- {
			global = append(global, a.dims[i])
		}
	}
	switch {
	case dims == 0 && (len(global) < 1 || len(global) > 3):
		return nil, nil, e.fail("global size %v: give 1 to 3 sizes", global)
	case dims != 0 && len(global) != dims:
		return nil, nil, e.fail("global size %v has %d dimension(s), the kernel uses %d (%s)", global, len(global), dims, dimNames(dims))
	}
	for d, g := range global {
		switch {
		case g <= 0:
			return nil, nil, e.fail("global size %v: size %d in dimension %s is not positive", global, g, "xyz"[d:d+1])
		case g > math.MaxInt32:
			// Kernels index with 32-bit ints: a larger domain would wrap
			// its ids.
			return nil, nil, e.fail("global size %v: size %d in dimension %s exceeds the largest supported, 2^31-1", global, g, "xyz"[d:d+1])
		}
	}
	local = e.local
	if local == nil {
		return global, nil, nil
	}
	if len(local) != len(global) {
		return nil, nil, e.fail("local size %v has %d dimension(s), the global size %v has %d", local, len(local), global, len(global))
	}
	for d, l := range local {
		if l <= 0 {
			return nil, nil, e.fail("local size %v: size %d in dimension %s is not positive", local, l, "xyz"[d:d+1])
		}
		if global[d]%l != 0 {
			return nil, nil, e.fail("the local size %d does not divide the global size %d in dimension %s (global %v, local %v)", l, global[d], "xyz"[d:d+1], global, local)
		}
	}
	return global, local, nil
}

func count(n int, what string) string {
	if n == 0 {
		return "1 to 3 " + what + "s"
	}
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func dimNames(n int) string {
	return strings.Join([]string{"idx", "idy", "idz"}[:n], ", ")
}

// intArgs returns the values of k's int arguments in args (checked).
func intArgs(k *ast.Kernel, args []any) map[string]int {
	ints := map[string]int{}
	for i, p := range k.Params {
		if p.Rank == 0 && p.Type == ast.Int {
			if v, err := scalarArg(p, args[i]); err == nil {
				ints[p.Name] = int(v.(int32))
			}
		}
	}
	return ints
}

// arraySizes lists the array arguments of k (specialized for args) with
// their sizes, for the memory check.
func arraySizes(k *ast.Kernel, args []any) []runner.ArraySize {
	_, w := ast.Accesses(k)
	var out []runner.ArraySize
	for i, p := range k.Params {
		if a, ok := args[i].(*Array); ok && p.Rank > 0 {
			out = append(out, runner.ArraySize{Name: p.Name, Bytes: int64(a.Len()) * int64(a.t.Size()), Output: w[p.Name]})
		}
	}
	return out
}

// localBytes is the local memory the kernel declares.
func localBytes(k *ast.Kernel) int64 {
	var n int64
	ast.Inspect(k.Body, func(x ast.Node) bool {
		if d, ok := x.(*ast.Decl); ok && d.Mem == ast.Local {
			b := int64(d.Type.Size())
			for _, e := range d.Extents {
				b *= int64(e)
			}
			n += b
		}
		return true
	})
	return n
}

// Source returns the OpenCL C that Run would build for args.
func (e *Evaluation) Source(args ...any) (src string, err error) {
	defer e.guard(&err)
	k, err := e.Specialize(args...)
	if err != nil {
		return "", err
	}
	return e.source(k)
}

// Run runs the kernel on args: *Array for array parameters and Go numbers
// for scalars (int32, or any Go integer that fits, for Int32; float32,
// float64 or an integer for Float32 and Float64). It blocks until the
// kernel finishes; results stay on the device until the host reads them.
func (e *Evaluation) Run(args ...any) (err error) {
	defer e.guard(&err)
	if e.err != nil {
		return e.err
	}
	if e.opt != nil && e.variant == nil && e.code == "" {
		return e.runOptimized(args)
	}
	k, err := e.Specialize(args...)
	if err != nil {
		return err
	}
	global, local, err := e.domains(k, args)
	if err != nil {
		return err
	}
	if err := patterns.CheckBounds(k, global, intArgs(k, args)); err != nil {
		return e.fail("%v", err)
	}
	t, err := e.target()
	if err != nil {
		return e.fail("%v", err)
	}
	if err := t.checkLaunch(global, local, localBytes(k)); err != nil {
		return e.fail("%v", err)
	}
	if err := t.checkMemory(arraySizes(k, args)); err != nil {
		return e.fail("%v", err)
	}
	src, err := e.source(k)
	if err != nil {
		return err
	}
	kargs := make([]kernelArg, len(args))
	for i, p := range k.Params {
		if p.Rank == 0 {
			v, _ := scalarArg(p, args[i])
			kargs[i] = kernelArg{scalar: v}
			continue
		}
		buf, err := args[i].(*Array).onDevice(t)
		if err != nil {
			return e.fail("argument %d (%s): %v", i+1, p.Name, err)
		}
		kargs[i] = kernelArg{buf: buf}
	}
	d, err := t.run(src, k.Options, k.Name, kargs, global, local)
	if err != nil {
		return e.fail("%v", err)
	}
	_, w := ast.Accesses(k)
	for i, p := range k.Params {
		if w[p.Name] {
			args[i].(*Array).wroteOn(t)
		}
	}
	e.elapsed = d
	return nil
}

// kernelArg is one argument for target.run: a device buffer or a scalar
// (int32, float32 or float64).
type kernelArg struct {
	buf    buffer
	scalar any
}

// DeviceInfo describes a device: its name and what it allows a launch
// (0 where not known).
type DeviceInfo struct {
	Name         string
	MaxWorkGroup int   // work-items per work-group
	MaxItems     []int // work-items per work-group and dimension
	LocalMem     int64 // bytes of local memory per work-group
	ComputeUnits int
}

// DeviceInfo opens the evaluation's device (sessions are cached: this costs
// nothing later) and describes it.
func (e *Evaluation) DeviceInfo() (info DeviceInfo, err error) {
	defer e.guard(&err)
	t, err := e.target()
	if err != nil {
		return DeviceInfo{}, e.fail("%v", err)
	}
	return t.info(), nil
}

// target is a device ready to run kernels: a runner.Session, with its
// cache of built programs.
type target interface {
	device
	info() DeviceInfo
	// checkLaunch rejects a launch geometry or a use of local memory the
	// device does not allow.
	checkLaunch(global, local []int, localBytes int64) error
	// checkMemory rejects arrays the device cannot hold
	// (runner.CheckDevice).
	checkMemory(arrays []runner.ArraySize) error
	// run builds src with the build options (once per source and
	// options) and runs its kernel name.
	run(src, options, name string, args []kernelArg, global, local []int) (time.Duration, error)
}
