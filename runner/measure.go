package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/autotune"
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
	// Options are the variant's own OpenCL build options, after those of
	// MeasureSettings (ast.Kernel.Options: -cl-denorms-are-zero with ftz).
	Options string
	// CutoffMs, if positive, ends the timing early: a variant whose first
	// launch is slower than it is timed by that launch alone (its outputs
	// are still checked), as ATF aborts configurations that cannot beat
	// the best one found.
	CutoffMs float64
	// Deadline, if not zero, is when the variant's measurement should be
	// over (the end of a tuning's budget): after the first launch, only as
	// many timed launches are made as are expected to end before it, and
	// without time for one the first launch's time is the variant's.
	Deadline time.Time
	// SlowAfter, if positive, bounds the variant's first launch in a
	// Worker, counted from the end of its build: a variant whose first
	// launch runs longer is stopped (its worker process killed, as for the
	// run limit, which SlowAfter cannot extend) and is a Timeout whose
	// message is SlowWhy and the time it ran ("slower than 10 x the
	// single-point kernel's 71 ms: stopped after 1 s"), as ATF and KTT
	// abort configurations far slower than the best. On a device that
	// compiles at launch, a first launch whose code no builder made gets
	// the build limit on top of it. A Measurer ignores it.
	SlowAfter time.Duration
	// SlowWhy says why SlowAfter is what it is; "" reads as "slower than
	// SlowAfter".
	SlowWhy string
}

// slowMark is in the reason of every variant stopped for running longer
// than its SlowAfter, and in no other reason the runner gives.
const slowMark = ": stopped after "

// SlowStopped reports whether reason, that of a Timeout, says the variant
// was stopped for running longer than its SlowAfter: a verdict relative to
// the times of the search (the single-point kernel's, the best variant's),
// where the other timeouts are absolute limits on a build or a run, which
// a loaded machine can pass as well as the variant.
func SlowStopped(reason string) bool {
	return strings.HasPrefix(reason, "runner: ") && strings.Contains(reason, slowMark)
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
	// Ahead bounds the variants given to Prepare that wait for Measure
	// (built, or being built); a Prepare beyond it drops the oldest.
	// Default 0: 4.
	Ahead int
	// Check says where the outputs are compared with the expected ones.
	// Default CheckOnAuto.
	Check CheckOn
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
// It builds, sets arguments and launches through the device's Session.
// Prepare builds a variant in the background (OpenCL builds of different
// programs may run concurrently with launches), so the build of the next
// variant overlaps the runs of the current one. Measure, SetReference and
// Close must not be called concurrently with each other; Prepare may be
// called from any goroutine.
type Measurer struct {
	set  MeasureSettings
	prob *Problem
	outs []int // indices of the outputs in prob.Args
	sess *Session
	bufs []*Buffer // per argument; nil for scalars
	// guards holds each output's allocation with its guard zones
	// (guard.go), whose inner buffer is in bufs; nil for the others.
	// guardsDirty says that a variant failed after its launch, and may
	// have written into them.
	guards      []*guarded
	guardsDirty bool
	// init holds the initial contents of each output (nil for the other
	// arguments), from which the outputs are reset on the device before
	// every launch; zero marks the outputs that start all zero, which are
	// zeroed on the device instead (a worker's, data.go).
	init []*Buffer
	zero []bool
	// hostless says that the Problem's arrays have no contents: a
	// worker's data went straight to the device (data.go), so the inputs
	// cannot be uploaded again from here; the parent sends them again.
	hostless bool
	// wantPath is the file of a worker's expected outputs (data.go); once
	// they are set, wantFile is it open, wantOff the offset of each
	// output in it, and want stays nil.
	wantPath      string
	wantFile      *os.File
	wantOff       []int64
	chunk, chunk2 []byte // for reading outputs back and the expected ones in chunks

	want        []Arg             // expected outputs, parallel to prob.Args; nil until set
	tols        map[int]Tolerance // per output, scaled for want
	dc          *devCheck         // the check on the device; nil: on the host (devcheck.go)
	baseline    float64
	hasRef      bool
	inputsStale bool

	// onBuilt, if set, is called (from another goroutine) with the source
	// of each prepared variant whose build has ended.
	onBuilt func(source string)

	mu       sync.Mutex
	prepared map[string]*Program // by source, prepared and not yet measured
	order    []string            // keys of prepared, oldest first
	closed   bool
}

// NewMeasurer opens the device selected by device (an opencl.Select spec;
// see Open), checks p and uploads its arrays. The Measurer keeps p, which
// must not change while it is in use. It shares the device's Session with
// the rest of the process, so a variant that damages the OpenCL state
// harms the process's other users of the device: a Worker keeps each
// Measurer in a process of its own.
func NewMeasurer(device string, p *Problem, set MeasureSettings) (*Measurer, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	m, err := openMeasurer(device, p, set)
	if err != nil {
		return nil, err
	}
	if err := m.upload(false); err != nil {
		m.Close()
		return nil, fmt.Errorf("runner: uploading the problem: %w", err)
	}
	return m, nil
}

// openMeasurer opens the device and allocates the buffers of p's arrays,
// without writing them.
func openMeasurer(device string, p *Problem, set MeasureSettings) (*Measurer, error) {
	sess, err := Open(device)
	if err != nil {
		return nil, err
	}
	if err := CheckDevice(sess.Device(), p.Sizes(), 1); err != nil {
		return nil, err
	}
	m := &Measurer{set: set, prob: p, outs: p.outputs(), sess: sess, bufs: make([]*Buffer, len(p.Args)), guards: make([]*guarded, len(p.Args)), init: make([]*Buffer, len(p.Args)), zero: make([]bool, len(p.Args)), prepared: map[string]*Program{}}
	for i := range p.Args {
		a := &p.Args[i]
		if a.Scalar {
			continue
		}
		if a.Output {
			if m.guards[i], err = newGuarded(sess, a.bytes()); err != nil {
				m.Close()
				return nil, fmt.Errorf("runner: %s: %w", a.Name, err)
			}
			m.bufs[i] = m.guards[i].inner
		} else if m.bufs[i], err = sess.NewBuffer(a.bytes()); err != nil {
			m.Close()
			return nil, fmt.Errorf("runner: %s: %w", a.Name, err)
		}
		if a.Output {
			if m.init[i], err = sess.NewBuffer(a.bytes()); err != nil {
				m.Close()
				return nil, fmt.Errorf("runner: the initial %s: %w", a.Name, err)
			}
		}
	}
	m.dc = m.newDevCheck()
	return m, nil
}

// Device returns the name of the device.
func (m *Measurer) Device() string { return m.sess.Device().Name }

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
				err = writeSlice(dst, a.F32)
			case ast.Double:
				err = writeSlice(dst, a.F64)
			case ast.Int:
				err = writeSlice(dst, a.I32)
			}
			if err != nil {
				return fmt.Errorf("writing %s: %w", a.Name, err)
			}
		}
		if a.Output {
			if err := m.resetOutput(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// resetOutput gives output i its initial contents on the device.
func (m *Measurer) resetOutput(i int) error {
	var err error
	switch {
	case m.zero[i]:
		err = m.bufs[i].zero()
	case m.init[i] != nil:
		err = m.bufs[i].CopyFrom(m.init[i])
	}
	if err != nil {
		return fmt.Errorf("resetting %s: %w", m.prob.Args[i].Name, err)
	}
	return nil
}

// SetExpected sets the outputs variants are checked against: want is
// parallel to the Problem's Args, and only its entries for outputs are
// read (each must have the output's type and length). SetExpected keeps
// want.
func (m *Measurer) SetExpected(want []Arg) error {
	if err := m.prob.checkWant(want); err != nil {
		return err
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
	ms, _, err = m.setReference(ref, 0)
	return ms, err
}

// setReference is SetReference with the timed launches bounded by within
// (0: no bound): after the warm-up, a launch is made only if the timed
// launches are expected to end within that time, and without time for one
// (a kernel that runs longer than within), the warm-up's kernel time is
// the baseline. It returns the number of timed launches (0 for the
// warm-up's time).
func (m *Measurer) setReference(ref Variant, within time.Duration) (ms float64, timed int, err error) {
	r := m.run(context.Background(), ref, runOptions{within: within, readBack: !m.hasWant() && !m.hostless})
	res, got, timed := r.res, r.got, r.timed
	if res.Outcome == autotune.OK && m.hasWant() {
		res = m.check(res)
	}
	if res.Outcome != autotune.OK {
		return 0, 0, fmt.Errorf("runner: reference variant %s: %v: %v", ref.KernelName, res.Outcome, res.Err)
	}
	switch {
	case m.hasWant():
	case m.hostless:
		if err := m.saveWant(); err != nil {
			return 0, 0, fmt.Errorf("runner: the reference's outputs: %v", err)
		}
	default:
		m.setWant(got)
	}
	m.baseline, m.hasRef = res.Ms, true
	return res.Ms, timed, nil
}

// Baseline returns the reference variant's median time in ms, or an error
// if SetReference did not run one.
func (m *Measurer) Baseline() (float64, error) {
	if !m.hasRef {
		return 0, errors.New("runner: no baseline: no reference variant was measured")
	}
	return m.baseline, nil
}

// Prepare starts building v's program in the background; Measure then
// uses it. At most MeasureSettings.Ahead prepared programs wait for
// Measure: one more Prepare drops the oldest.
func (m *Measurer) Prepare(v Variant) { m.prepare(v, nil) }

// prepare is Prepare, making the program from bin when it is not nil (a
// builder's binary of v).
func (m *Measurer) prepare(v Variant, bin []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || m.prepared[v.Source] != nil {
		return
	}
	if len(m.order) >= m.set.ahead() {
		m.prepared[m.order[0]].Close()
		delete(m.prepared, m.order[0])
		m.order = m.order[1:]
	}
	var built func()
	if m.onBuilt != nil {
		built = func() { m.onBuilt(v.Source) }
	}
	m.prepared[v.Source] = m.sess.prepare(v.Source, bin, JoinOptions(m.set.Options, v.Options), built)
	m.order = append(m.order, v.Source)
}

// program returns v's program, prepared or being built now (from bin if it
// is not nil). The caller closes it: a variant is measured once.
func (m *Measurer) program(v Variant, bin []byte) *Program {
	p := m.take(v)
	if p == nil {
		p = m.sess.prepare(v.Source, bin, JoinOptions(m.set.Options, v.Options), nil)
	}
	return p
}

// take returns v's prepared program and forgets it; nil when v was not
// prepared (or its program was dropped for a later one).
func (m *Measurer) take(v Variant) *Program {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.prepared[v.Source]
	if p != nil {
		delete(m.prepared, v.Source)
		m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == v.Source })
	}
	return p
}

// Measure builds v, runs it and checks its outputs: OK with the median of
// the timed launches in ms, or Illegal (a geometry the device cannot
// launch), Compile, Launch or Wrong, with the reason in Result.Err (the
// build log for Compile, the first wrong element for Wrong): the outcomes
// of package autotune. It needs the
// expected outputs (SetReference or SetExpected). ctx is checked before
// the launches, which are enqueued together after the first (v.Deadline
// bounds how many): they cannot be interrupted (a Worker can).
func (m *Measurer) Measure(ctx context.Context, v Variant) autotune.Result {
	return m.measure(ctx, v, runOptions{}).res
}

// runOptions are what a worker adds to a measurement: the variant's binary
// from a builder (nil: build the source), a bound on the timed launches
// (setReference), functions called once the variant is built and once
// its first launch has ended, and whether to read the outputs back.
type runOptions struct {
	prog     *Program // v's program, taken from the prepared ones; nil: program(v, bin)
	bin      []byte
	within   time.Duration
	compiled func()
	launched func()
	readBack bool
}

// ran is what run did: the result; the outputs read back (with
// runOptions.readBack), parallel to the Problem's Args; whether the
// OpenCL state may be damaged (an error after a kernel was enqueued); the
// number of timed launches (0: the first launch's time alone).
type ran struct {
	res     autotune.Result
	got     []Arg
	restart bool
	timed   int
}

// measure is Measure with opt.
func (m *Measurer) measure(ctx context.Context, v Variant, opt runOptions) ran {
	if !m.hasWant() {
		if opt.prog != nil {
			opt.prog.Close()
		}
		return ran{res: autotune.Result{Outcome: autotune.Launch, Err: errors.New("runner: no expected outputs: call SetReference or SetExpected first")}}
	}
	opt.readBack = false
	r := m.run(ctx, v, opt)
	if r.res.Outcome == autotune.OK {
		start := time.Now()
		r.res = m.check(r.res)
		r.res.Cost.Check = time.Since(start)
	}
	return r
}

// deadlineMargin is the time kept before a Variant's Deadline for what
// follows the launches (the check, the answer).
const deadlineMargin = 50 * time.Millisecond

// run builds v and launches it: one launch alone (the warm-up, whose time
// says how long the others take; on a device that compiles at launch, the
// one that compiles), then the other warm-up and the timed launches
// enqueued together, each after the outputs' reset, and waited for once.
// With opt.readBack, it reads the outputs back.
func (m *Measurer) run(ctx context.Context, v Variant, opt runOptions) (out ran) {
	prog := opt.prog
	if prog != nil {
		defer prog.Close()
	}
	var cost autotune.Cost
	start, built := time.Now(), time.Time{}
	fail := func(o autotune.Outcome, format string, args ...any) ran {
		if o == autotune.Launch || o == autotune.Wrong {
			m.inputsStale, m.guardsDirty = true, true
			m.dc.markStale()
		}
		if !built.IsZero() {
			cost.Run = time.Since(built)
		}
		// The session's errors carry the package's name already.
		msg := strings.TrimPrefix(fmt.Sprintf(format, args...), "runner: ")
		out.res = autotune.Result{Outcome: o, Err: fmt.Errorf("runner: %s: %s", v.KernelName, msg), Cost: cost}
		out.got, out.timed = nil, 0
		return out
	}
	if v.KernelName == "" {
		return fail(autotune.Illegal, "variant has no kernel name")
	}
	if err := m.sess.CheckLaunch(v.Global, v.Local, 0); err != nil {
		return fail(autotune.Illegal, "%v", err)
	}
	if prog == nil {
		prog = m.program(v, opt.bin)
		defer prog.Close()
	}
	prog.Urgent()
	err := prog.Wait()
	built = time.Now()
	if prog.e.fromBinary {
		cost.Load = built.Sub(start)
	} else {
		cost.Build = built.Sub(start)
	}
	if opt.compiled != nil {
		opt.compiled()
	}
	if err != nil {
		return fail(autotune.Compile, "%v", err)
	}
	args := make([]KernelArg, len(m.prob.Args))
	for i := range m.prob.Args {
		a := &m.prob.Args[i]
		args[i] = KernelArg{Buffer: m.bufs[i], Type: a.Type, Value: a.Value}
	}
	k, err := prog.Kernel(v.KernelName, args)
	if err != nil {
		return fail(autotune.Compile, "%v", err)
	}
	defer k.Close()
	if m.inputsStale && !m.hostless {
		if err := m.upload(false); err != nil {
			out.restart = true
			return fail(autotune.Launch, "uploading the inputs again: %v", err)
		}
		m.inputsStale = false
	}
	if m.guardsDirty {
		// The last variant failed and may have written anywhere: its
		// guard zones are filled again before this one runs.
		if err := m.fillGuards(); err != nil {
			out.restart = true
			return fail(autotune.Launch, "%v", err)
		}
		m.guardsDirty = false
	}
	if err := ctx.Err(); err != nil {
		return fail(autotune.Timeout, "%v", err)
	}
	// launchErr makes err a Launch failure: an error of the enqueue itself
	// leaves the queue usable; one of a kernel that ran, or of a reset,
	// may not.
	launchErr := func(err error) ran {
		var ce opencl.Error
		out.restart = errors.As(err, &ce) && ce.Call != "clEnqueueNDRangeKernel"
		return fail(autotune.Launch, "%v", err)
	}
	reset := func() error {
		if err := m.upload(true); err != nil {
			return fmt.Errorf("resetting the outputs: %w", err)
		}
		return nil
	}
	warm, runs := m.set.warmup(), m.set.runs()
	if err := reset(); err != nil {
		return launchErr(err)
	}
	d, err := k.Run(v.Global, v.Local)
	if opt.launched != nil {
		opt.launched()
	}
	if err != nil {
		return launchErr(err)
	}
	cost.Kernels += d
	first := float64(d) / 1e6
	var times []float64
	if warm == 0 {
		times, runs = append(times, first), runs-1
	}
	warmOnly := false // times holds the first launch's time alone, not a timed one's
	if v.CutoffMs > 0 && first > v.CutoffMs {
		times, runs, warm = []float64{first}, 0, 1
	}
	// The next launches take about as long as this one's kernel; its wall
	// time may hold a compilation (PoCL's at the first launch).
	per := d + d/4 + time.Millisecond
	extra := max(0, warm-1) // warm-up launches still to make
	if opt.within > 0 {
		runs = min(runs, int(opt.within/per))
	}
	if !v.Deadline.IsZero() {
		left := time.Until(v.Deadline) - deadlineMargin - time.Duration(extra)*per
		runs = min(runs, max(0, int(left/per)))
	}
	if runs <= 0 {
		runs, extra = 0, 0
		if len(times) == 0 {
			times, warmOnly = []float64{first}, true
		}
	}
	if extra+runs > 0 {
		ds, err := k.runMany(v.Global, v.Local, extra+runs, reset)
		for j, d := range ds {
			cost.Kernels += d
			if j >= extra {
				times = append(times, float64(d)/1e6)
			}
		}
		if err != nil {
			return launchErr(err)
		}
	}
	if err := m.checkGuards(); err != nil {
		return fail(autotune.Wrong, "%v", err)
	}
	cost.Run = time.Since(built)
	if out.timed = len(times); warmOnly {
		out.timed = 0
	}
	out.res = autotune.Result{Outcome: autotune.OK, Ms: Median(times), Times: times, Cost: cost}
	if !opt.readBack {
		return out
	}
	got := make([]Arg, len(m.prob.Args))
	for _, i := range m.outs {
		a := &m.prob.Args[i]
		g := Arg{Name: a.Name, Type: a.Type, Dims: a.Dims, Output: true}
		var err error
		switch a.Type {
		case ast.Float:
			g.F32 = make([]float32, a.Len())
			err = readSlice(m.bufs[i], g.F32)
		case ast.Double:
			g.F64 = make([]float64, a.Len())
			err = readSlice(m.bufs[i], g.F64)
		case ast.Int:
			g.I32 = make([]int32, a.Len())
			err = readSlice(m.bufs[i], g.I32)
		}
		if err != nil {
			out.restart = true
			return fail(autotune.Launch, "reading %s back: %v", a.Name, err)
		}
		got[i] = g
	}
	out.res.Cost.Run = time.Since(built)
	out.got = got
	return out
}

// hasWant reports whether the expected outputs are set.
func (m *Measurer) hasWant() bool { return m.want != nil || m.wantFile != nil }

// setWant makes want the expected outputs, with the tolerance of each
// scaled to its RMS once here rather than at every check.
func (m *Measurer) setWant(want []Arg) {
	m.want, m.tols = want, map[int]Tolerance{}
	for _, i := range m.outs {
		m.tols[i] = m.prob.Tolerance.scaled(want[i].rms())
	}
	m.wantToDevice()
}

// check compares the outputs of the run res with the expected ones and
// returns res or the Wrong (or Launch, when an output cannot be read)
// result, with res's Cost either way: on the device where it can
// (devcheck.go), and on the host when the device finds a wrong element,
// which the host's check then names.
func (m *Measurer) check(res autotune.Result) autotune.Result {
	if !m.dc.usable() {
		return m.checkHost(res)
	}
	if m.dc.stale {
		if m.wantToDevice(); !m.dc.usable() {
			return m.checkHost(res)
		}
	}
	ok, err := m.checkOnDevice()
	if err == nil && ok {
		return res
	}
	r := m.checkHost(res)
	if err == nil && r.Outcome == autotune.OK {
		// The device counted wrong elements that the host does not find:
		// its copy of the expected outputs was damaged (by a variant that
		// wrote far outside its outputs), so it is made again.
		if m.dc.disagreed++; m.dc.disagreed >= maxDisagreements {
			m.dc.stop()
		} else {
			m.wantToDevice()
		}
	}
	return r
}

// checkHost is check on the host: the outputs are read back from the
// device in chunks and compared with the expected ones.
func (m *Measurer) checkHost(res autotune.Result) autotune.Result {
	for _, i := range m.outs {
		a := &m.prob.Args[i]
		n, per := a.Len(), chunkBytes/a.Type.Size()
		var t tally
		for lo := 0; lo < n; lo += per {
			hi := min(n, lo+per)
			got, err := m.readChunk(i, lo, hi)
			if err != nil {
				m.inputsStale = true
				return autotune.Result{Outcome: autotune.Launch, Err: fmt.Errorf("runner: reading %s back: %v", a.Name, err), Cost: res.Cost, Times: res.Times}
			}
			want, err := m.wantChunk(i, lo, hi)
			if err != nil {
				return autotune.Result{Outcome: autotune.Launch, Err: fmt.Errorf("runner: reading the expected %s: %v", a.Name, err), Cost: res.Cost, Times: res.Times}
			}
			t.add(tallyScaled(&got, &want, m.tols[i]), lo)
		}
		if err := t.err(a.Name, a.Dims, a.Type, m.tols[i], n); err != nil {
			m.inputsStale = true
			return autotune.Result{Outcome: autotune.Wrong, Err: fmt.Errorf("runner: wrong result: %v", err), Cost: res.Cost, Times: res.Times}
		}
	}
	return res
}

// Median returns the median of xs (the mean of the middle two for an even
// count), the time Measure reports of its timed launches; xs is left as
// it is.
func Median(xs []float64) float64 {
	xs = slices.Sorted(slices.Values(xs))
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// Close releases the programs prepared and not measured and the device's
// buffers; the device's Session stays open.
func (m *Measurer) Close() error {
	m.mu.Lock()
	m.closed = true
	for _, p := range m.prepared {
		p.Close()
	}
	m.prepared, m.order = nil, nil
	m.mu.Unlock()
	if m.wantFile != nil {
		m.wantFile.Close()
	}
	if m.dc != nil {
		m.dc.free()
	}
	for i := range m.bufs {
		switch {
		case m.guards[i] != nil: // holds bufs[i]
			m.guards[i].Close()
		case m.bufs[i] != nil:
			m.bufs[i].Close()
		}
		if m.init[i] != nil {
			m.init[i].Close()
		}
	}
	return nil
}

// JoinOptions joins two lists of OpenCL build options: the measurement's
// and a variant's, or a kernel's and those a user adds.
func JoinOptions(set, variant string) string {
	return strings.TrimSpace(set + " " + variant)
}
