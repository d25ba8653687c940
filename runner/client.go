package runner

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hplopt/hplopt/autotune"
)

// Worker isolation: a variant that hangs the device or crashes the OpenCL
// driver must not end a tuning run, so a Worker runs a Measurer in a child
// process and measures variants through it.
//
// The child is the same executable, started again with a reserved first
// argument (server.go). A program that uses a Worker must call MaybeWorker
// at the start of main (and a test binary at the start of TestMain): in
// the child, MaybeWorker serves requests and exits; elsewhere it returns at
// once. The parent sends requests on the child's stdin and reads the
// answers from file descriptor 3, both with encoding/gob (wire.go), so
// that whatever the OpenCL implementation prints on stdout cannot garble
// them; the child's stdout and stderr are kept (the last few KiB, for the
// message of a crash) and copied to WorkerSettings.Stderr.
//
// The conversation: the child says hello; the parent sends the setup (the
// device spec, the Problem, the reference variant or the expected outputs,
// the MeasureSettings); the child builds a Measurer, runs the reference
// and answers with the device's name, the baseline time and the reference
// outputs. Then, per variant, the parent sends a measure request and the
// child answers twice: once when the program is built, once with the
// result. Prepare requests (no answer) start builds ahead of time. With a
// build pool (pool.go), the variants are built by builder processes and
// the prepare and measure requests carry the binaries.
//
// The parent limits the build and the runs separately (CompileTimeout,
// then Timeout plus TimeoutFactor times the baseline per launch), and a
// variant's first launch by its Variant.SlowAfter. When a limit passes, or the caller's context is done, it kills the child and
// reports Timeout; when the child dies on its own, it reports Launch
// ("worker crashed: ..."). Either way the next Measure starts a new child
// and sends it the problem and the reference outputs again (the reference
// is not run again, and the baseline is kept). A child whose OpenCL state
// may be damaged after a launch failure (an error after the kernel was
// enqueued) is replaced the same way. A child that dies while it measures
// a variant may have been killed from outside (the OOM killer, a signal):
// the variant is measured once more in a new child before it is blamed.

// WorkerSettings configures a Worker. The zero value measures on the
// default device with the default MeasureSettings and limits.
type WorkerSettings struct {
	// Device selects the OpenCL device (an opencl.Select spec). Default
	// "": the default device.
	Device string
	// Measure says how each variant is timed. Default: MeasureSettings{}.
	Measure MeasureSettings
	// Want, if not nil, holds the expected outputs, parallel to the
	// Problem's Args (only the entries of outputs are read). It is
	// required when StartWorker has no reference variant; with one, the
	// reference's outputs are checked against it. Default nil.
	Want []Arg
	// Timeout is the fixed part of the limit on a variant's runs (warm-up
	// and timed), counted once its program is built. Default 0: 10 s.
	Timeout time.Duration
	// TimeoutFactor adds TimeoutFactor times the baseline time per launch
	// to Timeout. Default 0: 20; negative: nothing.
	TimeoutFactor float64
	// CompileTimeout limits a variant's build, in a builder or in the
	// measuring worker (on a device that compiles at launch, a builder's
	// build includes its first launch's compilation); a variant past it
	// fails with Compile. A first launch that compiles in the measuring
	// worker gets it on top of its run limit. Default 0: 1 min.
	CompileTimeout time.Duration
	// StartTimeout limits starting a worker: the setup, the upload and,
	// the first time, the reference variant's runs. Default 0: 5 min.
	StartTimeout time.Duration
	// ReferenceTime, if positive, bounds the timed launches of the
	// reference variant: after its warm-up, it is launched Measure.Runs
	// times or as many times as fit in ReferenceTime, and without time for
	// one (a kernel slower than that) the warm-up's kernel time is the
	// baseline. Default 0: Measure.Runs launches.
	ReferenceTime time.Duration
	// Builders is the number of builder processes that build the variants
	// given to Prepare ahead of their measurement (pool.go). Default 0:
	// DefaultBuilders(); negative: none, the measuring worker builds.
	Builders int
	// Cache, if not nil, keeps the builders' binaries between runs, and
	// PoCL's kernel cache: the worker processes get its PoclDir as
	// POCL_CACHE_DIR. Either way they get POCL_KERNEL_CACHE=1: on PoCL the
	// builders leave their work in PoCL's cache instead of in binaries.
	// Default nil: no binaries kept, and PoCL's cache where the environment
	// says.
	Cache *Cache
	// Stderr receives what the worker process writes on its stdout and
	// stderr (OpenCL implementations' messages). Default nil: discarded,
	// except for the last few KiB kept for the message of a crash.
	Stderr io.Writer

	// faults are failures the worker makes on purpose, for tests only
	// (export_test.go).
	faults []fault
	// binaries makes the builders hand back binaries on a device that
	// compiles at launch too (PoCL), for tests only: the measuring worker
	// then makes its programs from them, as on a GPU.
	binaries bool
}

func (s *WorkerSettings) timeout() time.Duration { return orDefault(s.Timeout, 10*time.Second) }
func (s *WorkerSettings) compileTimeout() time.Duration {
	return orDefault(s.CompileTimeout, time.Minute)
}
func (s *WorkerSettings) startTimeout() time.Duration {
	return orDefault(s.StartTimeout, 5*time.Minute)
}

// DefaultBuilders is the number of builder processes of a Worker by
// default: the host's cores less one (for the measuring worker and the
// tuner), at least one.
func DefaultBuilders() int { return max(1, runtime.NumCPU()-1) }

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Worker measures variants on an OpenCL device in a child process (see
// MaybeWorker), so that a variant that hangs or crashes fails alone. Its
// methods are safe for concurrent use; measurements are made one at a
// time.
type Worker struct {
	set    WorkerSettings
	exe    string
	env    []string // the children's environment; nil: this process's
	stderr *tailWriter
	pool   *pool // nil: the measuring worker builds

	measuring sync.Mutex // one Measure at a time

	prob *Problem // whose arrays (and set.Want) a new child is sent, after the setup
	dir  string   // a directory of the worker's files (the expected outputs)

	mu       sync.Mutex
	setup    wireSetup // what a new child is sent: no Reference once one ran
	resend   bool      // the child's inputs may be overwritten: send them again
	c        *child    // nil: start one at the next Measure
	device   string
	baseline float64 // ms, if hasRef
	baseRuns int
	hasRef   bool
	lazy     bool // the device compiles at launch
	restarts int
	spawned  int // measuring children started
	// heldBinaries counts the measure requests sent without the binary,
	// the worker process having been sent it ahead; resentBinaries those
	// sent again with it, the process having dropped the program.
	heldBinaries, resentBinaries int
	pending                      []prepped // prepared and not yet measured, resent to a new child
	changed                      chan struct{}
	closed                       bool
}

// prepped is a variant given to Prepare; with a pool, sent is set once its
// build ended and the measuring worker was asked to prepare it (with bin,
// the builder's binary).
type prepped struct {
	v    Variant
	key  string // sourceKey(v.Source), computed once
	bin  []byte
	sent bool
	to   *child // the measuring worker process that was sent bin
}

// StartWorker starts a worker process measuring on set.Device with the
// data of p, runs the reference variant ref (normally the single-point
// kernel) to get the expected outputs and the baseline time, and returns
// when the worker is ready. ref may be nil if set.Want holds the expected
// outputs; there is no baseline then. ctx limits the start only.
func StartWorker(ctx context.Context, p *Problem, ref *Variant, set WorkerSettings) (*Worker, error) {
	if isWorker() {
		return nil, errors.New("runner: this process was started as a worker but does not serve: call runner.MaybeWorker at the start of main (or TestMain)")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if ref == nil && set.Want == nil {
		return nil, errors.New("runner: a worker needs a reference variant or the expected outputs (WorkerSettings.Want)")
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("runner: cannot find the executable to start a worker: %v", err)
	}
	if set.Want != nil {
		if err := p.checkWant(set.Want); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "hplopt-worker-")
	if err != nil {
		return nil, fmt.Errorf("runner: a directory for the worker's files: %v", err)
	}
	w := &Worker{set: set, exe: exe, stderr: &tailWriter{w: set.Stderr}, prob: p, dir: dir, changed: make(chan struct{})}
	// PoCL's kernel cache, on, in the Cache (else where the environment
	// says): the builders' first launches leave their code there for the
	// measuring worker.
	w.env = append(os.Environ(), "POCL_KERNEL_CACHE=1")
	if set.Cache != nil {
		w.env = append(w.env, "POCL_CACHE_DIR="+set.Cache.PoclDir())
	}
	w.setup = wireSetup{
		Device:        set.Device,
		Args:          shapes(p.Args),
		Tolerance:     p.Tolerance,
		Reference:     ref,
		WantSent:      set.Want != nil,
		WantFile:      filepath.Join(dir, "want"),
		Measure:       set.Measure,
		ReferenceTime: set.ReferenceTime,
		Faults:        slices.DeleteFunc(slices.Clone(set.faults), func(f fault) bool { return f.Builder }),
	}
	if set.Builders >= 0 {
		// The builders start while the measuring worker times the
		// reference; they wait for the device's key before building.
		bset := wireSetup{Role: roleBuild, Device: set.Device, Args: w.setup.Args, Measure: set.Measure, SharedCache: !set.binaries,
			Faults: slices.DeleteFunc(slices.Clone(set.faults), func(f fault) bool { return !f.Builder })}
		n := set.Builders
		if n == 0 {
			n = DefaultBuilders()
		}
		w.pool = newPool(n, exe, w.env, w.stderr, bset, set.compileTimeout(), set.timeout(), time.Minute, set.Cache, w.built)
	}
	c, r, err := w.spawn(ctx, set.startTimeout())
	if err != nil {
		w.Close()
		return nil, err
	}
	w.c, w.device, w.baseline, w.baseRuns, w.hasRef, w.lazy = c, r.Device, r.BaselineMs, r.BaseRuns, ref != nil, r.Lazy
	if w.pool != nil {
		w.pool.ready(r.DeviceKey, r.Lazy)
	}
	w.setup.Reference = nil // the first child wrote the reference's outputs to WantFile
	return w, nil
}

// Device returns the name of the device the worker measures on.
func (w *Worker) Device() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.device
}

// Baseline returns the median time of the reference variant in ms, or an
// error if the worker was started without one.
func (w *Worker) Baseline() (float64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.hasRef {
		return 0, errors.New("runner: no baseline: the worker was started without a reference variant")
	}
	return w.baseline, nil
}

// BaselineRuns returns the number of timed launches of the reference
// variant whose median is the baseline; 0 when WorkerSettings.
// ReferenceTime left time for none and the warm-up's time is the baseline.
func (w *Worker) BaselineRuns() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.baseRuns
}

// Pool returns what the worker's builders did so far (the zero PoolStats
// without builders).
func (w *Worker) Pool() PoolStats {
	if w.pool == nil {
		return PoolStats{}
	}
	return w.pool.Stats()
}

// Restarts returns how many times a worker process was started again
// after the first one died, was killed or was retired.
func (w *Worker) Restarts() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.restarts
}

// Prepare asks the worker to build v in the background, so that its build
// overlaps the measurement of the variants before it (call Prepare(next)
// before Measure(current)): the builders build it, or, without them, the
// measuring worker. It does not wait; a variant measured without Prepare
// is built when it is measured.
func (w *Worker) Prepare(v Variant) { w.prepare(v, false) }

// Speculate asks the builders to build vs, variants that may be measured
// soon (a strategy's guesses, the likeliest first), with the time the
// variants prepared with Prepare leave them: they wait behind those, at
// most as many as the builders, and half the builders at most build
// guesses. They replace the guesses of the last call that no builder
// started. A guess's binary goes to the cache of built programs, where a
// later Prepare or Measure of its variant finds it. Without a cache, or
// with fewer than 2 builders, it does nothing.
func (w *Worker) Speculate(vs []Variant) {
	if w.pool != nil {
		w.pool.speculate(vs)
	}
}

// PrepareFirst is Prepare for a variant wanted next: its build goes before
// those of the variants prepared before it that no builder has started.
func (w *Worker) PrepareFirst(v Variant) { w.prepare(v, true) }

func (w *Worker) prepare(v Variant, first bool) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	for _, p := range w.pending {
		if sameVariant(p.v, v) {
			w.mu.Unlock()
			if w.pool != nil && first {
				w.pool.submit(v, true)
			}
			return
		}
	}
	if len(w.pending) >= w.set.Measure.ahead() {
		w.pending = w.pending[1:]
	}
	w.pending = append(w.pending, prepped{v: v, key: sourceKey(v.Source), sent: w.pool == nil})
	c := w.c
	w.mu.Unlock()
	if w.pool != nil {
		w.pool.submit(v, first)
		return
	}
	if c != nil {
		c.send(wireRequest{Op: opPrepare, Variant: v})
	}
}

// built is the pool's news of a finished job: the measuring worker is
// asked to prepare the variant from its binary, if it is still to be
// measured.
func (w *Worker) built(j *buildJob) {
	w.mu.Lock()
	var send *prepped
	for i := range w.pending {
		if p := &w.pending[i]; sameVariant(p.v, j.v) && !p.sent && j.err == nil {
			p.bin, p.sent = j.bin, true
			send = p
			break
		}
	}
	c := w.c
	w.mu.Unlock()
	if send != nil && c != nil {
		v, bin := send.v, send.bin
		c.send(wireRequest{Op: opPrepare, Variant: v, Binary: bin})
		w.sentTo(v, bin, c)
	}
	w.signal()
}

// sentTo notes that c was sent bin, v's binary: v's measure request to c
// need not carry it again.
func (w *Worker) sentTo(v Variant, bin []byte, c *child) {
	if bin == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.pending {
		if p := &w.pending[i]; p.sent && sameVariant(p.v, v) {
			p.to = c
		}
	}
}

// signal tells WaitReady that something became ready.
func (w *Worker) signal() {
	w.mu.Lock()
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
}

// Ready reports whether v, prepared with Prepare, can be measured without
// waiting for its build: it failed to build (its measurement fails at
// once), or the current worker process has its program, or, with
// builders, its binary is at hand and the worker process has not been
// given it yet.
func (w *Worker) Ready(v Variant) bool {
	if w.pool != nil {
		j := w.pool.lookup(v)
		if j == nil {
			return false
		}
		select {
		case <-j.done:
			if j.err != nil {
				return true
			}
		default:
			return false
		}
	}
	w.mu.Lock()
	c, sent, key := w.c, w.pool == nil, ""
	for _, p := range w.pending {
		if p.sent && sameVariant(p.v, v) {
			sent, key = true, p.key
		}
	}
	w.mu.Unlock()
	if c == nil || !sent {
		return w.pool != nil
	}
	if key == "" {
		key = sourceKey(v.Source)
	}
	_, ok := c.built.Load(key)
	return ok
}

// WaitReady waits until one of vs is Ready and returns its index, or -1
// when ctx is done first. Without a worker process (the last one was lost
// and the next Measure starts one), or when it dies while waiting, it
// returns 0: nothing becomes ready before a Measure. So it does when no builder has started vs[0],
// the variant wanted next: the measuring worker, idle, is to build it.
func (w *Worker) WaitReady(ctx context.Context, vs []Variant) int {
	if w.pool != nil && len(vs) > 0 {
		if j := w.pool.lookup(vs[0]); j != nil && w.pool.queued(j) {
			return 0
		}
	}
	for {
		w.mu.Lock()
		ch, c := w.changed, w.c
		w.mu.Unlock()
		for i, v := range vs {
			if w.Ready(v) {
				return i
			}
		}
		if c == nil && len(vs) > 0 {
			return 0
		}
		// A worker killed from outside between measurements makes
		// nothing ready: Measure notices it and starts another. (Waiting
		// on w.changed alone, the search waited out its budget.)
		var died <-chan struct{}
		if c != nil {
			died = c.done
		}
		select {
		case <-ch:
		case <-died:
			return 0
		case <-ctx.Done():
			return -1
		}
	}
}

// Measure builds v, runs it and checks its outputs in the worker process:
// OK with the median kernel time, Compile, Launch (also when the worker
// died twice: "worker crashed: ..."), Wrong or Timeout (the variant passed
// its limit or ctx was done; the worker was killed). A new worker is
// started for the next variant when the last one was lost; a worker that
// died while measuring v is replaced at once and v measured again.
func (w *Worker) Measure(ctx context.Context, v Variant) autotune.Result {
	w.measuring.Lock()
	defer w.measuring.Unlock()
	if err := ctx.Err(); err != nil {
		return autotune.Result{Outcome: autotune.Timeout, Err: fmt.Errorf("runner: %s not measured: %v", v.KernelName, err)}
	}
	start := time.Now()
	var held *child // the worker process that has v's program from its binary
	w.mu.Lock()
	for i, p := range w.pending {
		if sameVariant(p.v, v) {
			if p.sent && p.bin != nil {
				held = p.to
			}
			w.pending = append(w.pending[:i:i], w.pending[i+1:]...)
			break
		}
	}
	closed := w.closed
	w.mu.Unlock()
	if closed {
		return autotune.Result{Outcome: autotune.Launch, Err: errors.New("runner: worker is closed")}
	}
	var bin []byte
	warm := false // bin holds the code of v's first launch
	if w.pool != nil {
		j := w.pool.submit(v, true)
		w.pool.steal(j) // no builder has it: build it here rather than wait
		select {
		case <-j.done:
		case <-ctx.Done():
			return autotune.Result{Outcome: autotune.Timeout, Err: fmt.Errorf("runner: %s not built: %v", v.KernelName, ctx.Err()), Cost: autotune.Cost{Build: time.Since(start)}}
		}
		w.pool.take(j)
		if j.err != nil {
			o := autotune.Compile
			if _, ok := j.err.(*buildTimedOut); ok {
				o = autotune.Timeout
			}
			return autotune.Result{Outcome: o, Err: j.err, Cost: autotune.Cost{Build: time.Since(start)}}
		}
		bin, warm = j.bin, j.warm
	}
	waited := time.Since(start)
	res, crash := w.measureOnce(ctx, v, bin, warm, held)
	if crash != "" {
		// Killed from outside, perhaps: once more in a new worker before
		// the variant is blamed.
		var again string
		if res, again = w.measureOnce(ctx, v, bin, warm, nil); again != "" {
			res.Err = fmt.Errorf("runner: worker crashed measuring %s, twice (each time in a new worker): %s", v.KernelName, again)
		}
	}
	res.Cost.Build += waited
	return res
}

// measureOnce measures v in the current child (a new one if there is
// none), making its program from bin if it is not nil; warm says that bin
// holds the code of v's first launch. When the child is held, which was
// sent bin with v's prepare request, the measure request does not carry
// bin again unless the child asks for it. crash, when not empty, says how
// the child died while it measured (res is then a Launch failure).
func (w *Worker) measureOnce(ctx context.Context, v Variant, bin []byte, warm bool, held *child) (res autotune.Result, crash string) {
	w.mu.Lock()
	c := w.c
	w.mu.Unlock()
	if c == nil {
		var err error
		if c, err = w.restart(ctx); err != nil {
			if ctx.Err() != nil {
				return autotune.Result{Outcome: autotune.Timeout, Err: fmt.Errorf("runner: restarting the worker: %v", ctx.Err())}, ""
			}
			return autotune.Result{Outcome: autotune.Launch, Err: fmt.Errorf("runner: restarting the worker: %v", err)}, ""
		}
	}

	w.mu.Lock()
	resend := w.resend
	w.resend = false
	w.mu.Unlock()
	if resend {
		// The last variant may have written into the inputs, of which the
		// child keeps no copy.
		c.sendArrays(w.prob.Args, nil, true)
	}
	req := wireRequest{Op: opMeasure, Variant: v, Binary: bin}
	if bin != nil && c == held {
		req.Binary, req.Held = nil, true
		w.mu.Lock()
		w.heldBinaries++
		w.mu.Unlock()
	}
	c.send(req)
	limit := w.set.compileTimeout()
	r, st := c.await(ctx, limit)
	if st == gotAnswer && r.Op == opNeedBinary {
		w.mu.Lock()
		w.resentBinaries++
		w.mu.Unlock()
		req.Binary, req.Held = bin, false
		c.send(req)
		r, st = c.await(ctx, limit)
	}
	var ran time.Time // when the runs started
	if st == gotAnswer && r.Op == opCompiled {
		limit = w.runTimeout()
		slow := v.SlowAfter
		if w.lazy && !warm {
			// The first launch compiles (PoCL): the build's limit is added
			// for it, so that a slow compiler does not make a correct
			// variant a Timeout.
			limit += w.set.compileTimeout()
			if slow > 0 {
				slow += w.set.compileTimeout()
			}
		}
		var stopped bool
		ran = time.Now()
		if r, st, stopped = c.awaitRuns(ctx, limit, slow); stopped {
			w.lose(c, true)
			why := v.SlowWhy
			if why == "" {
				why = fmt.Sprintf("slower than %v", slow)
			}
			secs := strconv.FormatFloat(math.Round(slow.Seconds()*100)/100, 'f', -1, 64)
			return autotune.Result{Outcome: autotune.Timeout, Err: fmt.Errorf("runner: %s: %s"+slowMark+"%s s; worker killed", v.KernelName, why, secs),
				Cost: autotune.Cost{Run: time.Since(ran)}}, ""
		}
	} else if st == timedOut {
		w.lose(c, true)
		return autotune.Result{Outcome: autotune.Timeout, Err: fmt.Errorf("runner: build of %s did not finish within %v; worker killed", v.KernelName, limit)}, ""
	}
	switch st {
	case timedOut:
		w.lose(c, true)
		return autotune.Result{Outcome: autotune.Timeout, Err: fmt.Errorf("runner: %s ran past its limit of %v; worker killed", v.KernelName, limit),
			Cost: autotune.Cost{Run: time.Since(ran)}}, ""
	case cancelled:
		w.lose(c, true)
		return autotune.Result{Outcome: autotune.Timeout, Err: fmt.Errorf("runner: %s stopped: %v; worker killed", v.KernelName, ctx.Err())}, ""
	case exited:
		w.lose(c, false)
		msg := c.exitMessage(w.stderr)
		return autotune.Result{Outcome: autotune.Launch, Err: fmt.Errorf("runner: worker crashed: %s", msg)}, msg
	}
	if r.Op != opResult {
		w.lose(c, true)
		return autotune.Result{Outcome: autotune.Launch, Err: fmt.Errorf("runner: worker answered %v to a measure request", r.Op)}, ""
	}
	if r.Restart {
		w.lose(c, false)
	} else if r.Stale {
		w.mu.Lock()
		w.resend = true
		w.mu.Unlock()
	}
	res = autotune.Result{Outcome: r.Outcome, Ms: r.Ms, Times: r.Times, Cost: r.Cost}
	if r.Msg != "" {
		res.Err = errors.New(r.Msg)
	}
	return res, ""
}

// runTimeout is the limit on a variant's runs once it is built.
func (w *Worker) runTimeout() time.Duration {
	d := w.set.timeout()
	f := w.set.TimeoutFactor
	if f == 0 {
		f = 20
	}
	w.mu.Lock()
	base := w.baseline
	w.mu.Unlock()
	if f > 0 && base > 0 {
		launches := float64(w.set.Measure.warmup() + w.set.Measure.runs())
		d += time.Duration(f * base * launches * float64(time.Millisecond))
	}
	return d
}

// restart starts a new child for Measure.
func (w *Worker) restart(ctx context.Context) (*child, error) {
	c, _, err := w.spawn(ctx, w.set.startTimeout())
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.c = c
	w.restarts++
	w.resend = false
	var pending []prepped
	for _, p := range w.pending {
		if p.sent {
			pending = append(pending, p)
		}
	}
	w.mu.Unlock()
	for _, p := range pending {
		c.send(wireRequest{Op: opPrepare, Variant: p.v, Binary: p.bin})
		w.sentTo(p.v, p.bin, c)
	}
	return c, nil
}

// lose forgets c, killing it if kill is set or retiring it otherwise
// (closing its input, then killing it if it does not exit soon), and
// waits for it to be gone.
func (w *Worker) lose(c *child, kill bool) {
	w.mu.Lock()
	if w.c == c {
		w.c = nil
	}
	w.mu.Unlock()
	if kill {
		c.kill()
	} else {
		c.retire()
	}
}

// Close stops the worker process. The Worker measures nothing after it.
func (w *Worker) Close() error {
	w.mu.Lock()
	c := w.c
	w.c, w.closed = nil, true
	w.mu.Unlock()
	if w.pool != nil {
		w.pool.close()
	}
	if c != nil {
		c.retire()
	}
	os.RemoveAll(w.dir)
	return nil
}

// spawn starts a measuring child, sends it w.setup and waits for its
// answer.
func (w *Worker) spawn(ctx context.Context, limit time.Duration) (*child, wireResponse, error) {
	w.mu.Lock()
	setup, first := w.setup, w.spawned == 0
	w.spawned++
	w.mu.Unlock()
	send := func(c *child) { c.sendArrays(w.prob.Args, w.set.Want, false) }
	return spawnChild(ctx, w.exe, w.env, w.stderr, setup, first, send, limit, w.signal)
}

// spawnChild starts the executable exe as a child process with env (nil:
// this process's), sends it setup (less the faults of the first process
// alone unless first), then calls after (if not nil: the measuring
// worker's arrays follow the setup), and waits for its answer, at most
// limit; onBuilt, if not nil, is called when it reports a prepared build
// ended.
func spawnChild(ctx context.Context, exe string, env []string, stderr *tailWriter, setup wireSetup, first bool, after func(*child), limit time.Duration, onBuilt func()) (*child, wireResponse, error) {
	if !first {
		setup.Faults = slices.DeleteFunc(slices.Clone(setup.Faults), func(f fault) bool { return f.First })
	}
	what := "worker"
	if setup.Role == roleBuild {
		what = "builder"
	}
	c, err := startChild(exe, env, stderr, onBuilt)
	if err != nil {
		return nil, wireResponse{}, err
	}
	fail := func(step string, st awaitStatus) (*child, wireResponse, error) {
		c.kill()
		switch st {
		case timedOut:
			return nil, wireResponse{}, fmt.Errorf("runner: %s: %s took longer than %v", what, step, limit)
		case cancelled:
			return nil, wireResponse{}, fmt.Errorf("runner: %s: %s: %w", what, step, ctx.Err())
		}
		return nil, wireResponse{}, fmt.Errorf("runner: %s: %s: the %[1]s process ended: %s", what, step, c.exitMessage(stderr))
	}
	deadline := time.Now().Add(limit)
	r, st := c.await(ctx, limit)
	if st != gotAnswer || r.Op != opHello {
		if st == exited {
			c.kill()
			return nil, wireResponse{}, fmt.Errorf("runner: %s: %s did not answer as a worker (does main call runner.MaybeWorker first?): %s", what, exe, c.exitMessage(stderr))
		}
		return fail("start", st)
	}
	go func() {
		c.send(wireRequest{Op: opSetup, Setup: &setup})
		if after != nil {
			after(c)
		}
	}()
	r, st = c.await(ctx, time.Until(deadline))
	if st != gotAnswer {
		return fail("setup", st)
	}
	if r.Op != opSetup || r.Err != "" {
		c.retire()
		msg := r.Err
		if r.Op != opSetup {
			msg = fmt.Sprintf("answered %v to the setup", r.Op)
		}
		return nil, wireResponse{}, fmt.Errorf("runner: %s: %s", what, msg)
	}
	return c, r, nil
}

// sameVariant reports whether a and b are the same request.
func sameVariant(a, b Variant) bool {
	eq := func(x, y []int) bool { return slices.Equal(x, y) && (x == nil) == (y == nil) } // nil Local: the driver chooses
	return a.Source == b.Source && a.KernelName == b.KernelName && eq(a.Global, b.Global) && eq(a.Local, b.Local)
}

// child is one worker process, seen from the parent.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	wmu    sync.Mutex // serializes writes to stdin
	enc    *gob.Encoder
	answer chan wireResponse
	stop   chan struct{} // closed when the child is being killed or retired
	once   sync.Once
	done   chan struct{} // closed when the child has exited and been waited for
	err    error         // cmd.Wait's error, set before done is closed
	built  sync.Map      // sourceKey -> true: prepared variants whose build ended
}

// startChild starts the executable exe as a worker, with env (nil: this
// process's); onBuilt, if not nil, is called after each opBuilt.
func startChild(exe string, env []string, stderr *tailWriter, onBuilt func()) (*child, error) {
	ar, aw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("runner: worker: %v", err)
	}
	cmd := exec.Command(exe, workerArg)
	cmd.Env = env
	cmd.ExtraFiles = []*os.File{aw} // workerFD
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.WaitDelay = time.Second // a grandchild holding the output pipes open
	stdin, err := cmd.StdinPipe()
	if err != nil {
		ar.Close()
		aw.Close()
		return nil, fmt.Errorf("runner: worker: %v", err)
	}
	if err := cmd.Start(); err != nil {
		ar.Close()
		aw.Close()
		return nil, fmt.Errorf("runner: cannot start a worker: %v", err)
	}
	aw.Close()
	c := &child{
		cmd:    cmd,
		stdin:  stdin,
		enc:    gob.NewEncoder(stdin),
		answer: make(chan wireResponse),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	go func() {
		dec := gob.NewDecoder(ar)
		for {
			var r wireResponse
			if dec.Decode(&r) != nil {
				break
			}
			if r.Op == opBuilt {
				c.built.Store(r.Msg, true)
				if onBuilt != nil {
					onBuilt()
				}
				continue
			}
			select {
			case c.answer <- r:
			case <-c.stop:
			}
		}
		ar.Close()
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// send writes a request to the child. The child reads its input all the
// time, so this blocks only while a large request is written. An error
// means the child is gone, which await reports.
func (c *child) send(r wireRequest) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.enc.Encode(r)
}

type awaitStatus int

const (
	gotAnswer awaitStatus = iota
	timedOut
	cancelled
	exited
)

// await waits for the child's next answer, at most limit, and no longer
// than ctx allows.
func (c *child) await(ctx context.Context, limit time.Duration) (wireResponse, awaitStatus) {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case r := <-c.answer:
		return r, gotAnswer
	case <-c.done:
		return wireResponse{}, exited
	case <-t.C:
		return wireResponse{}, timedOut
	case <-ctx.Done():
		return wireResponse{}, cancelled
	}
}

// awaitRuns waits for the result of a variant's runs, at most limit, and
// no longer than ctx allows; with slow positive and less than limit, the
// first launch must end within slow, or awaitRuns returns stopped (then
// st is timedOut). The child says when the first launch has ended
// (opLaunched, which awaitRuns does not return).
func (c *child) awaitRuns(ctx context.Context, limit, slow time.Duration) (r wireResponse, st awaitStatus, stopped bool) {
	start := time.Now()
	first := slow > 0 && slow < limit
	wait := limit
	if first {
		wait = slow
	}
	for {
		r, st = c.await(ctx, wait-time.Since(start))
		if st == timedOut && first {
			return r, st, true
		}
		if st != gotAnswer || r.Op != opLaunched {
			return r, st, false
		}
		first, wait = false, limit
	}
}

// kill ends the child at once (a hung kernel keeps a core busy) and waits
// for it.
func (c *child) kill() {
	c.once.Do(func() { close(c.stop) })
	c.cmd.Process.Kill()
	<-c.done
}

// retire closes the child's input, which makes it exit, and kills it if
// it has not exited within a few seconds.
func (c *child) retire() {
	c.once.Do(func() { close(c.stop) })
	c.wmu.Lock()
	c.stdin.Close()
	c.wmu.Unlock()
	select {
	case <-c.done:
	case <-time.After(3 * time.Second):
		c.kill()
	}
}

// exitMessage says how the child ended, with the end of its output.
func (c *child) exitMessage(out *tailWriter) string {
	msg := "still running"
	select {
	case <-c.done:
		msg = "exit status 0"
		if c.err != nil {
			msg = c.err.Error()
		}
	case <-time.After(2 * time.Second):
	}
	if t := out.tail(); t != "" {
		msg += "; its last output:\n" + t
	}
	return msg
}

// tailWriter keeps the last tailSize bytes written to it and copies
// everything to w if w is not nil.
type tailWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

const tailSize = 4 << 10

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.w != nil {
		t.w.Write(p)
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

// tail returns the last lines kept, and forgets them.
func (t *tailWriter) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	t.buf = t.buf[:0]
	return s
}
