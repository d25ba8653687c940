package hpl

import (
	"fmt"
	"time"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/runner"
)

// On makes the evaluation run on device d (from opencl.Select or
// opencl.AllDevices).
func (e *Evaluation) On(d *opencl.Device) *Evaluation {
	e.spec, e.dev = "", d
	if d == nil {
		e.err = e.fail("On(nil): no device")
	} else {
		e.err = nil
	}
	return e
}

// Build specializes the kernel for args, generates its OpenCL and builds
// the program for the evaluation's device, without running it: Run then
// finds the program in the device's cache (runner.Session). Builds of
// different programs may run concurrently (from different Evaluations)
// with each other and with runs.
func (e *Evaluation) Build(args ...any) (err error) {
	defer e.guard(&err)
	p, err := e.program(args)
	if err != nil {
		return err
	}
	p.Release()
	return nil
}

// BuildLog builds the kernel for args as Build does (Run's program, from
// the device's cache when it ran) and returns the compiler's log of the
// build: warnings, and with NVIDIA's -cl-nv-verbose among the kernel's
// build options (ast.Kernel.Options of a variant) the registers and spills
// of the kernel.
func (e *Evaluation) BuildLog(args ...any) (log string, err error) {
	defer e.guard(&err)
	p, err := e.program(args)
	if err != nil {
		return "", err
	}
	defer p.Release()
	return p.Log(), nil
}

// Binary builds the kernel for args as Build does and returns the
// program's binary for the device: the PTX that NVIDIA's compiler made of
// the OpenCL C (ptxas and cuobjdump take it further), an archive of its
// kernel cache for PoCL.
func (e *Evaluation) Binary(args ...any) (bin []byte, err error) {
	defer e.guard(&err)
	p, err := e.program(args)
	if err != nil {
		return nil, err
	}
	defer p.Release()
	return p.Binary()
}

// program specializes the kernel for args, generates its OpenCL and
// returns its program built with the kernel's options, from the device's
// cache when built before. The caller releases it.
func (e *Evaluation) program(args []any) (*runner.Program, error) {
	if e.err != nil {
		return nil, e.err
	}
	k, err := e.Specialize(args...)
	if err != nil {
		return nil, err
	}
	src, err := e.source(k)
	if err != nil {
		return nil, err
	}
	t, err := e.target()
	if err != nil {
		return nil, e.fail("%v", err)
	}
	p, err := t.s.Build(src, k.Options)
	if err != nil {
		return nil, e.fail("%v", err)
	}
	return p, nil
}

// target returns the runner session of the evaluation's device, opened
// once per process (runner.Open keeps the sessions).
func (e *Evaluation) target() (session, error) {
	var s *runner.Session
	var err error
	if d, ok := e.dev.(*opencl.Device); ok && d != nil {
		s, err = runner.OpenDevice(d)
	} else {
		s, err = runner.Open(e.spec)
	}
	return session{s}, err
}

// session is a device for the arrays' bookkeeping and Run: one
// runner.Session, through which every build and launch goes. It is a
// comparable value: two sessions of one device are equal.
type session struct{ s *runner.Session }

func (s session) String() string { return s.s.String() }

func (s session) info() DeviceInfo {
	d := s.s.Device()
	return DeviceInfo{
		Name:         d.Name,
		MaxWorkGroup: d.MaxWorkGroupSize,
		MaxItems:     append([]int(nil), d.MaxWorkItemSizes...),
		LocalMem:     d.LocalMemSize,
		ComputeUnits: d.ComputeUnits,
	}
}

func (s session) checkLaunch(global, local []int, localBytes int64) error {
	return s.s.CheckLaunch(global, local, localBytes)
}

func (s session) checkMemory(arrays []runner.ArraySize) error {
	return runner.CheckDevice(s.s.Device(), arrays, 0)
}

func (s session) run(src, options, name string, args []kernelArg, global, local []int) (time.Duration, error) {
	kargs := make([]runner.KernelArg, len(args))
	for i, a := range args {
		switch v := a.scalar.(type) {
		case nil:
			kargs[i].Buffer = a.buf.(clBuffer).b
		case int32:
			kargs[i] = runner.KernelArg{Type: ast.Int, Value: float64(v)}
		case float32:
			kargs[i] = runner.KernelArg{Type: ast.Float, Value: float64(v)}
		case float64:
			kargs[i] = runner.KernelArg{Type: ast.Double, Value: v}
		default:
			return 0, fmt.Errorf("argument %d: unsupported scalar %T", i+1, v)
		}
	}
	return s.s.Launch(src, options, name, kargs, global, local)
}

func (s session) alloc(n int) (buffer, error) {
	b, err := s.s.NewBuffer(n)
	if err != nil {
		return nil, err
	}
	return clBuffer{b}, nil
}

// clBuffer is an array's buffer on a session's device.
type clBuffer struct{ b *runner.Buffer }

func (b clBuffer) write(src []byte) error { return b.b.Write(src) }
func (b clBuffer) read(dst []byte) error  { return b.b.Read(dst) }
func (b clBuffer) release()               { b.b.Close() }

var (
	_ target = session{}
	_ buffer = clBuffer{}
)
