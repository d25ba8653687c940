package optimizer

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/records"
	"github.com/hplopt/hplopt/strategies"
	"github.com/hplopt/hplopt/transforms"
)

// planKey is the key of a 1D problem of n points.
func planKey(n int) records.Key {
	return records.Key{Kernel: "k", Hash: "h", Device: records.Device{Name: "dev"}, Global: []int{n},
		Args: []records.Arg{{Name: "a", Type: "float", Shape: []int{n}}}, Space: SpaceVersion}
}

// planEval is an evaluation of bszx=b, lszx=l, szx=sz: OK at ms, or a
// compile failure for ms 0; it took a second.
func planEval(b, l, sz int, ms float64) records.Evaluation {
	t := time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
	e := records.Evaluation{Params: map[string]int{"bszx": b, "lszx": l, "szx": sz}, Outcome: autotune.Compile, Err: "no", Started: t, Ended: t.Add(time.Second)}
	if ms > 0 {
		e.Outcome, e.Err, e.Ms, e.Times = autotune.OK, "", ms, []float64{ms}
	}
	return e
}

// recordRun records a run of settings s on problem k with its single-point
// time baseline and evals, ended with stopped ("": cut), and returns its
// ID.
func recordRun(t *testing.T, db *records.DB, k records.Key, s Settings, stopped string, baseline float64, evals ...records.Evaluation) string {
	t.Helper()
	rec, err := db.Begin(k, records.Run{Strategy: s.Strategy, Seed: s.Seed, Settings: runIdentity(s, nil), BaselineMs: baseline})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evals {
		if _, err := rec.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	if stopped != "" {
		rec.End(stopped)
	}
	return rec.Run().ID
}

// TestPlan checks what a tuning does with the records under each policy:
// go on with a cut run of its settings, take the recorded best (one that
// agrees with the pinned values), carry the nearest shape's best over when
// no budget is given, or start the search from the records.
func TestPlan(t *testing.T) {
	db, err := records.Open(filepath.Join(t.TempDir(), "r.db"), records.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	set := Settings{Strategy: "random", Seed: 3, Evals: 10}.withDefaults()
	record := func(k records.Key, s Settings, stopped string, baseline float64, evals ...records.Evaluation) string {
		return recordRun(t, db, k, s, stopped, baseline, evals...)
	}
	plan := func(k records.Key, s Settings, budget bool) plan {
		t.Helper()
		r := openRecording(db, k, nil, func(msg string) { t.Errorf("warning: %s", msg) })
		return r.plan(&transforms.Problem{Domain: k.Global}, s, budget)
	}

	k := planKey(2048)
	if p := plan(k, set, true); p.resume != nil || p.reuse != nil || len(p.seeds) != 0 || len(p.known) != 0 {
		t.Errorf("no records: %+v", p)
	}
	cut := record(k, set, "", 0, planEval(1, 1, 2048, 0), planEval(2, 4, 1024, 3), planEval(4, 8, 512, 2))
	p := plan(k, set, true)
	if p.resume == nil || p.resume.ID != cut || p.own != 3 || p.spent != 3*time.Second || len(p.known) != 3 {
		t.Fatalf("a cut run: %+v", p)
	}
	if r := p.known["bszx=4,lszx=8,szx=512"]; r.Outcome != autotune.OK || r.Ms != 2 || !r.FromRecords {
		t.Errorf("known result %+v", r)
	}
	if p := plan(k, set, true); p.resume == nil {
		t.Error("a cut run is not resumed twice")
	}
	for _, reuse := range []Reuse{ReuseContinue, ReuseResume} {
		s := set
		s.Reuse = reuse
		if p := plan(k, s, true); p.resume == nil || p.resume.ID != cut {
			t.Errorf("%s: the cut run is not resumed", reuse)
		}
	}
	ignore := set
	ignore.Reuse = ReuseIgnore
	if p := plan(k, ignore, true); p.resume != nil || p.reuse != nil || len(p.known) != 0 {
		t.Errorf("ignore: %+v", p)
	}
	// A run killed after its last evaluation was recorded is not cut: its
	// best is reused.
	k3 := planKey(512)
	var ten []records.Evaluation
	for i := range 10 {
		ten = append(ten, planEval(1, 1<<i, 512, float64(20-i)))
	}
	full := record(k3, set, "", 0, ten...)
	if p := plan(k3, set, true); p.resume != nil || p.reuse == nil || !p.reuse.Exact || p.reuse.Ms != 11 || p.reuse.Run != full {
		t.Errorf("a run that reached its -e: %+v", p)
	}

	// Other settings: a finished run's best, with its single-point time;
	// a pinned value it lacks leaves a search.
	other := set
	other.Seed = 4
	done := record(k, other, "budget", 5, planEval(8, 8, 256, 1))
	if p := plan(k, other, true); p.resume != nil || p.reuse == nil || !p.reuse.Exact || p.reuse.Run != done || p.reuse.BaselineMs != 5 || p.reuse.Ms != 1 {
		t.Errorf("the recorded best: %+v", p.reuse)
	}
	pinned := other
	pinned.Fixed = map[transforms.Name]int{transforms.Local(0): 4}
	pinned4 := pinned
	if p := plan(k, pinned, true); p.reuse == nil || p.reuse.Ms != 3 {
		t.Errorf("the recorded best with lszx=4: %+v", p.reuse)
	}
	pinned.Fixed = map[transforms.Name]int{transforms.Local(0): 2}
	if p := plan(k, pinned, true); p.reuse != nil || len(p.known) != 4 {
		t.Errorf("no recorded best with lszx=2: %+v", p)
	}
	cont := other
	cont.Reuse = ReuseContinue
	p = plan(k, cont, true)
	// Its three best, then the best of the other shape (512 points).
	if p.reuse != nil || len(p.seeds) != 4 || p.seeds[0]["bszx"] != 8 || p.seeds[1]["bszx"] != 4 || p.seeds[3]["lszx"] != 512 || len(p.known) != 4 {
		t.Errorf("continue: seeds %v, %d known", p.seeds, len(p.known))
	}
	resume := other
	resume.Reuse = ReuseResume
	if p := plan(k, resume, true); p.resume != nil || p.reuse != nil || len(p.known) != 0 {
		t.Errorf("resume without a cut run: %+v", p)
	}

	// A shape never tuned: the nearest shape's best without a budget,
	// carried over; with one, a search from it.
	k2 := planKey(4096)
	p = plan(k2, other, false)
	if p.reuse == nil || p.reuse.Exact || p.reuse.Problem != k.ID() || p.reuse.Ms != 1 || p.reuse.BaselineMs != 5 || !slices.Equal(p.reuse.from, []int{2048}) {
		t.Errorf("nearest shape, no budget: %+v", p.reuse)
	}
	p = plan(k2, other, true)
	if p.reuse != nil || len(p.seeds) != 2 || p.seeds[0]["szx"] != 512 || p.seeds[0]["bszx"] != 8 || p.seeds[1]["szx"] != 4096 {
		t.Errorf("nearest shapes, a budget: seeds %v, want 2048's best first (bszx=8, szx=512: one block per work-item, as there), then 512's", p.seeds)
	}
	// Pinned (lszx=4), where neither shape's best has it: the fastest
	// setting of each that has it (2048's at 3 ms, 512's at 18 ms),
	// carried over.
	p = plan(k2, pinned4, true)
	if p.reuse != nil || len(p.seeds) != 2 || p.seeds[0]["bszx"] != 2 || p.seeds[0]["lszx"] != 4 || p.seeds[0]["szx"] != 2048 || p.seeds[1]["bszx"] != 1 || p.seeds[1]["lszx"] != 4 || p.seeds[1]["szx"] != 4096 {
		t.Errorf("nearest shapes with lszx=4 pinned: seeds %v, want 2048's best with lszx=4 (bszx=2, szx=2048), then 512's (bszx=1, szx=4096)", p.seeds)
	}
	if p := plan(k2, pinned4, false); p.reuse == nil || p.reuse.Ms != 3 || p.reuse.Params["lszx"] != 4 {
		t.Errorf("nearest shape with lszx=4 pinned, no budget: %+v", p.reuse)
	}
	pinned8 := other
	pinned8.Fixed = map[transforms.Name]int{transforms.Local(0): 3}
	if p := plan(k2, pinned8, true); len(p.seeds) != 0 {
		t.Errorf("lszx=3 pinned: seeds %v, want none (no setting recorded has it)", p.seeds)
	}
}

// TestPlanTimeouts checks which recorded timeouts a later search takes
// instead of measuring: those of the cut run it resumes, those of a point
// timed out by two runs, and a variant stopped for being slow; a point
// timed out once at an absolute limit is measured again (and a result
// recorded before the timeout stands).
func TestPlanTimeouts(t *testing.T) {
	db, err := records.Open(filepath.Join(t.TempDir(), "r.db"), records.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	timeout := func(b int) records.Evaluation {
		e := planEval(b, 1, 64, 0)
		e.Outcome, e.Err = autotune.Timeout, "runner: the build of k did not finish within 10s; builder killed"
		return e
	}
	k := planKey(64)
	record := func(s Settings, stopped string, evals ...records.Evaluation) {
		recordRun(t, db, k, s, stopped, 0, evals...)
	}
	set := Settings{Strategy: "random", Seed: 3, Evals: 10, Reuse: ReuseContinue}.withDefaults()
	first, second := set, set
	first.Seed, second.Seed = 1, 2
	slow := planEval(64, 1, 64, 0)
	slow.Outcome, slow.Err = autotune.Timeout, "runner: k: slower than 10 x the single-point kernel's 84.7 ms: stopped after 1 s; worker killed"
	record(first, "budget", timeout(1), timeout(2), planEval(4, 1, 64, 2), planEval(8, 1, 64, 0), slow)
	record(second, "budget", timeout(2), timeout(4))
	point := func(b int) string { return fmt.Sprintf("bszx=%d,lszx=1,szx=64", b) }
	plan := func(s Settings) plan {
		r := openRecording(db, k, nil, func(msg string) { t.Errorf("warning: %s", msg) })
		return r.plan(&transforms.Problem{Domain: k.Global}, s, true)
	}
	p := plan(set)
	if p.resume != nil || len(p.known) != 4 {
		t.Fatalf("%d known (%v), want 4 (resumed %v)", len(p.known), slices.Sorted(maps.Keys(p.known)), p.resume)
	}
	// A variant stopped for being slow is a verdict: taken at once.
	for b, want := range map[int]autotune.Outcome{2: autotune.Timeout, 4: autotune.OK, 8: autotune.Compile, 64: autotune.Timeout} {
		if r, ok := p.known[point(b)]; !ok || r.Outcome != want {
			t.Errorf("%s: %v (known %v), want %v", point(b), r.Outcome, ok, want)
		}
	}
	if _, ok := p.known[point(1)]; ok {
		t.Errorf("%s, timed out by one run, is taken from the records", point(1))
	}
	// The cut run's own timeout is replayed, its path as it went.
	illegal := planEval(32, 1, 64, 0)
	illegal.Outcome = autotune.Illegal
	record(set, "", timeout(16), illegal)
	p = plan(set)
	if p.resume == nil {
		t.Fatal("the cut run is not resumed")
	}
	if p.own != 1 {
		t.Errorf("the cut run made %d evaluations that count against -e, want 1 (an illegal setting rejected before a build does not count)", p.own)
	}
	if r := p.known[point(16)]; r.Outcome != autotune.Timeout || !r.FromRecords {
		t.Errorf("the cut run's timeout: %+v", r)
	}
	if _, ok := p.known[point(1)]; ok {
		t.Errorf("resuming: %s, timed out by another run once, is taken from the records", point(1))
	}
}

// TestPlanKin checks that a search of a family never recorded on its
// device and driver starts from the best settings recorded on the
// platform's other devices and drivers, never takes one of them without
// searching, and leaves them once its own family has a verified best.
func TestPlanKin(t *testing.T) {
	db, err := records.Open(filepath.Join(t.TempDir(), "r.db"), records.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	on := func(k records.Key, name, driver string) records.Key {
		k.Device = records.Device{Platform: "P", Name: name, Driver: driver}
		return k
	}
	set := Settings{Strategy: "random", Seed: 3, Evals: 10}.withDefaults()
	plan := func(k records.Key, s Settings, budget bool) plan {
		t.Helper()
		r := openRecording(db, k, nil, func(msg string) { t.Errorf("warning: %s", msg) })
		return r.plan(&transforms.Problem{Domain: k.Global}, s, budget)
	}
	recordRun(t, db, on(planKey(2048), "dev", "1"), set, "budget", 0, planEval(8, 8, 256, 1), planEval(4, 4, 512, 2))
	recordRun(t, db, on(planKey(1024), "other", "1"), set, "budget", 0, planEval(2, 2, 512, 1))
	me := on(planKey(2048), "dev", "2") // a driver update
	for _, budget := range []bool{true, false} {
		p := plan(me, set, budget)
		if p.reuse != nil || len(p.seeds) != 2 || p.seeds[0]["bszx"] != 8 || p.seeds[0]["szx"] != 256 || p.seeds[1]["szx"] != 1024 {
			t.Errorf("budget %v: reuse %+v, seeds %v; want the other driver's best, then the other device's carried to 2048 points", budget, p.reuse, p.seeds)
		}
	}
	pinned := set
	pinned.Fixed = map[transforms.Name]int{transforms.Local(0): 4}
	if p := plan(me, pinned, true); len(p.seeds) != 1 || p.seeds[0]["bszx"] != 4 || p.seeds[0]["lszx"] != 4 || p.seeds[0]["szx"] != 512 {
		t.Errorf("lszx=4 pinned: seeds %v, want the other driver's fastest with lszx=4 (its best lacks it), the other device none", p.seeds)
	}
	pinned.Fixed = map[transforms.Name]int{transforms.Local(0): 16}
	if p := plan(me, pinned, true); len(p.seeds) != 0 {
		t.Errorf("lszx=16 pinned: seeds %v, want none (no kin's setting has it)", p.seeds)
	}
	cont := set
	cont.Reuse = ReuseContinue
	recordRun(t, db, me, set, "budget", 0, planEval(1, 1, 2048, 3))
	if p := plan(me, cont, true); len(p.seeds) != 1 || p.seeds[0]["szx"] != 2048 {
		t.Errorf("with a verified best of its own: seeds %v, want its own only", p.seeds)
	}
}

// TestToolVersionStamped: a version set by the build (the Makefile's
// -ldflags -X) is the tool's version.
func TestToolVersionStamped(t *testing.T) {
	old := version
	defer func() { version = old }()
	version = "v1.2.3-4-gabcdef"
	if v := ToolVersion(); v != "v1.2.3-4-gabcdef" {
		t.Errorf("ToolVersion with a stamped version: %q", v)
	}
}

// A run's identity holds the opening's continuation when it is not the
// default's, so that a run with another continuation is another run; the
// default's (given or not) leaves the identity as it was.
func TestRunIdentityThen(t *testing.T) {
	base := string(runIdentity(Settings{Strategy: "opening", Seed: 1}, nil))
	if got := string(runIdentity(Settings{Strategy: "opening", Seed: 1, Then: "genetic"}, nil)); got != base {
		t.Errorf("then genetic: %s, want %s", got, base)
	}
	if got := string(runIdentity(Settings{Strategy: "opening", Seed: 1, Then: "model"}, nil)); got == base || !strings.Contains(got, `"then":"model"`) {
		t.Errorf("then model: %s", got)
	}
}

// A run's identity holds the opening's settings that differ from its
// defaults, so that a run with a candidate is another run; the defaults,
// given or not, leave the identity as it was, and the continuation given
// through them is recorded as through Then.
func TestRunIdentityOpening(t *testing.T) {
	base := string(runIdentity(Settings{Strategy: "opening", Seed: 1}, nil))
	def := strategies.OpeningSettings{Plateau: strategies.OpeningPlateau, Then: strategies.ThenGenetic}
	if got := string(runIdentity(Settings{Strategy: "opening", Seed: 1, Opening: def}, nil)); got != base {
		t.Errorf("the defaults given: %s, want %s", got, base)
	}
	got := string(runIdentity(Settings{Strategy: "opening", Seed: 1, Opening: strategies.OpeningSettings{GlobalRounds: 2, Then: strategies.ThenModel}}, nil))
	if !strings.Contains(got, `"then":"model","opening":"global-rounds=2"`) {
		t.Errorf("global-rounds=2, then=model: %s", got)
	}
	if _, err := (Settings{Then: "genetic", Opening: strategies.OpeningSettings{Then: "model"}}).opening(); err == nil {
		t.Error("two continuations accepted")
	}
	s, rest, err := ParseSettings([]string{"-s", "opening", "--opening", "cover=2", "-x"})
	if err != nil || s.Opening != (strategies.OpeningSettings{Cover: 2}) || len(rest) != 1 {
		t.Errorf("ParseSettings --opening cover=2: %+v, %v, %v", s.Opening, rest, err)
	}
	if _, _, err := ParseSettings([]string{"--opening", "cover"}); err == nil || !strings.Contains(err.Error(), "optimizer: --opening: opening setting cover:") {
		t.Errorf("ParseSettings --opening cover: %v", err)
	}
}
