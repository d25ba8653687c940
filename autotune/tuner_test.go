package autotune

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTime is a deterministic cost over divSpace points: fastest near
// a=4, b=2, d=1.
func fakeTime(p Point) float64 {
	a, b, c, d := float64(p.Get("a")), float64(p.Get("b")), float64(p.Get("c")), float64(p.Get("d"))
	return 1 + (a-4)*(a-4) + (b-2)*(b-2) + c/2 + (d-1)/4
}

// fakeEval fails some points of divSpace: a=5 does not compile, b=3 is
// illegal, and the point that would be fastest computes wrong results.
func fakeEval(_ context.Context, p Point) Result {
	switch {
	case p.Get("a") == 5:
		return Result{Outcome: Compile, Err: errors.New("no")}
	case p.Get("b") == 3:
		return Result{Outcome: Illegal}
	case p.Key() == "4,2,0,1":
		return Result{Outcome: Wrong, Ms: 0.001}
	}
	return Result{Outcome: OK, Ms: fakeTime(p)}
}

func TestTuneExhaustive(t *testing.T) {
	s := divSpace(t)
	var mu sync.Mutex
	calls := map[string]int{}
	ev := EvaluatorFunc(func(ctx context.Context, p Point) Result {
		mu.Lock()
		calls[p.Key()]++
		mu.Unlock()
		return fakeEval(ctx, p)
	})
	var progress []Progress
	rep, err := Tune(context.Background(), Settings{Seed: 9, Progress: func(p Progress) { progress = append(progress, p) }}, s, NewExhaustive(s), ev)
	if err != nil {
		t.Fatal(err)
	}
	n := int(s.Size().Int64())
	if rep.Evaluations != n || len(rep.History) != n || len(calls) != n || len(progress) != n {
		t.Fatalf("evaluations %d, history %d, distinct points %d, progress calls %d; want %d each", rep.Evaluations, len(rep.History), len(calls), len(progress), n)
	}
	for k, c := range calls {
		if c != 1 {
			t.Errorf("%s evaluated %d times", k, c)
		}
	}
	// Expected failures and best, by listing.
	var want Failures
	bestMs, best := math.Inf(1), ""
	for i := range n {
		p := s.At(big.NewInt(int64(i)))
		r := fakeEval(context.Background(), p)
		if f := want.field(r.Outcome); f != nil {
			*f++
		}
		if r.Outcome == OK && r.Ms < bestMs {
			bestMs, best = r.Ms, p.Key()
		}
	}
	if rep.Failures != want || want.Wrong != 1 || want.Compile == 0 || want.Illegal == 0 {
		t.Errorf("failures %+v, want %+v", rep.Failures, want)
	}
	if !rep.Found || rep.Best.Key() != best || rep.BestMs != bestMs {
		t.Errorf("best %v (%v ms), want %s (%v ms)", rep.Best, rep.BestMs, best, bestMs)
	}
	if rep.Stopped != StopExhausted || rep.Strategy != "exhaustive" || rep.Seed != 9 || rep.SpaceSize.Int64() != int64(n) {
		t.Errorf("report header: %v %s %d %v", rep.Stopped, rep.Strategy, rep.Seed, rep.SpaceSize)
	}
	last := progress[len(progress)-1]
	if last.Evaluations != n || last.Failures != want.Total() || last.Best.Key() != best || !last.Last.Point.Equal(rep.History[n-1].Point) {
		t.Errorf("last progress %+v", last)
	}
	for i := 1; i < n; i++ {
		if rep.History[i].Elapsed < rep.History[i-1].Elapsed {
			t.Errorf("history elapsed times go back at %d", i)
		}
	}
	if rep.EvalsPerMinute <= 0 {
		t.Errorf("evals per minute %v", rep.EvalsPerMinute)
	}
}

func TestTuneNeverPicksFailure(t *testing.T) {
	s := divSpace(t)
	// Every evaluation fails with a tiny time.
	ev := EvaluatorFunc(func(context.Context, Point) Result { return Result{Outcome: Timeout, Ms: 1e-9} })
	rep, err := Tune(context.Background(), Settings{}, s, NewRandom(s, NewRand(1)), ev)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found || !rep.Best.IsZero() || rep.BestMs != 0 || rep.Failures.Timeout != rep.Evaluations {
		t.Errorf("found %v best %v (%v ms), failures %+v", rep.Found, rep.Best, rep.BestMs, rep.Failures)
	}
	j := rep.JSON("k", "d", 5)
	if j.BestMs != 0 || j.Speedup != 0 || len(j.BestParams) != 0 {
		t.Errorf("JSON of a search without success: %+v", j)
	}
}

func TestTuneMaxEvals(t *testing.T) {
	s := chainSpace(t, 12)
	rep, err := Tune(context.Background(), Settings{MaxEvals: 25}, s, NewRandom(s, NewRand(1)), EvaluatorFunc(func(_ context.Context, p Point) Result {
		return Result{Outcome: OK, Ms: float64(p.Value(0))}
	}))
	if err != nil || rep.Evaluations != 25 || rep.Stopped != StopMaxEvals {
		t.Errorf("evaluations %d, stopped %v, err %v", rep.Evaluations, rep.Stopped, err)
	}
}

// Points rejected as Illegal (nothing built or run) do not count against
// MaxEvals nor the stop conditions' evaluations, as a user's -e counts
// kernels measured, up to RejectedPerEval of them per evaluation of the
// budget: a search proposing nothing else still ends.
func TestTuneRejectedNotCounted(t *testing.T) {
	s := chainSpace(t, 12)
	thirdIllegal := EvaluatorFunc(func(_ context.Context, p Point) Result {
		if p.Value(0)%3 == 0 {
			return Result{Outcome: Illegal}
		}
		return Result{Outcome: OK, Ms: float64(p.Value(0))}
	})
	rep, err := Tune(context.Background(), Settings{MaxEvals: 25}, s, NewRandom(s, NewRand(1)), thirdIllegal)
	if err != nil || rep.Measured != 25 || rep.Rejected == 0 || rep.Evaluations != 25+rep.Rejected || rep.Failures.Illegal != rep.Rejected || rep.Stopped != StopMaxEvals {
		t.Errorf("MaxEvals 25: %d evaluations, %d measured, %d rejected (%d illegal), stopped %v, err %v", rep.Evaluations, rep.Measured, rep.Rejected, rep.Failures.Illegal, rep.Stopped, err)
	}
	if j := rep.JSON("", "", 0); j.Rejected != rep.Rejected || j.Measured != 25 {
		t.Errorf("JSON: %d measured, %d rejected; want 25 and %d", j.Measured, j.Rejected, rep.Rejected)
	}
	// The history marks what counts: every point measured, none of the
	// rejected ones (fewer than RejectedPerEval×25).
	for i, e := range rep.History {
		if want := e.Result.Outcome != Illegal; e.Counted != want {
			t.Errorf("MaxEvals 25: evaluation %d (%v) counted %v, want %v", i, e.Result.Outcome, e.Counted, want)
		}
	}
	stop, err := ParseStop("evals>=10")
	if err != nil {
		t.Fatal(err)
	}
	rep, err = Tune(context.Background(), Settings{Stop: stop}, s, NewRandom(s, NewRand(2)), thirdIllegal)
	if err != nil || rep.Measured != 10 || rep.Rejected == 0 || rep.Stopped != StopCondition {
		t.Errorf("evals>=10: %d measured, %d rejected, stopped %v, err %v", rep.Measured, rep.Rejected, rep.Stopped, err)
	}
	rep, err = Tune(context.Background(), Settings{MaxEvals: 2}, s, NewRandom(s, NewRand(3)), EvaluatorFunc(func(context.Context, Point) Result {
		return Result{Outcome: Illegal}
	}))
	if want := 2 * (RejectedPerEval + 1); err != nil || rep.Measured != 0 || rep.Rejected != want || rep.Stopped != StopMaxEvals {
		t.Errorf("every point illegal, MaxEvals 2: %d measured, %d rejected, stopped %v, err %v; want 0, %d, max-evals", rep.Measured, rep.Rejected, rep.Stopped, err, want)
	}
	for i, e := range rep.History {
		if want := i >= 2*RejectedPerEval; e.Counted != want {
			t.Errorf("every point illegal, MaxEvals 2: evaluation %d counted %v, want %v", i, e.Counted, want)
		}
	}
	stop, err = ParseStop("evals>=3 or time>=1h")
	if err != nil {
		t.Fatal(err)
	}
	rep, err = Tune(context.Background(), Settings{Stop: stop}, s, NewRandom(s, NewRand(3)), EvaluatorFunc(func(context.Context, Point) Result {
		return Result{Outcome: Illegal}
	}))
	if want := 3 * (RejectedPerEval + 1); err != nil || rep.Rejected != want || rep.Stopped != StopCondition {
		t.Errorf("every point illegal, evals>=3: %d rejected, stopped %v, err %v; want %d, stop-condition", rep.Rejected, rep.Stopped, err, want)
	}
}

func TestTuneReproducible(t *testing.T) {
	s := chainSpace(t, 6)
	run := func(seed uint64) string {
		rep, err := Tune(context.Background(), Settings{MaxEvals: 200, Seed: seed}, s, NewRandom(s, NewRand(seed)), EvaluatorFunc(func(_ context.Context, p Point) Result {
			return Result{Outcome: OK, Ms: float64(p.Value(0)*p.Value(3) + p.Value(5))}
		}))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, e := range rep.History {
			b.WriteString(e.Point.Key() + ";")
		}
		return b.String()
	}
	if a, b := run(3), run(3); a != b {
		t.Errorf("same seed, different histories")
	}
	if a, b := run(3), run(4); a == b {
		t.Errorf("different seeds, same history")
	}
}

// sleeper takes d per evaluation, or until ctx is done (then Timeout).
func sleeper(d time.Duration, honourCtx bool) Evaluator {
	return EvaluatorFunc(func(ctx context.Context, p Point) Result {
		if !honourCtx {
			time.Sleep(d)
			return Result{Outcome: OK, Ms: float64(p.Value(0))}
		}
		select {
		case <-time.After(d):
			return Result{Outcome: OK, Ms: float64(p.Value(0))}
		case <-ctx.Done():
			return Result{Outcome: Timeout}
		}
	})
}

func TestTuneBudget(t *testing.T) {
	const budget = 300 * time.Millisecond
	s := chainSpace(t, 12)
	for _, tc := range []struct {
		name   string
		ev     Evaluator
		margin time.Duration
	}{
		// Evaluations longer than what is left are cut at the deadline.
		{"honours ctx", sleeper(70*time.Millisecond, true), 50 * time.Millisecond},
		// An evaluator that ignores ctx overruns by at most one evaluation.
		{"ignores ctx", sleeper(20*time.Millisecond, false), 20*time.Millisecond + 50*time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			rep, err := Tune(context.Background(), Settings{Budget: budget}, s, NewRandom(s, NewRand(1)), tc.ev)
			elapsed := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if elapsed > budget+tc.margin || rep.Elapsed > budget+tc.margin {
				t.Errorf("search took %v (report %v), budget %v + %v", elapsed, rep.Elapsed, budget, tc.margin)
			}
			if rep.Stopped != StopBudget || rep.Evaluations == 0 || rep.Failures.Total() != 0 {
				t.Errorf("stopped %v after %d evaluations, failures %+v", rep.Stopped, rep.Evaluations, rep.Failures)
			}
			t.Logf("%d evaluations, %d cut, %v", rep.Evaluations, rep.Cut, elapsed)
		})
	}
}

func TestTuneCancel(t *testing.T) {
	s := chainSpace(t, 12)
	// Cancelled between evaluations (Ctrl-C during the search).
	ctx, cancel := context.WithCancel(context.Background())
	rep, err := Tune(ctx, Settings{Progress: func(p Progress) {
		if p.Evaluations == 5 {
			cancel()
		}
	}}, s, NewRandom(s, NewRand(1)), sleeper(0, true))
	if err != nil || rep.Evaluations != 5 || rep.Stopped != StopCancelled || !rep.Found {
		t.Errorf("evaluations %d, stopped %v, found %v, err %v", rep.Evaluations, rep.Stopped, rep.Found, err)
	}

	// Cancelled during an evaluation: that one is cut, the others kept.
	ctx, cancel = context.WithCancel(context.Background())
	n := 0
	rep, err = Tune(ctx, Settings{}, s, NewRandom(s, NewRand(1)), EvaluatorFunc(func(ctx context.Context, p Point) Result {
		n++
		if n == 3 {
			cancel()
			<-ctx.Done()
			return Result{Outcome: Launch, Err: ctx.Err(), Cost: Cost{Build: time.Hour}}
		}
		return Result{Outcome: OK, Ms: 1, Cost: Cost{Generate: time.Minute}}
	}))
	if err != nil || rep.Evaluations != 2 || rep.Cut != 1 || rep.Stopped != StopCancelled || rep.Failures.Total() != 0 {
		t.Errorf("evaluations %d, cut %d, stopped %v, failures %+v, err %v", rep.Evaluations, rep.Cut, rep.Stopped, rep.Failures, err)
	}
	// The time the cut evaluation waited is spent, not other.
	if want := (Cost{Generate: 2 * time.Minute, Build: time.Hour}); rep.Spent != want {
		t.Errorf("spent %+v, want %+v (the cut evaluation's included)", rep.Spent, want)
	}
	if j := rep.JSON("k", "d", 0); j.Cut != 1 || j.Time.BuildWaitS != 3600 || j.Time.GenWaitS != 120 {
		t.Errorf("JSON: cut %d, time %+v", j.Cut, j.Time)
	}

	// A measurement that completes as the search is cancelled is kept.
	ctx, cancel = context.WithCancel(context.Background())
	rep, _ = Tune(ctx, Settings{}, s, NewRandom(s, NewRand(1)), EvaluatorFunc(func(ctx context.Context, p Point) Result {
		cancel()
		return Result{Outcome: OK, Ms: 3}
	}))
	if rep.Evaluations != 1 || rep.Cut != 0 || !rep.Found || rep.BestMs != 3 {
		t.Errorf("completed measurement lost: %+v", rep)
	}
}

func TestTuneEvalTimeout(t *testing.T) {
	s := chainSpace(t, 12)
	rep, err := Tune(context.Background(), Settings{EvalTimeout: 5 * time.Millisecond, MaxEvals: 3}, s, NewRandom(s, NewRand(1)), sleeper(time.Hour, true))
	if err != nil || rep.Evaluations != 3 || rep.Failures.Timeout != 3 || rep.Cut != 0 {
		t.Errorf("evaluations %d, failures %+v, cut %d, err %v", rep.Evaluations, rep.Failures, rep.Cut, err)
	}
}

func TestTunePanicAndUnknownOutcome(t *testing.T) {
	s := chainSpace(t, 12)
	n := 0
	rep, err := Tune(context.Background(), Settings{}, s, NewRandom(s, NewRand(1)), EvaluatorFunc(func(ctx context.Context, p Point) Result {
		n++
		switch n {
		case 1:
			return Result{Outcome: OK, Ms: 2}
		case 2:
			return Result{Outcome: Outcome(99)}
		}
		panic("boom")
	}))
	if err == nil || !strings.Contains(err.Error(), "boom") || !strings.HasPrefix(err.Error(), "autotune: ") {
		t.Errorf("err = %v", err)
	}
	if rep == nil || rep.Evaluations != 2 || rep.Stopped != StopError || !rep.Found || rep.Failures.Launch != 1 {
		t.Errorf("report after panic: %+v", rep)
	}
}

func TestReportJSON(t *testing.T) {
	s := divSpace(t)
	rep, err := Tune(context.Background(), Settings{Seed: 42}, s, NewExhaustive(s), EvaluatorFunc(fakeEval))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep.JSON("mxm", "pocl cpu", 20))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"kernel", "device", "strategy", "seed", "space_size", "evaluations", "failures", "baseline_ms", "best_ms", "speedup", "best_params", "evals_per_minute", "history"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	f := m["failures"].(map[string]any)
	for _, k := range []string{"illegal", "compile", "launch", "wrong", "timeout"} {
		if _, ok := f[k]; !ok {
			t.Errorf("failures lack %q", k)
		}
	}
	var back JSONReport
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Kernel != "mxm" || back.Seed != 42 || back.SpaceSize.Cmp(s.Size()) != 0 || back.Evaluations != rep.Evaluations ||
		back.Failures != rep.Failures || back.BestMs != rep.BestMs || back.Speedup != 20/rep.BestMs ||
		back.BestParams["a"] != rep.Best.Get("a") || len(back.History) != len(rep.History) {
		t.Errorf("round trip: %+v", back)
	}
	for i, e := range back.History {
		if e.Outcome != rep.History[i].Result.Outcome || (e.Outcome != OK && e.Ms != 0) || len(e.Params) != 4 {
			t.Errorf("history %d: %+v", i, e)
		}
	}
	if !strings.Contains(string(b), `"outcome":"wrong"`) {
		t.Errorf("outcomes not written by name: %s", b)
	}
	// A failure's reason is kept in the history (a compiler's assertion
	// once stayed on the worker's stderr only); a success has none.
	messages := 0
	for i, e := range back.History {
		r := rep.History[i].Result
		switch {
		case r.Outcome == OK && e.Message != "":
			t.Errorf("history %d: a success with message %q", i, e.Message)
		case r.Err != nil && r.Outcome != OK && e.Message != r.Err.Error():
			t.Errorf("history %d: message %q, want %q", i, e.Message, r.Err)
		}
		if e.Message != "" {
			messages++
		}
	}
	if messages == 0 || !strings.Contains(string(b), `"message":"no"`) {
		t.Errorf("no failure's message in the JSON: %s", b)
	}
}

// TestReportTimeSplit: the search's time is split into waiting for
// builds, loading programs, running (kernels of it), checking and the
// rest, in the JSON (the fields before load_wait_s kept) and per
// evaluation.
func TestReportTimeSplit(t *testing.T) {
	s := divSpace(t)
	cost := Cost{Build: 3 * time.Millisecond, Load: 2 * time.Millisecond, Run: 5 * time.Millisecond, Kernels: 4 * time.Millisecond, Check: time.Millisecond}
	eval := func(ctx context.Context, p Point) Result {
		r := fakeEval(ctx, p)
		r.Cost = cost
		return r
	}
	rep, err := Tune(context.Background(), Settings{Seed: 42, MaxEvals: 10}, s, NewExhaustive(s), EvaluatorFunc(eval))
	if err != nil {
		t.Fatal(err)
	}
	n := time.Duration(rep.Evaluations)
	if rep.Spent.Load != n*cost.Load || rep.Spent.Build != n*cost.Build || rep.Spent.Check != n*cost.Check {
		t.Fatalf("Spent = %+v for %d evaluations of %+v", rep.Spent, rep.Evaluations, cost)
	}
	rep.Elapsed = n * 20 * time.Millisecond // 11 ms of each evaluation's 20 accounted for
	if want := n * 9 * time.Millisecond; rep.Other() != want {
		t.Fatalf("Other() = %v, want %v", rep.Other(), want)
	}
	b, err := json.Marshal(rep.JSON("mxm", "pocl cpu", 20))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Time    map[string]float64 `json:"time"`
		History []struct {
			Cost map[string]float64 `json:"cost"`
		} `json:"history"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	sec := func(d time.Duration) float64 { return d.Seconds() }
	for k, want := range map[string]float64{"build_wait_s": sec(n * cost.Build), "load_wait_s": sec(n * cost.Load), "run_s": sec(n * cost.Run),
		"kernel_s": sec(n * cost.Kernels), "check_s": sec(n * cost.Check), "other_s": sec(n * 9 * time.Millisecond)} {
		if got, ok := m.Time[k]; !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("time.%s = %v (present %v), want %v", k, got, ok, want)
		}
	}
	for i, e := range m.History {
		want := map[string]float64{"build_ms": 3, "load_ms": 2, "run_ms": 5, "kernel_ms": 4, "check_ms": 1}
		for k, w := range want {
			if e.Cost[k] != w {
				t.Errorf("history %d: cost %v, want %v", i, e.Cost, want)
				break
			}
		}
	}
}

func TestCommonFailure(t *testing.T) {
	var r Report
	if o, msg, n := r.CommonFailure(); o != OK || msg != "" || n != 0 {
		t.Errorf("empty report: %v %q %d", o, msg, n)
	}
	for _, res := range []Result{
		{Outcome: Illegal, Err: errors.New("bszx=64 exceeds the 32 points along x")},
		{Outcome: Wrong, Err: errors.New("c[0] = 1, want 2")},
		{Outcome: Illegal, Err: errors.New("lmem=1 needs 9000 bytes")},
		{Outcome: Illegal, Err: errors.New("bszx=64 exceeds the 32 points along x")},
		{Outcome: OK, Ms: 1},
	} {
		r.add(Eval{Result: res})
	}
	if o, msg, n := r.CommonFailure(); o != Illegal || msg != "bszx=64 exceeds the 32 points along x" || n != 2 {
		t.Errorf("CommonFailure() = %v, %q, %d", o, msg, n)
	}
}

// preparer records the points Tune prepares and evaluates.
type preparer struct {
	prepared  []string
	evaluated []string
}

func (e *preparer) Prepare(p Point) { e.prepared = append(e.prepared, p.Key()) }

func (e *preparer) Evaluate(ctx context.Context, p Point) Result {
	e.evaluated = append(e.evaluated, p.Key())
	return fakeEval(ctx, p)
}

// TestTuneLookahead checks that Tune lets a Preparer start on the next
// Lookahead points of a random search, each once, and that looking ahead
// does not change what a seeded search proposes.
func TestTuneLookahead(t *testing.T) {
	s := divSpace(t)
	for _, n := range []int{0, 1, 6} {
		ev := &preparer{}
		if _, err := Tune(context.Background(), Settings{MaxEvals: 10, Lookahead: n}, s, NewRandom(s, NewRand(3)), ev); err != nil {
			t.Fatal(err)
		}
		plain := &preparer{}
		if _, err := Tune(context.Background(), Settings{MaxEvals: 10}, s, NewRandom(s, NewRand(3)), EvaluatorFunc(plain.Evaluate)); err != nil {
			t.Fatal(err)
		}
		if strings.Join(ev.evaluated, " ") != strings.Join(plain.evaluated, " ") {
			t.Errorf("lookahead %d changed the proposals:\n%v\n%v", n, ev.evaluated, plain.evaluated)
		}
		want := n
		if n == 0 {
			want = 2
		}
		// While the first point is evaluated, the `want` points after it
		// are prepared.
		if len(ev.prepared) < want || strings.Join(ev.prepared[:want], " ") != strings.Join(plain.evaluated[1:want+1], " ") {
			t.Errorf("lookahead %d: prepared %v, evaluated %v", n, ev.prepared, ev.evaluated)
		}
		seen := map[string]bool{}
		for _, k := range ev.prepared {
			if seen[k] {
				t.Errorf("lookahead %d: %s prepared twice", n, k)
			}
			seen[k] = true
		}
	}
}

// readyEval is a Preparer and ReadyReporter whose points are ready once
// prepared, except the ones in slow, which become ready only after
// `after` evaluations.
type readyEval struct {
	preparer
	slow  map[string]bool
	after int
}

func (e *readyEval) Ready(p Point) bool {
	k := p.Key()
	if !slices.Contains(e.prepared, k) {
		return false
	}
	return !e.slow[k] || len(e.evaluated) >= e.after
}

// TestTuneReadyFirst: with ReadyFirst, a point that is not ready is passed
// over for the ready ones behind it, evaluated once it is ready, and every
// point is still evaluated exactly once.
func TestTuneReadyFirst(t *testing.T) {
	s := divSpace(t)
	n := int(s.Size().Int64())
	plain := &preparer{}
	if _, err := Tune(context.Background(), Settings{MaxEvals: n}, s, NewRandom(s, NewRand(5)), EvaluatorFunc(plain.Evaluate)); err != nil {
		t.Fatal(err)
	}
	first := plain.evaluated[0]
	ev := &readyEval{slow: map[string]bool{first: true}, after: 3}
	rep, err := Tune(context.Background(), Settings{MaxEvals: n, ReadyFirst: true, Lookahead: 4}, s, NewRandom(s, NewRand(5)), ev)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Evaluations != n || rep.Stopped != StopMaxEvals && rep.Stopped != StopExhausted {
		t.Fatalf("%d evaluations of %d, stopped %v", rep.Evaluations, n, rep.Stopped)
	}
	if i := slices.Index(ev.evaluated, first); i != 3 {
		t.Errorf("the slow point was evaluated at %d, want 3 (once ready): %v", i, ev.evaluated[:6])
	}
	if ev.evaluated[0] != plain.evaluated[1] {
		t.Errorf("first evaluated %s, want the next ready one %s", ev.evaluated[0], plain.evaluated[1])
	}
	a, b := slices.Clone(ev.evaluated), slices.Clone(plain.evaluated)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) || len(slices.Compact(a)) != n {
		t.Error("ReadyFirst changed which points were evaluated, or repeated one")
	}
	// Without ReadyFirst the same evaluator waits for the slow point.
	ev2 := &readyEval{slow: map[string]bool{first: true}, after: 3}
	if _, err := Tune(context.Background(), Settings{MaxEvals: 5, Lookahead: 4}, s, NewRandom(s, NewRand(5)), ev2); err != nil {
		t.Fatal(err)
	}
	if ev2.evaluated[0] != first {
		t.Errorf("in proposal order, first evaluated %s, want %s", ev2.evaluated[0], first)
	}
}

// aheadEvaluator measures in no time and says it spent an hour on results
// measured ahead that Tune never asked for.
type aheadEvaluator struct{}

func (aheadEvaluator) Evaluate(context.Context, Point) Result { return Result{Outcome: OK, Ms: 1} }
func (aheadEvaluator) Unreported() Cost                       { return Cost{Run: time.Hour} }

// TestTuneUnreported: the time an evaluator spent on results Tune did not
// ask for is spent, not other.
func TestTuneUnreported(t *testing.T) {
	s := chainSpace(t, 12)
	rep, err := Tune(context.Background(), Settings{MaxEvals: 3}, s, NewRandom(s, NewRand(1)), aheadEvaluator{})
	if err != nil || rep.Evaluations != 3 || rep.Spent != (Cost{Run: time.Hour}) || rep.Other() != 0 {
		t.Errorf("evaluations %d, spent %+v, other %v, err %v", rep.Evaluations, rep.Spent, rep.Other(), err)
	}
}

// guesser proposes points in an order fixed in advance; Upcoming gives the
// next one, and Likely (Foresight) the next n, that one included.
type guesser struct {
	order []Point
	next  int
}

func (g *guesser) Name() string { return "guesser" }

func (g *guesser) Next() (Point, bool) {
	if g.next == len(g.order) {
		return Point{}, false
	}
	g.next++
	return g.order[g.next-1], true
}

func (g *guesser) Tell(Point, Result) {}

func (g *guesser) Upcoming(n int) []Point { return g.order[g.next:min(len(g.order), g.next+min(n, 1))] }

func (g *guesser) Likely(n int) []Point { return g.order[g.next:min(len(g.order), g.next+n)] }

// speculating records what Tune prepares and the guesses it hands over.
type speculating struct {
	EvaluatorFunc
	prepared map[string]bool
	calls    [][]string
}

func (s *speculating) Prepare(p Point) { s.prepared[p.Key()] = true }

func (s *speculating) Speculate(ps []Point) {
	var keys []string
	for _, p := range ps {
		if s.prepared[p.Key()] {
			keys = append(keys, "prepared "+p.Key())
		}
		keys = append(keys, p.Key())
	}
	s.calls = append(s.calls, keys)
}

// TestTuneSpeculates: with a Foresight strategy and a Speculator
// evaluator, Tune hands over the strategy's guesses, as many as the
// lookahead leaves room for beside the upcoming points, none of them
// prepared, and only when they change (to none, too).
func TestTuneSpeculates(t *testing.T) {
	s := divSpace(t)
	g := &guesser{}
	r := NewRandom(s, NewRand(1))
	for range 6 {
		p, _ := r.Next()
		g.order = append(g.order, p)
	}
	ev := &speculating{EvaluatorFunc: func(context.Context, Point) Result { return Result{Outcome: OK, Ms: 1} }, prepared: map[string]bool{}}
	if _, err := Tune(context.Background(), Settings{MaxEvals: 6, Lookahead: 3}, s, g, ev); err != nil {
		t.Fatal(err)
	}
	// Before each evaluation: 1 upcoming point, prepared, and of the 2
	// guesses the one after it; then none (the guesses replaced by none),
	// then none again (no call).
	key := func(i int) string { return g.order[i].Key() }
	want := [][]string{{key(2)}, {key(3)}, {key(4)}, {key(5)}, nil}
	if len(ev.calls) != len(want) {
		t.Fatalf("Speculate called %d times (%v), want %d", len(ev.calls), ev.calls, len(want))
	}
	for i := range want {
		if !slices.Equal(ev.calls[i], want[i]) {
			t.Errorf("call %d: guesses %v, want %v", i, ev.calls[i], want[i])
		}
	}
}
