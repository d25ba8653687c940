package hpl

import (
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/opencl"
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
// finds the program in the cache. Builds of different programs may run
// concurrently (from different Evaluations) with each other and with runs.
func (e *Evaluation) Build(args ...any) (err error) {
	defer e.guard(&err)
	if e.err != nil {
		return e.err
	}
	k, err := e.Specialize(args...)
	if err != nil {
		return err
	}
	src, err := codegen.Source(k)
	if err != nil {
		return err
	}
	t, err := e.target()
	if err != nil {
		return e.fail("%v", err)
	}
	p, err := t.(*session).program(src)
	if err != nil {
		return e.fail("%v", err)
	}
	t.(*session).done(p)
	return nil
}

// Sessions are opened once per device and kept for the life of the
// process, with the programs built on them.
var sessions struct {
	mu     sync.Mutex
	byDev  map[string]*session // by the device's "P:D" spec
	bySpec map[string]*session // by the spec Select read
}

// session is one device's context and queue, its cache of programs, and
// the lock that serializes launches.
type session struct {
	cl  *opencl.Session
	dev *opencl.Device

	mu    sync.Mutex
	progs map[string]*program // by source
	order []string            // sources, oldest first

	run1 sync.Mutex // one launch at a time: arguments are set on shared state
}

// program is a build in progress or done, with its users.
type program struct {
	done  chan struct{}
	prog  *opencl.Program
	err   error
	users int
}

// maxPrograms bounds a session's program cache; the oldest unused programs
// are released past it.
const maxPrograms = 64

// target returns the session of the evaluation's device, opening it once.
func (e *Evaluation) target() (target, error) {
	sessions.mu.Lock()
	defer sessions.mu.Unlock()
	if sessions.byDev == nil {
		sessions.byDev, sessions.bySpec = map[string]*session{}, map[string]*session{}
	}
	var dev *opencl.Device
	if d, ok := e.dev.(*opencl.Device); ok && d != nil {
		dev = d
	} else {
		if s := sessions.bySpec[e.spec]; s != nil {
			return s, nil
		}
		var err error
		if dev, err = opencl.Select(e.spec); err != nil {
			return nil, err
		}
	}
	s := sessions.byDev[dev.Spec()]
	if s == nil {
		cl, err := opencl.OpenDevice(dev)
		if err != nil {
			return nil, err
		}
		s = &session{cl: cl, dev: dev, progs: map[string]*program{}}
		sessions.byDev[dev.Spec()] = s
	}
	if e.dev == nil {
		sessions.bySpec[e.spec] = s
	}
	return s, nil
}

func (s *session) String() string { return s.dev.Name }

func (s *session) info() DeviceInfo {
	return DeviceInfo{
		Name:         s.dev.Name,
		MaxWorkGroup: s.dev.MaxWorkGroupSize,
		MaxItems:     append([]int(nil), s.dev.MaxWorkItemSizes...),
		LocalMem:     s.dev.LocalMemSize,
		ComputeUnits: s.dev.ComputeUnits,
	}
}

// program returns the built program of src, building it on first use;
// concurrent callers wait for one build. The caller must call done.
func (s *session) program(src string) (*program, error) {
	s.mu.Lock()
	p := s.progs[src]
	if p == nil {
		p = &program{done: make(chan struct{})}
		s.progs[src] = p
		s.order = append(s.order, src)
		p.users++
		s.mu.Unlock()
		p.prog, p.err = s.cl.Context.Build(src, "")
		close(p.done)
	} else {
		p.users++
		s.mu.Unlock()
		<-p.done
	}
	if p.err != nil {
		s.done(p)
		var be *opencl.BuildError
		if errors.As(p.err, &be) {
			return nil, fmt.Errorf("the OpenCL compiler rejected the generated source: %v\n%s", be.Err, be.Log)
		}
		return nil, p.err
	}
	return p, nil
}

// done releases a use of p and trims the cache.
func (s *session) done(p *program) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p.users--
	for i := 0; len(s.order) > maxPrograms && i < len(s.order); {
		src := s.order[i]
		q := s.progs[src]
		if q.users > 0 {
			i++
			continue
		}
		if q.prog != nil {
			q.prog.Close()
		}
		delete(s.progs, src)
		s.order = append(s.order[:i], s.order[i+1:]...)
	}
}

func (s *session) run(src, name string, args []kernelArg, global, local []int) (time.Duration, error) {
	p, err := s.program(src)
	if err != nil {
		return 0, err
	}
	defer s.done(p)
	s.run1.Lock()
	defer s.run1.Unlock()
	k, err := p.prog.Kernel(name)
	if err != nil {
		return 0, err
	}
	defer k.Close()
	for i, a := range args {
		switch v := a.scalar.(type) {
		case nil:
			err = k.SetArgBuffer(i, a.buf.(*clBuffer).b)
		case int32:
			err = k.SetArgInt32(i, v)
		case float32:
			err = k.SetArgFloat32(i, v)
		case float64:
			err = k.SetArgFloat64(i, v)
		default:
			err = fmt.Errorf("argument %d: unsupported scalar %T", i, v)
		}
		if err != nil {
			return 0, fmt.Errorf("argument %d: %w", i+1, err)
		}
	}
	ns, err := s.cl.Queue.Run(k, global, local)
	if err != nil {
		return 0, err
	}
	return time.Duration(ns), nil
}

func (s *session) alloc(n int) (buffer, error) {
	b, err := s.cl.Context.NewBuffer(n)
	if err != nil {
		return nil, err
	}
	return &clBuffer{s: s, b: b}, nil
}

// clBuffer is an array's buffer on a session's device.
type clBuffer struct {
	s *session
	b *opencl.Buffer
}

func (b *clBuffer) write(src []byte) error {
	return b.s.cl.Queue.Write(b.b, unsafe.Pointer(unsafe.SliceData(src)), len(src))
}

func (b *clBuffer) read(dst []byte) error {
	return b.s.cl.Queue.Read(b.b, unsafe.Pointer(unsafe.SliceData(dst)), len(dst))
}

func (b *clBuffer) release() { b.b.Close() }

var (
	_ target = (*session)(nil)
	_ buffer = (*clBuffer)(nil)
)
