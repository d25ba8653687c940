package autotune

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"
)

func TestParseStop(t *testing.T) {
	st := func(evals int, elapsed time.Duration, found bool, best float64, stalled int, stalledFor time.Duration) StopState {
		return StopState{Evaluations: evals, Elapsed: elapsed, SpaceSize: big.NewInt(1000), Found: found, BestMs: best, Stalled: stalled, StalledFor: stalledFor}
	}
	for _, c := range []struct {
		in, canon string
		yes, no   StopState
	}{
		{"evals>=500", "evals>=500", st(500, 0, false, 0, 0, 0), st(499, 0, false, 0, 0, 0)},
		{"time>=60s", "time>=60s", st(1, time.Minute, false, 0, 0, 0), st(1, 59*time.Second, false, 0, 0, 0)},
		{"space>=2.5%", "space>=2.5%", st(25, 0, false, 0, 0, 0), st(24, 0, false, 0, 0, 0)},
		{"space>=0.1", "space>=0.1", st(100, 0, false, 0, 0, 0), st(99, 0, false, 0, 0, 0)},
		{"stall>=100", "stall>=100", st(300, 0, true, 1, 100, 0), st(300, 0, true, 1, 99, 0)},
		{"stalltime>=30s", "stalltime>=30s", st(3, 0, true, 1, 1, 30*time.Second), st(3, 0, true, 1, 1, time.Second)},
		{"best<=1.5ms", "best<=1.5ms", st(1, 0, true, 1.5, 0, 0), st(1, 0, true, 1.6, 0, 0)},
		{"best<=1.5ms", "best<=1.5ms", st(1, 0, true, 1.5, 0, 0), st(1, 0, false, 0, 0, 0)},
		{"evals>=500 or stall>=100", "evals>=500 or stall>=100", st(10, 0, true, 1, 100, 0), st(10, 0, true, 1, 99, 0)},
		{"evals>=5 and stall>=2", "evals>=5 and stall>=2", st(5, 0, true, 1, 2, 0), st(5, 0, true, 1, 1, 0)},
		// "and" binds tighter than "or".
		{"evals>=5 or evals>=2 and best<=1ms", "evals>=5 or evals>=2 and best<=1ms", st(5, 0, false, 0, 0, 0), st(3, 0, true, 2, 0, 0)},
		{"(evals>=5 or evals>=2) and best<=1ms", "(evals>=5 or evals>=2) and best<=1ms", st(3, 0, true, 1, 0, 0), st(5, 0, false, 0, 0, 0)},
		{"  EVALS >= 3  OR ( time>=1m )", "evals>=3 or time>=1m", st(3, 0, false, 0, 0, 0), st(2, 0, false, 0, 0, 0)},
	} {
		s, err := ParseStop(c.in)
		if err != nil {
			t.Errorf("ParseStop(%q): %v", c.in, err)
			continue
		}
		if got := s.String(); got != c.canon {
			t.Errorf("ParseStop(%q).String() = %q, want %q", c.in, got, c.canon)
		}
		if !s.Done(c.yes) {
			t.Errorf("%q: not done in %+v", c.in, c.yes)
		}
		if s.Done(c.no) {
			t.Errorf("%q: done in %+v", c.in, c.no)
		}
	}
}

func TestParseStopErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "column 1: want a condition",
		"evals":                 "column 6: want >= after evals",
		"evals>500":             "column 6: want >= after evals",
		"best>=1ms":             "column 5: want <= after best",
		"evals>=x":              `column 8: want a whole number of evaluations (at least 1), found "x"`,
		"evals>=0":              "column 8: want a whole number",
		"time>=60":              `column 7: want a positive duration with its unit`,
		"space>=250%":           "more than the whole space",
		"space>=3":              `"3" is more than the whole space (a percentage needs %: 3%)`,
		"evals>=5 or":           "column 12: want a condition",
		"evals>=5 stall>=3":     `column 10: want "and", "or" or the end, found "stall"`,
		"(evals>=5 or stall>=3": `column 22: want ")"`,
		"evlas>=5":              `column 1: unknown condition "evlas"`,
		"evals>=5 and ) ":       `column 14: want a condition`,
		"evals>=":               "column 8: want a value after evals>=",
	} {
		_, err := ParseStop(in)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "autotune: stop condition") {
			t.Errorf("ParseStop(%q) = %v, want an error containing %q", in, err, want)
		}
	}
}

// endless proposes points forever (repeating them): a strategy that ignores
// any budget. The loop must still end the search.
type endless struct{ s *Space }

func (endless) Name() string { return "endless" }
func (e endless) Next() (Point, bool) {
	return e.s.At(big.NewInt(0)), true
}
func (endless) Tell(Point, Result) {}

func TestTuneStopCondition(t *testing.T) {
	s := divSpace(t)
	size := int(s.Size().Int64())
	slow := EvaluatorFunc(func(_ context.Context, p Point) Result { return Result{Outcome: OK, Ms: 2} })
	for _, c := range []struct {
		stop  string
		evals int
	}{
		{"evals>=7", 7},
		{"space>=50%", (size + 1) / 2},
		// The first success is the best; it never improves after it.
		{"stall>=4", 5},
		{"best<=2ms", 1},
		{"best<=1ms or evals>=3", 3},
		{"best<=1ms and evals>=3", 0}, // never: runs until MaxEvals
	} {
		set := Settings{Stop: MustParseStop(c.stop), MaxEvals: 40}
		rep, err := Tune(context.Background(), set, s, endless{s}, slow)
		if err != nil {
			t.Fatal(err)
		}
		want, why := c.evals, StopCondition
		if want == 0 {
			want, why = 40, StopMaxEvals
		}
		if rep.Evaluations != want || rep.Stopped != why {
			t.Errorf("%s: %d evaluations, stopped by %s; want %d, %s", c.stop, rep.Evaluations, rep.Stopped, want, why)
		}
	}
}

// Time conditions read Settings.Clock when it is set: a simulated clock
// that advances a second per evaluation; stalltime counts from the last
// improvement.
func TestTuneStopClock(t *testing.T) {
	s := divSpace(t)
	var now time.Duration
	n := 0
	ev := EvaluatorFunc(func(_ context.Context, p Point) Result {
		now += time.Second
		n++
		if n <= 3 {
			return Result{Outcome: OK, Ms: float64(10 - n)} // improves 3 times
		}
		return Result{Outcome: Launch}
	})
	clock := func() time.Duration { return now }
	rep, err := Tune(context.Background(), Settings{Stop: MustParseStop("stalltime>=5s"), Clock: clock}, s, NewRandom(s, NewRand(1)), ev)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Evaluations != 8 || rep.Stopped != StopCondition || rep.Stopped.String() != "stop-condition" {
		t.Errorf("stalltime>=5s: %d evaluations, stopped by %s; want 8, stop-condition", rep.Evaluations, rep.Stopped)
	}
	now, n = 0, 0
	rep, _ = Tune(context.Background(), Settings{Stop: MustParseStop("time>=4s")}, s, NewRandom(s, NewRand(1)), ev)
	if rep.Evaluations == 4 {
		t.Errorf("time>=4s read the evaluator's clock without Settings.Clock")
	}
	now, n = 0, 0
	rep, _ = Tune(context.Background(), Settings{Stop: MustParseStop("time>=4s"), Clock: clock}, s, NewRandom(s, NewRand(1)), ev)
	if rep.Evaluations != 4 {
		t.Errorf("time>=4s on the simulated clock: %d evaluations, want 4", rep.Evaluations)
	}
}

// Held names the part of a condition that held; MaxEvals bounds the
// evaluations a condition allows.
func TestHeldAndMaxEvals(t *testing.T) {
	s := StopState{Evaluations: 10, SpaceSize: big.NewInt(1000), Found: true, BestMs: 2, Stalled: 5}
	for _, c := range []struct {
		stop, held string
		max        int // 0: unbounded
	}{
		{"evals>=10", "evals>=10", 10},
		{"evals>=11", "", 11},
		{"evals>=500 or stall>=5", "stall>=5", 500},
		{"evals>=10 or stall>=5", "evals>=10 or stall>=5", 10},
		{"stall>=5 and (evals>=500 or best<=3ms)", "stall>=5 and best<=3ms", 0},
		{"(evals>=5 or time>=1h) and (space>=1% or stall>=9)", "evals>=5 and space>=1%", 10},
		{"(evals>=5 or space>=0.5%) and evals>=7", "(evals>=5 or space>=0.5%) and evals>=7", 7},
		{"space>=2.5% or time>=1m", "", 25},
		{"stall>=5 or best<=1ms", "stall>=5", 0},
	} {
		stop := MustParseStop(c.stop)
		if got := Held(stop, s); got != c.held {
			t.Errorf("Held(%q) = %q, want %q", c.stop, got, c.held)
		}
		n, ok := MaxEvals(stop, s.SpaceSize)
		if ok != (c.max > 0) || n != c.max {
			t.Errorf("MaxEvals(%q) = %d, %v; want %d", c.stop, n, ok, c.max)
		}
	}
	if Held(nil, s) != "" {
		t.Error("Held(nil) is not empty")
	}
}

// planner is a strategy that records the budgets it is told.
type planner struct {
	*Random
	told []int
}

func (p *planner) Plan(n int) { p.told = append(p.told, n) }

// Tune tells a Planner the budget it knows before the first point (-e, or
// the stop condition's bound, the smaller), and with only a time budget
// an estimate after 5, 10, 20, ... evaluations.
func TestTunePlan(t *testing.T) {
	s := divSpace(t)
	ok := EvaluatorFunc(func(context.Context, Point) Result { return Result{Outcome: OK, Ms: 1} })
	for _, c := range []struct {
		set  Settings
		want []int
	}{
		{Settings{MaxEvals: 9}, []int{9}},
		{Settings{MaxEvals: 9, Stop: MustParseStop("evals>=4 or stall>=2")}, []int{4}},
		{Settings{MaxEvals: 3, Stop: MustParseStop("evals>=4")}, []int{3}},
		{Settings{Stop: MustParseStop("stall>=2")}, nil},
		{Settings{}, nil},
	} {
		p := &planner{Random: NewRandom(s, NewRand(1))}
		if _, err := Tune(context.Background(), c.set, s, p, ok); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(p.told) != fmt.Sprint(c.want) {
			t.Errorf("%+v: told %v, want %v", c.set, p.told, c.want)
		}
	}
	// 2 ms per evaluation in 100 ms: about 50 evaluations, fewer with the
	// loop's own time, re-estimated after 5, 10, 20 and 40; an estimate
	// equal to the last one told is not told again, so a machine whose
	// evaluations take the same time throughout tells one.
	slow := EvaluatorFunc(func(context.Context, Point) Result {
		time.Sleep(2 * time.Millisecond)
		return Result{Outcome: OK, Ms: 1}
	})
	wide := MustSpace(Param{Name: "x", Range: vals(seq(1000)...)})
	p := &planner{Random: NewRandom(wide, NewRand(1))}
	rep, err := Tune(context.Background(), Settings{Budget: 100 * time.Millisecond}, wide, p, slow)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.told) < 1 || len(p.told) > 4 || p.told[0] > 50 || p.told[0] < 6 || rep.Evaluations > 50 {
		t.Errorf("-t 0.1 s, evaluations of 2 ms: told %v after %d evaluations, want 1 to 4 estimates of 6 to 50", p.told, rep.Evaluations)
	}
	for i := 1; i < len(p.told); i++ {
		if p.told[i] == p.told[i-1] {
			t.Errorf("told %v: the estimate %d twice in a row", p.told, p.told[i])
		}
	}
	// An Estimator is told the estimates by Estimate, a budget given by
	// Plan.
	e := &estimator{planner: planner{Random: NewRandom(wide, NewRand(1))}}
	if _, err := Tune(context.Background(), Settings{Budget: 100 * time.Millisecond}, wide, e, slow); err != nil {
		t.Fatal(err)
	}
	if len(e.told) != 0 || len(e.estimated) < 1 {
		t.Errorf("-t 0.1 s: an Estimator was told %v by Plan and %v by Estimate, want estimates only", e.told, e.estimated)
	}
	e = &estimator{planner: planner{Random: NewRandom(wide, NewRand(1))}}
	if _, err := Tune(context.Background(), Settings{MaxEvals: 9, Budget: time.Minute}, wide, e, ok); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(e.told) != "[9]" || len(e.estimated) != 0 {
		t.Errorf("-e 9: an Estimator was told %v by Plan and %v by Estimate, want [9] by Plan", e.told, e.estimated)
	}
}

// estimator is a planner that records the estimates it is told apart.
type estimator struct {
	planner
	estimated []int
}

func (e *estimator) Estimate(n int) { e.estimated = append(e.estimated, n) }

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
