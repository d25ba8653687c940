package autotune

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/opencl"
)

// Variant is one kernel to measure: OpenCL C source defining KernelName,
// whose parameters are the Problem's Args in order, and its launch
// geometry.
type Variant struct {
	Source     string
	KernelName string
	Global     []int // work-items per dimension, x first (1 to 3 of them)
	Local      []int // work-group size per dimension; nil: the driver chooses
	// CutoffMs, if positive, ends the timing early: a launch slower than
	// it is the variant's time (its outputs are still checked), as ATF
	// aborts configurations that cannot beat the best one found.
	CutoffMs float64
}

// MeasureSettings says how a variant is timed. The zero value makes one
// warm-up launch and five timed ones.
type MeasureSettings struct {
	// Warmup is the number of untimed launches before the timed ones.
	// Default 0: 1; negative: none.
	Warmup int
	// Runs is the number of timed launches; the time of a variant is the
	// median of their kernel times (OpenCL profiling events). Default 0:
	// 5.
	Runs int
	// Options are the OpenCL build options of every variant. Default "".
	Options string
	// Ahead bounds the builds started by Prepare that wait for Measure; a
	// Prepare beyond it drops the oldest. Default 0: 4.
	Ahead int
}

func (s MeasureSettings) ahead() int {
	if s.Ahead <= 0 {
		return 4
	}
	return s.Ahead
}

func (s MeasureSettings) warmup() int {
	switch {
	case s.Warmup < 0:
		return 0
	case s.Warmup == 0:
		return 1
	}
	return s.Warmup
}

func (s MeasureSettings) runs() int {
	if s.Runs <= 0 {
		return 5
	}
	return s.Runs
}

// Measurer runs variants of a kernel on one OpenCL device, in this process,
// and checks their outputs (a Worker runs one in a child process, isolated
// from hangs and crashes).
//
// It uploads the Problem's arrays once. Before every launch, warm-up
// included, it writes the outputs' initial contents again, so that each
// launch sees the same input, also for kernels that read or accumulate
// into their outputs. After the last timed launch it reads the outputs
// back and compares them with the expected outputs: those of the
// reference variant (SetReference), or given (SetExpected). After a
// variant fails with Launch or Wrong, the inputs are uploaded again
// before the next one, in case it wrote where it should not have.
//
// Prepare builds a variant in the background (OpenCL builds of different
// programs may run concurrently with launches), so the build of the next
// variant overlaps the runs of the current one. Measure, SetReference and
// Close must not be called concurrently with each other; Prepare may be
// called from any goroutine.
type Measurer struct {
	set  MeasureSettings
	prob *Problem
	outs []int // indices of the outputs in prob.Args
	sess *opencl.Session
	bufs []*opencl.Buffer // per argument; nil for scalars
	// init holds the initial contents of each output (nil for the other
	// arguments), from which the outputs are reset on the device before
	// every launch.
	init []*opencl.Buffer

	want        []Arg             // expected outputs, parallel to prob.Args; nil until set
	tols        map[int]Tolerance // per output, scaled for want
	baseline    float64
	hasRef      bool
	inputsStale bool

	// onBuilt, if set, is called (from the building goroutine) with the
	// source of each prepared variant whose build has ended.
	onBuilt func(source string)

	mu     sync.Mutex
	builds map[string]*build // by source, prepared and not yet measured
	order  []string          // keys of builds, oldest first
	wg     sync.WaitGroup    // running builds
	closed bool
}

// build is a program being built.
type build struct {
	done chan struct{}
	prog *opencl.Program
	err  error
}

// NewMeasurer opens the device selected by device (an opencl.Select spec),
// checks p and uploads its arrays. The Measurer keeps p, which must not
// change while it is in use.
func NewMeasurer(device string, p *Problem, set MeasureSettings) (*Measurer, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	sess, err := opencl.Open(device)
	if err != nil {
		return nil, fmt.Errorf("autotune: %w", err)
	}
	m := &Measurer{set: set, prob: p, outs: p.outputs(), sess: sess, bufs: make([]*opencl.Buffer, len(p.Args)), init: make([]*opencl.Buffer, len(p.Args)), builds: map[string]*build{}}
	for i := range p.Args {
		a := &p.Args[i]
		if a.Scalar {
			continue
		}
		if m.bufs[i], err = sess.Context.NewBuffer(a.bytes()); err != nil {
			m.Close()
			return nil, fmt.Errorf("autotune: buffer for %s (%d bytes): %w", a.Name, a.bytes(), err)
		}
		if a.Output {
			if m.init[i], err = sess.Context.NewBuffer(a.bytes()); err != nil {
				m.Close()
				return nil, fmt.Errorf("autotune: buffer for the initial %s (%d bytes): %w", a.Name, a.bytes(), err)
			}
		}
	}
	if err := m.upload(false); err != nil {
		m.Close()
		return nil, fmt.Errorf("autotune: uploading the problem: %w", err)
	}
	return m, nil
}

// Device returns the name of the device.
func (m *Measurer) Device() string { return m.sess.Device.Name }

// upload writes the initial contents of every array from the host (an
// output's into its device copy, init), or, with outputsOnly, writes only
// the outputs; either way each output is then reset from its device copy.
func (m *Measurer) upload(outputsOnly bool) error {
	for i := range m.prob.Args {
		a := &m.prob.Args[i]
		if a.Scalar || (outputsOnly && !a.Output) {
			continue
		}
		if !outputsOnly {
			// An output's contents go to its device copy, the argument
			// itself is reset from that below.
			dst := m.bufs[i]
			if m.init[i] != nil {
				dst = m.init[i]
			}
			var err error
			switch a.Type {
			case ast.Float:
				err = opencl.WriteSlice(m.sess.Queue, dst, a.F32)
			case ast.Double:
				err = opencl.WriteSlice(m.sess.Queue, dst, a.F64)
			case ast.Int:
				err = opencl.WriteSlice(m.sess.Queue, dst, a.I32)
			}
			if err != nil {
				return fmt.Errorf("writing %s: %w", a.Name, err)
			}
		}
		if m.init[i] != nil {
			if err := m.sess.Queue.Copy(m.bufs[i], m.init[i], a.bytes()); err != nil {
				return fmt.Errorf("resetting %s: %w", a.Name, err)
			}
		}
	}
	return nil
}

// SetExpected sets the outputs variants are checked against: want is
// parallel to the Problem's Args, and only its entries for outputs are
// read (each must have the output's type and length). SetExpected keeps
// want.
func (m *Measurer) SetExpected(want []Arg) error {
	if len(want) != len(m.prob.Args) {
		return fmt.Errorf("autotune: %d expected outputs for %d arguments", len(want), len(m.prob.Args))
	}
	for _, i := range m.outs {
		a, w := &m.prob.Args[i], &want[i]
		if w.Type != a.Type || w.dataLen() != a.Len() {
			return fmt.Errorf("autotune: expected output %s: want %d %v elements, have %d %v", a.Name, a.Len(), a.Type, w.dataLen(), w.Type)
		}
	}
	m.setWant(want)
	return nil
}

// Expected returns the expected outputs, parallel to the Problem's Args
// (the entries of non-outputs hold no contents), or nil if they are not
// set yet.
func (m *Measurer) Expected() []Arg { return m.want }

// SetReference measures the reference variant ref (normally the
// single-point kernel), records its median time as the baseline and
// returns it. Its outputs become the expected outputs, unless they were
// set with SetExpected: then ref is checked against them.
func (m *Measurer) SetReference(ref Variant) (ms float64, err error) {
	res, got, _ := m.run(context.Background(), ref, nil)
	if res.Outcome == OK && m.want != nil {
		res = m.check(res, got)
	}
	if res.Outcome != OK {
		return 0, fmt.Errorf("autotune: reference variant %s: %v: %v", ref.KernelName, res.Outcome, res.Err)
	}
	if m.want == nil {
		m.setWant(got)
	}
	m.baseline, m.hasRef = res.Ms, true
	return res.Ms, nil
}

// Baseline returns the reference variant's median time in ms, or an error
// if SetReference did not run one.
func (m *Measurer) Baseline() (float64, error) {
	if !m.hasRef {
		return 0, errors.New("autotune: no baseline: no reference variant was measured")
	}
	return m.baseline, nil
}

// Prepare starts building v's program in the background; Measure then
// uses it. At most MeasureSettings.Ahead prepared programs wait for
// Measure: one more Prepare drops the oldest.
func (m *Measurer) Prepare(v Variant) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || m.builds[v.Source] != nil {
		return
	}
	if len(m.order) >= m.set.ahead() {
		old := m.builds[m.order[0]]
		delete(m.builds, m.order[0])
		m.order = m.order[1:]
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			<-old.done
			old.prog.Close()
		}()
	}
	b := &build{done: make(chan struct{})}
	m.builds[v.Source] = b
	m.order = append(m.order, v.Source)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		b.prog, b.err = m.sess.Context.Build(v.Source, m.set.Options)
		close(b.done)
		if m.onBuilt != nil {
			m.onBuilt(v.Source)
		}
	}()
}

// program returns v's program, prepared or built now. The caller owns it.
func (m *Measurer) program(v Variant) (*opencl.Program, error) {
	m.mu.Lock()
	b := m.builds[v.Source]
	if b != nil {
		delete(m.builds, v.Source)
		m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == v.Source })
	}
	m.mu.Unlock()
	var prog *opencl.Program
	var err error
	if b == nil {
		prog, err = m.sess.Context.Build(v.Source, m.set.Options)
	} else {
		<-b.done
		prog, err = b.prog, b.err
	}
	// A failed build whose log has no compiler error is a failure of the
	// implementation (PoCL has failed so, rarely, with its message alone
	// in the log); building again costs little and spares a good variant.
	var be *opencl.BuildError
	if errors.As(err, &be) && !strings.Contains(be.Log, "error") {
		prog, err = m.sess.Context.Build(v.Source, m.set.Options)
	}
	return prog, err
}

// Measure builds v, runs it and checks its outputs: OK with the median of
// the timed launches in ms, or Illegal (a geometry the device cannot
// launch), Compile, Launch or Wrong, with the reason in Result.Err (the
// build log for Compile, the first wrong element for Wrong). It needs the
// expected outputs (SetReference or SetExpected). ctx is checked between
// launches; a launch cannot be interrupted (a Worker can).
func (m *Measurer) Measure(ctx context.Context, v Variant) Result {
	res, _ := m.measure(ctx, v, nil)
	return res
}

// measure is Measure; compiled, if not nil, is called once v is built.
// restart reports that the OpenCL state may be damaged (an error after a
// kernel was enqueued).
func (m *Measurer) measure(ctx context.Context, v Variant, compiled func()) (res Result, restart bool) {
	if m.want == nil {
		return Result{Outcome: Launch, Err: errors.New("autotune: no expected outputs: call SetReference or SetExpected first")}, false
	}
	res, got, restart := m.run(ctx, v, compiled)
	if res.Outcome == OK {
		start := time.Now()
		res = m.check(res, got)
		res.Cost.Check = time.Since(start)
	}
	return res, restart
}

// run builds v, launches it and reads the outputs back, which it returns
// in a slice parallel to the Problem's Args.
func (m *Measurer) run(ctx context.Context, v Variant, compiled func()) (res Result, got []Arg, restart bool) {
	var cost Cost
	start, built := time.Now(), time.Time{}
	fail := func(o Outcome, format string, args ...any) (Result, []Arg, bool) {
		if o == Launch || o == Wrong {
			m.inputsStale = true
		}
		if !built.IsZero() {
			cost.Run = time.Since(built)
		}
		return Result{Outcome: o, Err: fmt.Errorf("autotune: %s: "+format, append([]any{v.KernelName}, args...)...), Cost: cost}, nil, restart
	}
	if err := m.checkGeometry(v); err != nil {
		return fail(Illegal, "%v", err)
	}
	prog, err := m.program(v)
	built = time.Now()
	cost.Build = built.Sub(start)
	if compiled != nil {
		compiled()
	}
	if err != nil {
		var be *opencl.BuildError
		if errors.As(err, &be) {
			return fail(Compile, "build failed:\n%s", be.Log)
		}
		return fail(Compile, "%v", err)
	}
	defer prog.Close()
	k, err := prog.Kernel(v.KernelName)
	if err != nil {
		return fail(Compile, "%v", err)
	}
	defer k.Close()
	for i := range m.prob.Args {
		a := &m.prob.Args[i]
		switch {
		case !a.Scalar:
			err = k.SetArgBuffer(i, m.bufs[i])
		case a.Type == ast.Int:
			err = k.SetArgInt32(i, int32(a.Value))
		case a.Type == ast.Float:
			err = k.SetArgFloat32(i, float32(a.Value))
		default:
			err = k.SetArgFloat64(i, a.Value)
		}
		if err != nil {
			return fail(Launch, "argument %d (%s): %v", i, a.Name, err)
		}
	}
	if m.inputsStale {
		if err := m.upload(false); err != nil {
			restart = true
			return fail(Launch, "uploading the inputs again: %v", err)
		}
		m.inputsStale = false
	}
	warm, runs := m.set.warmup(), m.set.runs()
	times := make([]float64, 0, runs)
	for r := 0; r < warm+runs; r++ {
		if err := ctx.Err(); err != nil {
			return fail(Timeout, "%v", err)
		}
		if err := m.upload(true); err != nil {
			restart = true
			return fail(Launch, "resetting the outputs: %v", err)
		}
		ns, err := m.sess.Queue.Run(k, v.Global, v.Local)
		if err != nil {
			// An error of the enqueue itself leaves the queue usable; one
			// of a kernel that ran may not.
			var ce opencl.Error
			restart = errors.As(err, &ce) && ce.Call != "clEnqueueNDRangeKernel"
			return fail(Launch, "%v", err)
		}
		cost.Kernels += time.Duration(ns)
		if r >= warm {
			times = append(times, float64(ns)/1e6)
		}
		if ms := float64(ns) / 1e6; v.CutoffMs > 0 && ms > v.CutoffMs {
			times = []float64{ms}
			break
		}
	}
	got = make([]Arg, len(m.prob.Args))
	for _, i := range m.outs {
		a := &m.prob.Args[i]
		g := Arg{Name: a.Name, Type: a.Type, Dims: a.Dims, Output: true}
		var err error
		switch a.Type {
		case ast.Float:
			g.F32 = make([]float32, a.Len())
			err = opencl.ReadSlice(m.sess.Queue, m.bufs[i], g.F32)
		case ast.Double:
			g.F64 = make([]float64, a.Len())
			err = opencl.ReadSlice(m.sess.Queue, m.bufs[i], g.F64)
		case ast.Int:
			g.I32 = make([]int32, a.Len())
			err = opencl.ReadSlice(m.sess.Queue, m.bufs[i], g.I32)
		}
		if err != nil {
			restart = true
			return fail(Launch, "reading %s back: %v", a.Name, err)
		}
		got[i] = g
	}
	cost.Run = time.Since(built)
	return Result{Outcome: OK, Ms: median(times), Cost: cost}, got, false
}

// setWant makes want the expected outputs, with the tolerance of each
// scaled to its RMS once here rather than at every check.
func (m *Measurer) setWant(want []Arg) {
	m.want, m.tols = want, map[int]Tolerance{}
	for _, i := range m.outs {
		m.tols[i] = m.prob.Tolerance.scaled(want[i].rms())
	}
}

// check compares the outputs got of the run res with the expected ones
// and returns res or the Wrong result, with res's Cost either way.
func (m *Measurer) check(res Result, got []Arg) Result {
	for _, i := range m.outs {
		a := &m.prob.Args[i]
		if err := compareScaled(a.Name, a.Dims, &got[i], &m.want[i], m.tols[i]); err != nil {
			m.inputsStale = true
			return Result{Outcome: Wrong, Err: fmt.Errorf("autotune: wrong result: %v", err), Cost: res.Cost}
		}
	}
	return res
}

// checkGeometry rejects launch geometries the device cannot run.
func (m *Measurer) checkGeometry(v Variant) error {
	if v.KernelName == "" {
		return errors.New("variant has no kernel name")
	}
	if n := len(v.Global); n < 1 || n > 3 {
		return fmt.Errorf("global size %v: want 1 to 3 dimensions", v.Global)
	}
	if v.Local == nil {
		return nil
	}
	if len(v.Local) != len(v.Global) {
		return fmt.Errorf("local size %v for global size %v: dimensions differ", v.Local, v.Global)
	}
	d := m.sess.Device
	group := 1
	for i, l := range v.Local {
		if l <= 0 || v.Global[i]%l != 0 {
			return fmt.Errorf("local size %v does not divide global size %v", v.Local, v.Global)
		}
		if i < len(d.MaxWorkItemSizes) && l > d.MaxWorkItemSizes[i] {
			return fmt.Errorf("local size %v: dimension %d above the device's %d", v.Local, i, d.MaxWorkItemSizes[i])
		}
		group *= l
	}
	if d.MaxWorkGroupSize > 0 && group > d.MaxWorkGroupSize {
		return fmt.Errorf("work-group of %d work-items (local size %v) above the device's %d", group, v.Local, d.MaxWorkGroupSize)
	}
	return nil
}

// median returns the median of xs (the mean of the middle two for an even
// count); xs is sorted.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// Close waits for the builds in progress and releases the device's
// resources.
func (m *Measurer) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.wg.Wait()
	for _, b := range m.builds {
		if b.prog != nil {
			b.prog.Close()
		}
	}
	m.builds = nil
	for _, b := range append(m.bufs, m.init...) {
		if b != nil {
			b.Close()
		}
	}
	m.sess.Close()
	return nil
}
