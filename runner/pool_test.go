package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/runner"
)

// slowCompile is a correct axpy variant whose machine code takes PoCL a
// second or more to make at its first launch (a chain of 250 dependent
// statements, run by the first 64 work-items only), while its runs take
// milliseconds. Its grid, 512 x 512 in work-groups of 64 x 1, is one that
// a single work-group's launch stands for in PoCL's kernel cache. tag
// makes distinct sources.
func slowCompile(tag string) runner.Variant {
	var b strings.Builder
	fmt.Fprintf(&b, "/* %s */\n__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void axpyc(__global float *y, __global const float *x, float a, int n) {\n", tag)
	b.WriteString("\tint i = get_global_id(1) * 512 + get_global_id(0);\n\tfloat t = 0.0f;\n\tif (i < 64) {\n")
	for k := range 250 {
		fmt.Fprintf(&b, "\t\tt = t * 0.%d5f + x[(i + %d) %% n];\n", k%7, 13*k)
	}
	b.WriteString("\t}\n\ty[i] = a * x[i] + y[i] + (t == -12345.0f ? 1.0f : 0.0f);\n}\n")
	return runner.Variant{KernelName: "axpyc", Global: []int{512, 512}, Local: []int{64, 1}, Source: b.String()}
}

// startPool starts a worker for the axpy problem with set (its reference
// axpyRef), skipping the test under -short or without a device.
func startPool(t *testing.T, set runner.WorkerSettings) *runner.Worker {
	t.Helper()
	if testing.Short() {
		t.Skip("starts worker and builder processes")
	}
	p := axpyProblem()
	newMeasurer(t, p, runner.MeasureSettings{}).Close() // skips without a device
	w, err := runner.StartWorker(context.Background(), p, &axpyRef, set)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// waitBuilt waits until the builders have built vs (Ready: the measuring
// worker would build a variant no builder started rather than wait).
func waitBuilt(t *testing.T, w *runner.Worker, vs ...runner.Variant) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		ready := true
		for _, v := range vs {
			ready = ready && w.Ready(v)
		}
		if ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the builders did not build the variants prepared within a minute")
		}
	}
}

// TestPoolHungBuild: a builder whose build hangs holds up nothing but its
// own variant: the variant after it is measured at once (the measuring
// worker builds it, no builder having started it), and past half the
// build's limit another builder starts beside the hung one; the hung
// variant fails with Compile when its limit passes, and its builder is
// killed.
func TestPoolHungBuild(t *testing.T) {
	set := runner.WorkerSettings{Builders: 1, CompileTimeout: 6 * time.Second}
	runner.InjectFaults(&set, runner.Fault{At: runner.AtBuild, Match: hangBuildMark, Action: runner.Hang, Builder: true})
	w := startPool(t, set)
	ctx := context.Background()
	first, hung, next := axpyCoarse("p1"), axpyCoarse(hangBuildMark), axpyCoarse("p2")
	w.Prepare(first)
	waitBuilt(t, w, first)
	start := time.Now()
	w.Prepare(hung)
	w.Prepare(next)
	expect(t, "before the hung build", w.Measure(ctx, first), autotune.OK)
	expect(t, "after the hung build", w.Measure(ctx, next), autotune.OK)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the variant after a hung build was measured after %v, want it well before the build's limit (6 s)", d)
	}
	expect(t, "hung build", w.Measure(ctx, hung), autotune.Timeout, "did not finish within 6s", "builder killed")
	if st := w.Pool(); st.Extra < 1 || st.Failed != 1 {
		t.Errorf("Pool() = %+v: want a builder started beside the hung one, one failed build", st)
	}
	t.Logf("%v in all", time.Since(start))
}

// TestPoolBuilderCrash: a builder that dies while it builds is replaced and
// the build tried once more; a variant that kills its builder twice fails
// with Compile and the reason.
func TestPoolBuilderCrash(t *testing.T) {
	set := runner.WorkerSettings{Builders: 1}
	runner.InjectFaults(&set,
		runner.Fault{At: runner.AtBuild, Match: crashMark, Action: runner.ExitProcess, Builder: true},
		runner.Fault{At: runner.AtBuild, Match: "crash-once", Action: runner.ExitProcess, Builder: true, First: true})
	w := startPool(t, set)
	ctx := context.Background()
	vs := []runner.Variant{axpyCoarse("crash-once"), axpyCoarse(crashMark), axpyCoarse("c3")}
	for _, v := range vs {
		w.Prepare(v)
	}
	waitBuilt(t, w, vs...)
	expect(t, "killed its first builder", w.Measure(ctx, vs[0]), autotune.OK)
	expect(t, "kills every builder", w.Measure(ctx, vs[1]), autotune.Compile, "crashed, twice", "exit status 3")
	expect(t, "after the crashes", w.Measure(ctx, vs[2]), autotune.OK)
	if st := w.Pool(); st.Restarts != 3 {
		t.Errorf("Pool() = %+v: want 3 builders started again", st)
	}
}

// notifyWriter calls f once with what is written to it, the first time it
// holds mark.
type notifyWriter struct {
	mu   sync.Mutex
	buf  strings.Builder
	mark string
	f    func()
}

func (n *notifyWriter) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.buf.Write(p)
	if n.f != nil && strings.Contains(n.buf.String(), n.mark) {
		n.f()
		n.f = nil
	}
	return len(p), nil
}

// TestWorkerKilledFromOutside: a measuring worker killed from outside
// (SIGKILL, as the OOM killer sends) while it runs a variant costs the
// variant nothing: it is measured again in a new worker.
func TestWorkerKilledFromOutside(t *testing.T) {
	killed := make(chan struct{})
	var w *runner.Worker
	stderr := &notifyWriter{mark: "injected fault at run", f: func() {
		go func() {
			syscall.Kill(runner.WorkerPID(w), syscall.SIGKILL)
			close(killed)
		}()
	}}
	set := runner.WorkerSettings{Builders: -1, Stderr: stderr}
	runner.InjectFaults(&set, runner.Fault{At: runner.AtRun, Match: "kill-me", Action: runner.Hang, First: true})
	w = startPool(t, set)
	expect(t, "killed while it ran", w.Measure(context.Background(), axpyCoarse("kill-me")), autotune.OK)
	select {
	case <-killed:
	default:
		t.Fatal("the worker was never killed")
	}
	if n := w.Restarts(); n != 1 {
		t.Errorf("Restarts() = %d, want 1", n)
	}
}

// TestReferenceTime: without time for a timed launch, the reference's
// warm-up gives the baseline.
func TestReferenceTime(t *testing.T) {
	w := startPool(t, runner.WorkerSettings{Builders: -1, ReferenceTime: time.Nanosecond})
	if b, err := w.Baseline(); err != nil || !(b > 0) || w.BaselineRuns() != 0 {
		t.Errorf("Baseline() = %v, %v with %d timed launches; want the warm-up's time", b, err, w.BaselineRuns())
	}
}

// TestPoolCache: the builders' work makes the measuring worker's first
// launch cheap, and a second worker on the same cache compiles nothing the
// first compiled.
//
// On a device that compiles at the first launch (PoCL), a builder makes
// that launch, so that the compilation is not counted in the variant's
// runs: with a limit of 300 ms on its runs, slowCompile, whose first launch
// compiles for a second or more, is measured, where the measuring worker,
// compiling it at its first launch, would stop it as a Timeout. PoCL's
// kernel cache is the test's own (Cache.PoclDir), empty at first, so the
// compilation is made; the processes share it. In the second round, the
// binaries (on PoCL, the programs and code in its kernel cache, which the
// builder finds) and the compiler's rejection come from the cache.
func TestPoolCache(t *testing.T) {
	dir := t.TempDir()
	cache, err := runner.OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var busy [2]time.Duration
	for round := range 2 {
		w := startPool(t, runner.WorkerSettings{Builders: 1, Cache: cache, Timeout: 300 * time.Millisecond, TimeoutFactor: -1})
		slow := slowCompile("first launch")
		w.Prepare(slow)
		w.Prepare(axpyBroken)
		waitBuilt(t, w, slow, axpyBroken)
		res := w.Measure(ctx, slow)
		expect(t, "a variant slow to compile", res, autotune.OK)
		expect(t, "broken", w.Measure(ctx, axpyBroken), autotune.Compile, "undeclared_variable")
		st := w.Pool()
		w.Close()
		busy[round] = st.Busy
		t.Logf("round %d: runs %v (kernels %v); %+v", round, res.Cost.Run, res.Cost.Kernels, st)
		hits := 0
		if round == 1 {
			hits = 1 + binaries(cache)
		}
		if st.Builds+st.CacheHits != 2 || st.CacheHits != hits {
			t.Errorf("round %d: Pool() = %+v, want 2 variants, %d from the cache", round, st, hits)
		}
		if round == 0 && st.Busy < res.Cost.Run {
			t.Errorf("the builder was busy %v, less than the runs (%v): did it compile the first launch?", st.Busy, res.Cost.Run)
		}
	}
	if busy[1] > busy[0]/2 {
		t.Errorf("the builders were busy %v in the first round, %v in the second: the second compiled again", busy[0], busy[1])
	}
	s, err := cache.Stats()
	if err != nil || s.Rejected != 1 || s.Binaries+s.Pocl == 0 {
		t.Errorf("Stats() = %+v, %v; want a rejection, and binaries or PoCL's cache", s, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pocl")); err != nil {
		t.Error(err)
	}
}

// binaries is 1 when the cache holds binaries (not on PoCL, whose kernel
// cache holds the builders' work instead), else 0.
func binaries(c *runner.Cache) int {
	if s, _ := c.Stats(); s.Binaries > 0 {
		return 1
	}
	return 0
}

// TestPoolBinaryHeld: a variant's binary, sent to the measuring worker
// with its prepare request, is not sent again with its measure request;
// a worker that no longer has the program (here it ignored the prepare
// request) asks for the binary, and the variant is measured all the same.
func TestPoolBinaryHeld(t *testing.T) {
	set := runner.WorkerSettings{Builders: 1}
	runner.HandBackBinaries(&set)
	runner.InjectFaults(&set, runner.Fault{At: runner.AtPrepare, Match: "forgotten", Action: runner.Forget})
	w := startPool(t, set)
	ctx := context.Background()
	vs := []runner.Variant{axpyCoarse("h1"), axpyCoarse("forgotten"), axpyCoarse("h2")}
	for _, v := range vs {
		w.Prepare(v)
	}
	// The one builder builds them in order; the worker process reports
	// no program of the forgotten one.
	waitBuilt(t, w, vs[0], vs[2])
	for _, v := range vs {
		expect(t, v.Source[:12], w.Measure(ctx, v), autotune.OK)
	}
	if held, resent := runner.Binaries(w); held != 3 || resent != 1 {
		t.Errorf("%d measure requests without the binary, %d sent again with it; want 3 and 1", held, resent)
	}
}

// TestPoolSpeculate: a guess (Speculate) is built by a builder with
// nothing else to build, and the variant, prepared and measured later, is
// not built again (PoCL: its kernel cache has the guess's machine code;
// elsewhere the cache of built programs has its binary) and is measured
// as any other; a worker without a cache guesses nothing.
func TestPoolSpeculate(t *testing.T) {
	cache, err := runner.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := startPool(t, runner.WorkerSettings{Builders: 2, Cache: cache})
	guess := slowCompile("guess")
	w.Speculate([]runner.Variant{guess})
	for deadline := time.Now().Add(time.Minute); w.Pool().Builds < 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the guess was not built within a minute: %+v", w.Pool())
		}
	}
	if st := w.Pool(); st.Guesses != 1 {
		t.Errorf("Pool() = %+v, want 1 guess", st)
	}
	guessed := w.Pool()
	w.Prepare(guess)
	waitBuilt(t, w, guess)
	expect(t, "a variant guessed", w.Measure(context.Background(), guess), autotune.OK)
	st := w.Pool()
	t.Logf("after the guess: %+v; after the variant: %+v", guessed, st)
	if again := st.Busy - guessed.Busy; again > guessed.Busy/2 {
		t.Errorf("the variant's build took %v after its guess took %v: it was built again", again, guessed.Busy)
	}

	plain := startPool(t, runner.WorkerSettings{Builders: 2})
	plain.Speculate([]runner.Variant{slowCompile("not guessed")})
	if st := plain.Pool(); st.Guesses != 0 {
		t.Errorf("without a cache: Pool() = %+v, want no guess", st)
	}
}
