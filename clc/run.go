package clc

import (
	"errors"
	"fmt"

	"github.com/hplopt/hplopt/opencl"
)

// Run builds the OpenCL C source src on the session's device and runs its
// kernel name once: Build, then Program.Run.
func Run(s *opencl.Session, src, name string, args []any, global, local []int) (ns int64, err error) {
	p, err := Build(s, src)
	if err != nil {
		return 0, err
	}
	defer p.Close()
	return p.Run(name, args, global, local)
}

// Program is OpenCL C built for one session's device, whose kernels run
// on host data.
type Program struct {
	s    *opencl.Session
	prog *opencl.Program
}

// Build builds the OpenCL C source src on the session's device.
func Build(s *opencl.Session, src string) (*Program, error) {
	prog, err := s.Context.Build(src, "")
	if err != nil {
		return nil, fmt.Errorf("clc: building: %v", err)
	}
	return &Program{s: s, prog: prog}, nil
}

// Close releases the program.
func (p *Program) Close() error { return p.prog.Close() }

// Run runs the program's kernel name once over the global domain (x
// first) in work-groups of local (nil: the implementation chooses). args
// are the kernel's arguments in order: []float32, []float64 or []int32
// host data for an array, which is copied to the device and, after the
// run, back into the same slice; int32, float32 or float64 for a scalar.
// It returns the kernel's time in nanoseconds. This is how a kernel
// written in OpenCL C runs as written, the reference its optimized
// variants are checked against.
func (p *Program) Run(name string, args []any, global, local []int) (ns int64, err error) {
	fail := func(format string, a ...any) (int64, error) {
		return 0, fmt.Errorf("clc: running kernel %s: %s", name, fmt.Sprintf(format, a...))
	}
	s := p.s
	k, err := p.prog.Kernel(name)
	if err != nil {
		return fail("%v", err)
	}
	defer k.Close()
	bufs := make([]*opencl.Buffer, len(args))
	defer func() {
		for _, b := range bufs {
			if b != nil {
				b.Close()
			}
		}
	}()
	for i, a := range args {
		var n, size int
		switch a := a.(type) {
		case []float32:
			n, size = len(a), 4
		case []float64:
			n, size = len(a), 8
		case []int32:
			n, size = len(a), 4
		case int32:
			err = k.SetArgInt32(i, a)
		case float32:
			err = k.SetArgFloat32(i, a)
		case float64:
			err = k.SetArgFloat64(i, a)
		default:
			return fail("argument %d is a %T: want []float32, []float64, []int32, int32, float32 or float64", i, a)
		}
		if err != nil {
			return fail("argument %d: %v", i, err)
		}
		if size == 0 {
			continue
		}
		if bufs[i], err = s.Context.NewBuffer(max(n, 1) * size); err != nil {
			return fail("argument %d: %v", i, err)
		}
		switch a := a.(type) {
		case []float32:
			err = opencl.WriteSlice(s.Queue, bufs[i], a)
		case []float64:
			err = opencl.WriteSlice(s.Queue, bufs[i], a)
		case []int32:
			err = opencl.WriteSlice(s.Queue, bufs[i], a)
		}
		if err = errors.Join(err, k.SetArgBuffer(i, bufs[i])); err != nil {
			return fail("argument %d: %v", i, err)
		}
	}
	if ns, err = s.Queue.Run(k, global, local); err != nil {
		return fail("%v", err)
	}
	for i, a := range args {
		switch a := a.(type) {
		case []float32:
			err = opencl.ReadSlice(s.Queue, bufs[i], a)
		case []float64:
			err = opencl.ReadSlice(s.Queue, bufs[i], a)
		case []int32:
			err = opencl.ReadSlice(s.Queue, bufs[i], a)
		}
		if err != nil {
			return fail("reading argument %d back: %v", i, err)
		}
	}
	return ns, nil
}
