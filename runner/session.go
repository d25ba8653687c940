// Package runner builds, runs, times and checks kernels on one OpenCL
// device: the runner of the paper's Figure 2. It knows nothing of how a
// variant was made (transforms, patterns, codegen): it gets OpenCL C, a
// kernel name, a launch geometry and the data (a Problem).
//
//   - A Session (session.go) is one device opened once per process, with
//     the cache of the programs built on it, buffers, argument setting and
//     launches. It is the only path to a launch: package hpl's Run and the
//     Measurer go through it. The open sessions are the one global state,
//     documented and lock-protected.
//   - A Measurer (measure.go) runs variants on a Problem (problem.go) in
//     this process: it resets the outputs before every launch, times the
//     launches and checks the outputs against the reference.
//   - A Worker (client.go) runs a Measurer in a child process (server.go,
//     talking the protocol of wire.go), so that a variant that hangs or
//     crashes the driver fails alone, and has a pool of builder processes
//     (pool.go) build the variants ahead and hand it their binaries. A
//     program that starts workers calls MaybeWorker first in main.
//   - A Cache (cache.go) keeps the builders' binaries between runs, and
//     PoCL's kernel cache, bounded in size.
//
// Results are package autotune's: an Outcome, a time and a Cost.
package runner

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/opencl"
)

// sessions is the process's cache of open devices, the one piece of
// global state of the packages that run kernels: a device is opened once
// (an OpenCL context and queue) and kept, with its programs and memo, for
// the life of the process. The lock guards the maps; each Session guards
// its own state.
var sessions struct {
	mu     sync.Mutex
	byDev  map[string]*Session // by the device's "P:D" spec
	bySpec map[string]*Session // by the spec Select read
}

// Session is one OpenCL device opened for running kernels: its context and
// queue, the cache of the programs built on it, and a memo of results per
// device. It is the only path from this module to an OpenCL launch: the
// measurement worker (Measurer) and package hpl's Run both build, set
// arguments and launch through it. Sessions are made by Open and
// OpenDevice, once per device, and never closed. A Session is safe for
// concurrent use; launches are made one at a time.
type Session struct {
	dev *opencl.Device
	cl  *opencl.Session

	mu    sync.Mutex
	progs map[string]*entry // by build options and source
	order []string          // keys of progs, oldest first
	memo  map[[32]byte]*memoEntry
	built int // programs built (a build tried again counts once)

	launch sync.Mutex // one launch at a time on the queue

	// loads are the programs waiting to be made from binaries, made one
	// at a time by one goroutine (loading is true while it runs), the
	// most wanted first (Program.Urgent), guarded by mu.
	loads   []*loadJob
	loading bool
}

// loadJob is a program to make from a binary.
type loadJob struct {
	e         *entry
	src, opts string
	bin       []byte
}

// maxPrograms bounds a session's program cache: past it, the oldest
// programs nobody uses are released.
const maxPrograms = 64

// Builds returns the number of programs the session has built: what a
// program that reuses a tuned variant pays before its first result.
func (s *Session) Builds() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.built
}

// Open returns the session of the device spec selects (see opencl.Select:
// "" for the default device, "CPU", "nvidia:0", ...), opening it on first
// use.
func Open(spec string) (*Session, error) {
	sessions.mu.Lock()
	defer sessions.mu.Unlock()
	if s := sessions.bySpec[spec]; s != nil {
		return s, nil
	}
	d, err := opencl.Select(spec)
	if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	s, err := openLocked(d)
	if err != nil {
		return nil, err
	}
	sessions.bySpec[spec] = s
	return s, nil
}

// OpenDevice returns d's session, opening it on first use.
func OpenDevice(d *opencl.Device) (*Session, error) {
	if d == nil {
		return nil, errors.New("runner: OpenDevice(nil): no device")
	}
	sessions.mu.Lock()
	defer sessions.mu.Unlock()
	return openLocked(d)
}

func openLocked(d *opencl.Device) (*Session, error) {
	if sessions.byDev == nil {
		sessions.byDev, sessions.bySpec = map[string]*Session{}, map[string]*Session{}
	}
	if s := sessions.byDev[d.Spec()]; s != nil {
		return s, nil
	}
	cl, err := opencl.OpenDevice(d)
	if err != nil {
		return nil, fmt.Errorf("runner: opening %s: %w", d.Name, err)
	}
	s := &Session{dev: d, cl: cl, progs: map[string]*entry{}, memo: map[[32]byte]*memoEntry{}}
	sessions.byDev[d.Spec()] = s
	return s, nil
}

// Device returns the session's device.
func (s *Session) Device() *opencl.Device { return s.dev }

// String returns the device's name.
func (s *Session) String() string { return s.dev.Name }

// CompilesAtLaunch reports whether the device's implementation makes a
// kernel's machine code at its first launch with each work-group size
// rather than when the program is built. PoCL does (its work-group
// functions, seconds for a large generated kernel on a loaded machine), so
// that the first launch of a variant is far slower than the next, and a
// binary taken after a launch holds the code of that work-group size.
func (s *Session) CompilesAtLaunch() bool {
	return s.dev.Platform != nil && strings.Contains(s.dev.Platform.Name, "Portable Computing Language")
}

// deviceKey identifies the device and its implementation for the cache of
// built programs: a binary is reused only where all of it matches.
func (s *Session) deviceKey() string {
	d := s.dev
	var plat string
	if d.Platform != nil {
		plat = d.Platform.Name + "|" + d.Platform.Version
	}
	return strings.Join([]string{plat, d.Name, d.Vendor, d.Version, d.DriverVersion}, "|")
}

// CheckLaunch rejects a launch the device cannot make: a global size of
// other than 1 to 3 dimensions, a local size that does not match it or
// divide it, a work-group above the device's limits, or localBytes of
// local memory (0: not checked) above the device's.
func (s *Session) CheckLaunch(global, local []int, localBytes int64) error {
	if n := len(global); n < 1 || n > 3 {
		return fmt.Errorf("global size %v: want 1 to 3 dimensions", global)
	}
	d := s.dev
	if local != nil {
		if len(local) != len(global) {
			return fmt.Errorf("local size %v has %d dimension(s), the global size %v has %d", local, len(local), global, len(global))
		}
		group := 1
		for i, l := range local {
			dim := "xyz"[i : i+1]
			if l <= 0 {
				return fmt.Errorf("local size %v: size %d in dimension %s is not positive", local, l, dim)
			}
			if global[i]%l != 0 {
				return fmt.Errorf("the local size %d does not divide the global size %d in dimension %s (global %v, local %v)", l, global[i], dim, global, local)
			}
			if i < len(d.MaxWorkItemSizes) && d.MaxWorkItemSizes[i] > 0 && l > d.MaxWorkItemSizes[i] {
				return fmt.Errorf("local size %v: %d work-items in dimension %s, %s allows %d", local, l, dim, d.Name, d.MaxWorkItemSizes[i])
			}
			group *= l
		}
		if d.MaxWorkGroupSize > 0 && group > d.MaxWorkGroupSize {
			return fmt.Errorf("local size %v makes work-groups of %d work-items, %s allows %d", local, group, d.Name, d.MaxWorkGroupSize)
		}
	}
	if localBytes > 0 && d.LocalMemSize > 0 && localBytes > d.LocalMemSize {
		return fmt.Errorf("the kernel declares %d bytes of local memory, %s has %d", localBytes, d.Name, d.LocalMemSize)
	}
	return nil
}

// entry is a program of the cache: being built, or built.
type entry struct {
	key   string
	done  chan struct{} // closed when the build has ended
	prog  *opencl.Program
	err   error
	users int  // unreleased Programs, and the build while it runs
	drop  bool // remove it once unused (Program.Close)
	// fromBinary: the program was made from a binary, not the source.
	fromBinary bool
}

// Program is one use of a program of a session's cache, built or being
// built. Release it (or Close it) when done.
type Program struct {
	s    *Session
	e    *entry
	once sync.Once
}

// Build returns the program of src built with options, building it on
// first use; concurrent callers wait for one build. The error of a
// rejected source carries the compiler's log. The caller must Release (or
// Close) the program.
func (s *Session) Build(src, options string) (*Program, error) {
	p := s.Prepare(src, options, nil)
	if err := p.Wait(); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Prepare starts building the program of src with options in the
// background, unless the cache has it, and returns at once: Wait then
// waits for the build. built, if not nil, is called (from another
// goroutine) once the build has ended, successfully or not. OpenCL builds
// of different programs may run concurrently with each other and with
// launches.
func (s *Session) Prepare(src, options string, built func()) *Program {
	return s.prepare(src, nil, options, built)
}

// PrepareBinary is Prepare for a program whose binary (Program.Binary, from
// another process on the same device) is at hand: it makes the program of
// src from bin, which costs the implementation little (PoCL unpacks it) or
// a compilation (NVIDIA's driver turns its PTX into machine code, unless
// its cache of machine code has it), and builds src from source if the
// device refuses the binary. The cache keeps the program under src, as
// Prepare would. Programs are made from binaries one at a time, in the
// order asked, an Urgent one first: an implementation that compiles them
// serializes their compilations within a process anyway, and the program
// wanted next should not wait behind all the others.
func (s *Session) PrepareBinary(src string, bin []byte, options string, built func()) *Program {
	return s.prepare(src, bin, options, built)
}

func (s *Session) prepare(src string, bin []byte, options string, built func()) *Program {
	key := options + "\x00" + src
	s.mu.Lock()
	e := s.progs[key]
	if e == nil {
		e = &entry{key: key, done: make(chan struct{}), users: 1} // the build's use
		s.progs[key] = e
		s.order = append(s.order, key)
		s.built++
		if bin != nil {
			s.loads = append(s.loads, &loadJob{e: e, src: src, opts: options, bin: bin})
			if !s.loading {
				s.loading = true
				go s.load()
			}
		} else {
			go s.build(e, src, bin, options)
		}
	}
	e.users++
	e.drop = false
	s.mu.Unlock()
	if built != nil {
		go func() {
			<-e.done
			built()
		}()
	}
	return &Program{s: s, e: e}
}

// load makes the programs of s.loads from their binaries, one at a time,
// until none is left. A program nobody uses any more (its only use is its
// build's: a Measurer dropped it) is not made.
func (s *Session) load() {
	for {
		s.mu.Lock()
		if len(s.loads) == 0 {
			s.loading = false
			s.mu.Unlock()
			return
		}
		j := s.loads[0]
		s.loads = s.loads[1:]
		if j.e.users <= 1 {
			// Out of the cache before the lock is let go, so that a
			// Prepare of the same source from now on makes another.
			j.e.users--
			s.removeLocked(j.e)
			s.mu.Unlock()
			j.e.err = errors.New("runner: the program was dropped before it was made")
			close(j.e.done)
			continue
		}
		s.mu.Unlock()
		s.build(j.e, j.src, j.bin, j.opts)
	}
}

// Urgent puts the program first among those waiting to be made from their
// binaries, if it is one of them.
func (p *Program) Urgent() {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, j := range s.loads {
		if j.e == p.e {
			copy(s.loads[1:i+1], s.loads[:i])
			s.loads[0] = j
			return
		}
	}
}

// build builds e, from bin if it is not nil, and releases the build's use
// of it.
func (s *Session) build(e *entry, src string, bin []byte, options string) {
	if bin != nil {
		if e.prog, e.err = s.cl.Context.BuildBinary(bin, options); e.err == nil {
			e.fromBinary = true
		}
	}
	if e.prog == nil {
		e.prog, e.err = buildSource(s.cl.Context, src, options)
	}
	// The build's use ends before its waiters wake, so that a program
	// they release at once is not kept for the build's sake.
	s.release(e, false)
	close(e.done)
}

// buildSource builds src with options on ctx, with the errors of the
// package: a rejected source's carries the compiler's log.
func buildSource(ctx *opencl.Context, src, options string) (*opencl.Program, error) {
	prog, err := ctx.Build(src, options)
	// A failed build whose log has no compiler error is a failure of the
	// implementation (PoCL has failed so, rarely, with its message alone
	// in the log); building again costs little and spares a good kernel.
	var be *opencl.BuildError
	if errors.As(err, &be) && !strings.Contains(be.Log, "error") {
		prog, err = ctx.Build(src, options)
	}
	if errors.As(err, &be) {
		return nil, fmt.Errorf("runner: the OpenCL compiler rejected the source: %v\n%s", be.Err, strings.TrimSpace(be.Log))
	} else if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	return prog, nil
}

// Log returns the compiler's log of the program's successful build (""
// after a failed one, or for a program made from a binary the device kept
// no log of): warnings, and with NVIDIA's -cl-nv-verbose the registers and
// spills of each kernel.
func (p *Program) Log() string {
	if p.Wait() != nil || p.e.prog == nil {
		return ""
	}
	return p.e.prog.Log()
}

// Wait waits for the program's build and returns its error.
func (p *Program) Wait() error {
	<-p.e.done
	return p.e.err
}

// Ready reports whether the program's build has ended.
func (p *Program) Ready() bool {
	select {
	case <-p.e.done:
		return true
	default:
		return false
	}
}

// FromBinary reports whether the program was made from a binary
// (PrepareBinary) rather than built from its source; it waits for the
// build.
func (p *Program) FromBinary() bool {
	<-p.e.done
	return p.e.fromBinary
}

// Binary returns the built program's binary for the device
// (opencl.Program.Binary), which PrepareBinary takes in another process.
func (p *Program) Binary() ([]byte, error) {
	if err := p.Wait(); err != nil {
		return nil, err
	}
	bin, err := p.e.prog.Binary()
	if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	return bin, nil
}

// Release ends this use of the program; the session keeps it for the next
// Build of the same source.
func (p *Program) Release() { p.once.Do(func() { p.s.release(p.e, false) }) }

// Close ends this use of the program and drops it from the session's cache
// once nobody uses it, for a program that will not be built again (a
// variant measured once).
func (p *Program) Close() { p.once.Do(func() { p.s.release(p.e, true) }) }

// release ends a use of e, dropping it if drop and unused, and trims the
// cache to maxPrograms, oldest unused programs first.
func (s *Session) release(e *entry, drop bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.users--
	e.drop = e.drop || drop
	if e.users == 0 && e.drop {
		s.removeLocked(e)
	}
	for i := 0; len(s.order) > maxPrograms && i < len(s.order); {
		if q := s.progs[s.order[i]]; q.users > 0 {
			i++
			continue
		}
		s.removeLocked(s.progs[s.order[i]])
	}
}

func (s *Session) removeLocked(e *entry) {
	if s.progs[e.key] != e {
		return
	}
	delete(s.progs, e.key)
	for i, k := range s.order {
		if k == e.key {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	if e.prog != nil {
		e.prog.Close()
	}
}

// KernelArg is one argument of a kernel: a buffer, or a scalar of Type
// (ast.Int, ast.Float or ast.Double) whose value, converted to Type, is
// Value.
type KernelArg struct {
	Buffer *Buffer
	Type   ast.Type
	Value  float64
}

// Kernel is a kernel of a built program with its arguments set, ready to
// launch. Close it when done.
type Kernel struct {
	s    *Session
	k    *opencl.Kernel
	name string
}

// Kernel returns the program's kernel name with args set, in order. The
// program must be built (Wait returned nil).
func (p *Program) Kernel(name string, args []KernelArg) (*Kernel, error) {
	if err := p.Wait(); err != nil {
		return nil, err
	}
	k, err := p.e.prog.Kernel(name)
	if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	for i, a := range args {
		switch {
		case a.Buffer != nil:
			err = k.SetArgBuffer(i, a.Buffer.b)
		case a.Type == ast.Int:
			err = k.SetArgInt32(i, int32(a.Value))
		case a.Type == ast.Float:
			err = k.SetArgFloat32(i, float32(a.Value))
		case a.Type == ast.Double:
			err = k.SetArgFloat64(i, a.Value)
		default:
			err = fmt.Errorf("neither a buffer nor a scalar of a known type (%v)", a.Type)
		}
		if err != nil {
			k.Close()
			return nil, fmt.Errorf("runner: kernel %s, argument %d: %w", name, i+1, err)
		}
	}
	return &Kernel{s: p.s, k: k, name: name}, nil
}

// Run launches the kernel over global work-items (x first) in work-groups
// of local (nil: the implementation chooses), waits for it and returns its
// time from OpenCL profiling events. Its error is the opencl package's, so
// that the caller can tell a failed enqueue from a kernel that failed.
func (k *Kernel) Run(global, local []int) (time.Duration, error) {
	k.s.launch.Lock()
	defer k.s.launch.Unlock()
	ns, err := k.s.cl.Queue.Run(k.k, global, local)
	return time.Duration(ns), err
}

// runMany launches the kernel n times as Run does, without waiting between
// the launches: before, if not nil, enqueues what goes before each one
// (the outputs' resets). It then waits for them all and returns each
// launch's time from its profiling events, in launch order. An error stops
// the enqueuing; the launches enqueued are waited for, and the times of
// those that ran are returned with the first error.
func (k *Kernel) runMany(global, local []int, n int, before func() error) ([]time.Duration, error) {
	k.s.launch.Lock()
	defer k.s.launch.Unlock()
	evs := make([]*opencl.Event, 0, n)
	var err error
	for i := 0; i < n; i++ {
		if before != nil {
			if err = before(); err != nil {
				break
			}
		}
		var ev *opencl.Event
		if ev, err = k.s.cl.Queue.Start(k.k, global, local); err != nil {
			break
		}
		evs = append(evs, ev)
	}
	times := make([]time.Duration, 0, len(evs))
	for _, ev := range evs {
		ns, werr := ev.Wait()
		ev.Close()
		if werr != nil {
			if err == nil {
				err = werr
			}
			continue
		}
		times = append(times, time.Duration(ns))
	}
	return times, err
}

// start launches the kernel as Run does, without waiting for it: the
// caller makes no other launch on the session until the event is done.
func (k *Kernel) start(global, local []int) (*opencl.Event, error) {
	return k.s.cl.Queue.Start(k.k, global, local)
}

// Close releases the kernel.
func (k *Kernel) Close() { k.k.Close() }

// Launch builds src with options (once per source and options: the cache
// keeps it), sets args and runs its kernel name once, as Kernel.Run does.
func (s *Session) Launch(src, options, name string, args []KernelArg, global, local []int) (time.Duration, error) {
	p, err := s.Build(src, options)
	if err != nil {
		return 0, err
	}
	defer p.Release()
	k, err := p.Kernel(name, args)
	if err != nil {
		return 0, err
	}
	defer k.Close()
	d, err := k.Run(global, local)
	if err != nil {
		return 0, fmt.Errorf("runner: %w", err)
	}
	return d, nil
}

// Buffer is memory on a session's device.
type Buffer struct {
	s    *Session
	b    *opencl.Buffer
	size int
}

// NewBuffer allocates n bytes on the session's device.
func (s *Session) NewBuffer(n int) (*Buffer, error) {
	b, err := s.cl.Context.NewBuffer(n)
	if err != nil {
		return nil, fmt.Errorf("runner: a buffer of %d bytes: %w", n, err)
	}
	return &Buffer{s: s, b: b, size: n}, nil
}

// Size returns the buffer's size in bytes.
func (b *Buffer) Size() int { return b.size }

// Write copies src to the start of the buffer and waits for the copy.
func (b *Buffer) Write(src []byte) error {
	return b.s.cl.Queue.Write(b.b, unsafe.Pointer(unsafe.SliceData(src)), len(src))
}

// Read copies the start of the buffer to dst and waits for the copy.
func (b *Buffer) Read(dst []byte) error {
	return b.s.cl.Queue.Read(b.b, unsafe.Pointer(unsafe.SliceData(dst)), len(dst))
}

// CopyFrom copies src's contents, on the device, to the buffer (as many
// bytes as the smaller of the two holds).
func (b *Buffer) CopyFrom(src *Buffer) error {
	return b.s.cl.Queue.Copy(b.b, src.b, min(b.size, src.size))
}

// Close frees the buffer.
func (b *Buffer) Close() error { return b.b.Close() }

// writeSlice writes data to the start of b.
func writeSlice[T opencl.Scalar](b *Buffer, data []T) error {
	return opencl.WriteSlice(b.s.cl.Queue, b.b, data)
}

// readSlice reads the start of b into data.
func readSlice[T opencl.Scalar](b *Buffer, data []T) error {
	return opencl.ReadSlice(b.s.cl.Queue, b.b, data)
}

// memoEntry is a value of a session's memo, being computed or done.
type memoEntry struct {
	done chan struct{}
	v    any
	err  error
}

// Memo returns the value remembered under key on s's device, computing it
// with f on first use; concurrent callers with the same key wait for one
// f. An error is returned and not remembered: the next call tries again.
// It keeps results per device for the life of the process, such as the
// tunings that hpl's Optimize makes.
func Memo[T any](s *Session, key [32]byte, f func() (T, error)) (T, error) {
	for {
		s.mu.Lock()
		m := s.memo[key]
		if m == nil {
			m = &memoEntry{done: make(chan struct{}), err: errors.New("runner: the computation of a memo panicked")}
			s.memo[key] = m
			s.mu.Unlock()
			defer func() { // also when f panics: the waiters try again
				if m.err != nil {
					s.mu.Lock()
					delete(s.memo, key)
					s.mu.Unlock()
				}
				close(m.done)
			}()
			v, err := f()
			m.v, m.err = v, err
			return v, err
		}
		s.mu.Unlock()
		<-m.done
		if m.err == nil {
			return m.v.(T), nil
		}
		// The computation failed: try again (or wait for a new one).
	}
}
