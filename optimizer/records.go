package optimizer

import (
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/records"
	"github.com/hplopt/hplopt/runner"
	"github.com/hplopt/hplopt/transforms"
)

// Reuse says how a tuning uses the records of earlier runs of its problem
// (Settings.Reuse). Whatever the policy, a tuning with a records database
// records every evaluation it measures.
type Reuse int

// The reuse policies.
const (
	// ReuseBest: a run of the same settings that was cut (killed, or
	// stopped by a signal) is resumed; else the recorded best verified
	// setting is taken without searching; else, when no budget was given
	// (Settings.Time, Evals and Stop all unset), the best setting of the
	// nearest recorded shape (the decision rule of the records); else a search,
	// started from the nearest shapes' best settings, taking the results
	// of points the records hold instead of measuring them again.
	ReuseBest Reuse = iota
	// ReuseContinue: a cut run of the same settings is resumed; else a
	// search starting from the recorded best settings (of this shape and
	// the nearest ones) spends the whole budget on points not recorded.
	ReuseContinue
	// ReuseResume: a cut run of the same settings is resumed; else a
	// search afresh.
	ReuseResume
	// ReuseIgnore: a search afresh, as if nothing were recorded.
	ReuseIgnore
)

var reuseNames = [...]string{"best", "continue", "resume", "ignore"}

var reuseDocs = [...]string{
	"the recorded best, without searching (else the nearest shape's when no budget is given, else a search from the nearest shapes)",
	"search on from the records, the whole budget on points not recorded",
	"go on with a cut run of the same settings, else search afresh",
	"search afresh (still recording)",
}

func (r Reuse) String() string {
	if r >= 0 && int(r) < len(reuseNames) {
		return reuseNames[r]
	}
	return fmt.Sprintf("Reuse(%d)", int(r))
}

// ReuseNames lists the policies' names, the default first.
func ReuseNames() []string { return reuseNames[:] }

// Doc says in one line what the policy does.
func (r Reuse) Doc() string {
	if r >= 0 && int(r) < len(reuseDocs) {
		return reuseDocs[r]
	}
	return ""
}

// ParseReuse returns the policy named s.
func ParseReuse(s string) (Reuse, error) {
	for i, n := range reuseNames {
		if s == n {
			return Reuse(i), nil
		}
	}
	return 0, fmt.Errorf("optimizer: unknown reuse policy %q (%s)", s, strings.Join(reuseNames[:], ", "))
}

// Reused says where a tuning taken from the records instead of searched
// came from (Tuning.Reused).
type Reused struct {
	// Exact: the records of this very problem. Otherwise those of the
	// recorded shape nearest to it (records.DB.Nearest, the decision rule
	// of `hplopt db rule`): its best setting, carried over to this shape,
	// or none when it does not fit here (Note says why; the kernel as
	// written runs).
	Exact bool
	// Problem, Sizes: the recorded problem's ID and sizes.
	Problem string
	Sizes   string
	// Run is the run that measured the setting, Date when.
	Run  string
	Date time.Time
	// Params is the setting as recorded (before it was carried over).
	Params map[string]int
	// Ms is its recorded time, BaselineMs the time of the kernel as
	// written measured by the same run (0 if unknown): times of the
	// recorded problem, not of this one when not Exact.
	Ms, BaselineMs float64
	// Note says why a nearest shape's setting was not used.
	Note string

	from []int // the recorded problem's domain, when not Exact
}

// String says in a line where the setting came from.
func (r *Reused) String() string {
	if r.Exact {
		return fmt.Sprintf("the recorded best of this problem (run %s, %s)", short(r.Run), r.Date.Local().Format("2006-01-02 15:04"))
	}
	if r.Note != "" {
		return fmt.Sprintf("the kernel as written: the best setting of the nearest recorded shape (%s) does not fit: %s", r.Sizes, r.Note)
	}
	return fmt.Sprintf("the best setting of the nearest recorded shape (%s, %.4g ms there), carried over", r.Sizes, r.Ms)
}

func short(id string) string { return id[:min(len(id), 8)] }

// Key returns the records' key of the problem: the tuning problem that
// records made for it are reused for. It is made of
//
//   - the kernel's name and ast.Hash of the kernel as written
//     (Problem.Written's when it is set), before its arrays' extents are
//     set (the sizes are keyed below): editing the kernel makes a new
//     problem, and every size of a kernel is of one family, so that a
//     shape never tuned finds the nearest tuned ones;
//   - the device: platform, name, vendor, driver and OpenCL versions;
//   - the single-point domain, and every argument's name, type and shape;
//   - the values of the int arguments the passes read
//     (transforms.BoundInts: the compute loops' bounds, and the subscripts
//     of arrays staged or promoted), the only scalars the variants' code
//     and the search space depend on: a float, or an int used only in
//     arithmetic, a guard or an array the passes leave as written (a time
//     step t in fict[t]), does not split the key;
//   - SpaceVersion, so that records of another search space are never
//     taken for current ones.
func (p *Problem) Key() records.Key {
	ps := p.Passes
	written := ast.Clone(ps.Kernel)
	if p.Written != nil && p.Written.Kernel != nil {
		written = ast.Clone(p.Written.Kernel)
	}
	for _, q := range written.Params {
		q.Extents = nil
	}
	h := ast.Hash(written)
	k := records.Key{Kernel: ps.Kernel.Name, Hash: hex.EncodeToString(h[:16]), Global: slices.Clone(ps.Domain), Space: SpaceVersion}
	if d := p.Device; d != nil {
		k.Device = records.Device{Name: d.Name, Vendor: d.Vendor, Driver: d.DriverVersion, OpenCL: d.Version}
		if d.Platform != nil {
			k.Device.Platform = d.Platform.Name
		}
	}
	for _, a := range p.Data.Args {
		k.Args = append(k.Args, records.Arg{Name: a.Name, Type: a.Type.String(), Shape: slices.Clone(a.Dims)})
	}
	for _, n := range CodeInts(ps.Kernel, ps.Domain, ps.Ints) {
		k.Scalars = append(k.Scalars, records.Scalar{Name: n, Value: fmt.Sprint(ps.Ints[n])})
	}
	return k
}

// CodeInts returns the names of the int arguments of kernel k (its arrays'
// extents set) over domain, among the values ints, that the variants' code
// depends on: those Key puts in the key (transforms.BoundInts), or all of
// them when the passes cannot follow the kernel.
func CodeInts(k *ast.Kernel, domain []int, ints map[string]int) []string {
	names, err := transforms.BoundInts(&transforms.Problem{Kernel: k, Domain: domain, Ints: ints})
	if err != nil {
		return slices.Sorted(maps.Keys(ints))
	}
	return names
}

// version is the tool's version when the build sets it (the Makefile:
// -ldflags "-X github.com/hplopt/hplopt/optimizer.version=$(git describe
// --always --dirty)"), for builds that carry no VCS information
// (-buildvcs=false).
var version string

// ToolVersion returns the version of the running program for the records
// and reports: the version the build set, else its module version, else
// the VCS revision it was built from ("+dirty" when modified), else
// "devel".
func ToolVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}

var defaultRecords = sync.OnceValues(func() (*records.DB, error) {
	path, err := records.DefaultPath()
	if err != nil {
		return nil, err
	}
	return records.Open(path, records.Options{})
})

// DefaultRecords returns the records database at records.DefaultPath,
// opened on the first call and kept open for the process; every call
// returns the same database, or the same error. Package hpl's Optimize and
// Tune use it when Settings.Records is nil and NoRecords is false.
func DefaultRecords() (*records.DB, error) { return defaultRecords() }

// identity is what a run's settings must equal for a later tuning to go on
// with it (recorded as the run's Settings): what decides the points a
// search proposes, not how they are measured (the order of measurement
// does not: the strategy hears the results in the order it proposed the
// points either way).
type identity struct {
	Strategy string         `json:"strategy"`
	Seed     uint64         `json:"seed"`
	TimeS    float64        `json:"time_s"`
	Evals    int            `json:"evals"`
	Fixed    map[string]int `json:"fixed,omitempty"`
	Genetic  *geneticJSON   `json:"genetic,omitempty"`
	// Batch is bayes's points a round (Settings.Batch), when more than 1.
	Batch int `json:"batch,omitempty"`
	// Then is the opening's continuation (Settings.Then), when given.
	Then string `json:"then,omitempty"`
	// Opening is the opening's other settings (Settings.Opening, as
	// strategies.ParseOpening reads them), when any differs from its
	// default.
	Opening string `json:"opening,omitempty"`
	// Stop is the stop condition (autotune.ParseStop's syntax).
	Stop string `json:"stop,omitempty"`
	// Start are the settings the search starts from beside the records'
	// (StartPoints, as records.PointKey strings): a replay of the problem
	// from the records gives them to its strategies.
	Start []string `json:"start,omitempty"`
}

// geneticJSON is genetic.Settings less Rank, a function: a search given
// its own ranking records as one with the default's.
type geneticJSON struct {
	Population, Tournament, Elite         int
	Islands, Neighbours, Local, LocalBest int `json:",omitempty"`
	LocalRandom                           int `json:",omitempty"`
	Crossover, Mutation                   float64
	Seeds                                 []string `json:",omitempty"`
}

func runIdentity(set Settings, start []map[string]int) json.RawMessage {
	id := identity{Strategy: set.Strategy, Seed: set.Seed, TimeS: set.Time.Seconds(), Evals: set.Evals}
	if set.Batch > 1 {
		id.Batch = set.Batch
	}
	opening, _ := set.opening() // checked before a search starts
	opening = opening.Canonical()
	id.Then, opening.Then = opening.Then, ""
	id.Opening = opening.String()
	if set.Stop != nil {
		id.Stop = set.Stop.String()
	}
	for _, m := range start {
		id.Start = append(id.Start, records.PointKey(m))
	}
	if len(set.Fixed) > 0 {
		id.Fixed = map[string]int{}
		for n, v := range set.Fixed {
			id.Fixed[string(n)] = v
		}
	}
	if g := set.Genetic; g.Population != 0 || g.Islands != 0 || g.Tournament != 0 || g.Elite != 0 || g.Neighbours != 0 || g.Local != 0 || g.LocalBest != 0 || g.LocalRandom != 0 || g.Crossover != 0 || g.Mutation != 0 || len(g.Seeds) > 0 {
		id.Genetic = &geneticJSON{Population: g.Population, Islands: g.Islands, Tournament: g.Tournament, Elite: g.Elite, Neighbours: g.Neighbours, Local: g.Local, LocalBest: g.LocalBest, LocalRandom: g.LocalRandom, Crossover: g.Crossover, Mutation: g.Mutation}
		for _, p := range g.Seeds {
			id.Genetic.Seeds = append(id.Genetic.Seeds, records.PointKey(p.Map()))
		}
	}
	b, err := json.Marshal(id)
	if err != nil {
		panic("optimizer: run settings do not encode: " + err.Error()) // strings, numbers and maps of them always do
	}
	return b
}

// recording is a tuning's side of the records database: the problem's
// key and records, read once at the start, and the Recorder its
// evaluations go to. A nil *recording (no database) does nothing.
type recording struct {
	db    *records.DB
	key   records.Key
	id    string
	start []map[string]int // StartPoints of the problem
	runs  []records.Run
	evals []records.Evaluation
	rec   *records.Recorder
	warn  func(string)
	bad   bool // an evaluation could not be recorded (warned once)
	off   bool // the database failed: no more records
}

// on reports whether the records are in use.
func (r *recording) on() bool { return r != nil && !r.off }

// openRecording reads the records of prob's problem from db; nil without
// a database, or when the records cannot be read (warned).
func openRecording(db *records.DB, key records.Key, start []map[string]int, warn func(string)) *recording {
	if db == nil {
		return nil
	}
	r := &recording{db: db, key: key, id: key.ID(), start: start, warn: warn}
	err := func() error {
		if _, err := db.Retire(SpaceVersion); err != nil {
			return err
		}
		var err error
		if r.runs, err = db.Runs(r.id); err != nil {
			return err
		}
		r.evals, err = db.Evaluations(r.id)
		return err
	}()
	if err != nil {
		r.fail(err)
		return nil
	}
	return r
}

// fail warns that the records cannot be used and stops using them.
func (r *recording) fail(err error) {
	r.warn(fmt.Sprintf("%v: the search goes on in memory (its report keeps every evaluation)", err))
	r.off = true
	if r.rec != nil {
		r.rec.End("")
		r.rec = nil
	}
}

// plan is what a tuning does with the records.
type plan struct {
	resume *records.Run               // the cut run to go on with
	own    int                        // its evaluations recorded
	spent  time.Duration              // their measuring time
	known  map[string]autotune.Result // results taken instead of measuring, by records.PointKey
	seeds  []map[string]int           // settings to start the search from
	near   []string                   // the sizes of the nearest shapes they come from (Tuning.Nearest)
	kin    []string                   // where those of other devices or drivers come from (Tuning.Kin)
	reuse  *Reused                    // taken without searching
}

// plan decides what the tuning does (see Reuse) for settings set (defaults
// filled in; budget says whether a budget was given) on problem ps.
func (r *recording) plan(ps *transforms.Problem, set Settings, budget bool) plan {
	if !r.on() || set.Reuse == ReuseIgnore {
		return plan{}
	}
	var p plan
	if run, own, spent, ok := r.cut(set); ok {
		p.resume, p.own, p.spent = run, own, spent
		p.known = r.known(run.ID, func(e records.Evaluation) bool { return set.Reuse != ReuseResume || e.Run == run.ID })
		return p
	}
	if set.Reuse == ReuseResume {
		return plan{}
	}
	p.known = r.known("", func(records.Evaluation) bool { return true })
	if set.Reuse == ReuseBest {
		if e, ok := r.best(set.Fixed); ok {
			p.reuse = &Reused{Exact: true, Problem: r.id, Sizes: r.key.Sizes(), Run: e.Run, Date: e.Ended, Params: e.Params, Ms: e.Ms, BaselineMs: r.baseline(r.runs, e.Run)}
			return p
		}
	}
	near, err := r.db.Nearest(r.key, 0)
	if err != nil {
		r.fail(err)
		return plan{}
	}
	near = slices.DeleteFunc(near, func(n records.Neighbour) bool { return n.Problem.ID == r.id })
	if near, err = r.pinnedBests(near, set.Fixed, records.NearestShapes); err != nil {
		r.fail(err)
		return plan{}
	}
	if set.Reuse == ReuseBest && !budget && len(near) > 0 {
		n := near[0]
		p.reuse = &Reused{Problem: n.Problem.ID, Sizes: n.Problem.Key.Sizes(), Run: n.Best.Run, Date: n.Best.Ended, Params: n.Best.Params, Ms: n.Best.Ms, from: n.Problem.Key.Global}
		if runs, err := r.db.Runs(n.Problem.ID); err == nil {
			p.reuse.BaselineMs = r.baseline(runs, n.Best.Run)
		}
		return p
	}
	if set.Reuse == ReuseContinue {
		for _, e := range r.bests(3, set.Fixed) {
			p.seeds = append(p.seeds, e.Params)
		}
	}
	p.seeds = append(p.seeds, seedsOf(near, ps.Domain)...)
	for _, n := range near {
		p.near = append(p.near, n.Problem.Key.Sizes())
	}
	if len(near) == 0 && len(r.bests(1, set.Fixed)) == 0 {
		// Nothing verified of this family (this device and driver): the
		// nearest shapes' best on the platform's other devices and
		// drivers, only to start from (the GPUs of one platform rank
		// settings alike, not equally fast).
		kin, err := r.db.Kin(r.key, 0)
		if err != nil {
			r.fail(err)
			return plan{}
		}
		if kin, err = r.pinnedBests(kin, set.Fixed, records.KinShapes); err != nil {
			r.fail(err)
			return plan{}
		}
		p.seeds = append(p.seeds, seedsOf(kin, ps.Domain)...)
		for _, n := range kin {
			p.kin = append(p.kin, fmt.Sprintf("%s, %s", n.Problem.Key.Device, n.Problem.Key.Sizes()))
		}
	}
	return p
}

// seedsOf returns the best settings of ns (pinnedBests has kept as many
// as the search starts from), carried from their shapes to domain.
func seedsOf(ns []records.Neighbour, domain []int) []map[string]int {
	var out []map[string]int
	for _, nb := range ns {
		out = append(out, transforms.Carry(nb.Best.Params, nb.Problem.Key.Global, domain))
	}
	return out
}

// cut finds the last run of the problem with settings set that was cut
// (never ended: killed; or stopped by a signal) before its budget was
// spent, with the number of its evaluations that count against -e (not
// the illegal settings rejected before a build) and their measuring time.
func (r *recording) cut(set Settings) (*records.Run, int, time.Duration, bool) {
	want := string(runIdentity(set, r.start))
	for i := len(r.runs) - 1; i >= 0; i-- {
		run := r.runs[i]
		if string(run.Settings) != want || !run.Ended.IsZero() && run.Stopped != autotune.StopCancelled.String() {
			continue
		}
		own, spent := 0, time.Duration(0)
		for _, e := range r.evals {
			if e.Run == run.ID {
				if e.Outcome != autotune.Illegal { // -e does not count them
					own++
				}
				spent += e.Ended.Sub(e.Started)
			}
		}
		if set.Evals > 0 && own >= set.Evals || spent >= set.Time {
			return nil, 0, 0, false // it ran its course: a finished run
		}
		return &run, own, spent, true
	}
	return nil, 0, 0, false
}

// timeoutsFinal is how many runs must have stopped a point at an
// absolute time limit before a later search takes its Timeout from the
// records.
const timeoutsFinal = 2

// atLimit reports whether e is a Timeout at an absolute limit on a build
// or a run (which a loaded machine can pass as well as the variant), not
// a variant stopped for being far slower than the search's times
// (runner.SlowStopped: a verdict on the variant).
func atLimit(e records.Evaluation) bool {
	return e.Outcome == autotune.Timeout && !runner.SlowStopped(e.Err)
}

// known returns the results of the recorded evaluations that keep
// selects, by point (a later evaluation of a point replaces an earlier).
// A Timeout at an absolute limit (atLimit) is not taken but from the run
// being resumed (cut, its path replayed as it went) or once timeoutsFinal
// runs have timed the point out so: until then a later search measures the
// point again, and an earlier result of it stands.
func (r *recording) known(resumed string, keep func(records.Evaluation) bool) map[string]autotune.Result {
	timedOut := map[string]map[string]bool{} // point -> the runs that timed it out at a limit
	for _, e := range r.evals {
		if atLimit(e) {
			if timedOut[e.Point()] == nil {
				timedOut[e.Point()] = map[string]bool{}
			}
			timedOut[e.Point()][e.Run] = true
		}
	}
	m := map[string]autotune.Result{}
	for _, e := range r.evals {
		if !keep(e) || atLimit(e) && e.Run != resumed && len(timedOut[e.Point()]) < timeoutsFinal {
			continue
		}
		res := autotune.Result{Outcome: e.Outcome, Ms: e.Ms, Times: e.Times, FromRecords: true}
		if e.Err != "" {
			res.Err = errors.New(e.Err)
		}
		m[e.Point()] = res
	}
	return m
}

// bests returns up to n best verified evaluations of distinct points of
// the problem that agree with the pinned values, fastest first.
func (r *recording) bests(n int, fixed map[transforms.Name]int) []records.Evaluation {
	return fastestPinned(r.evals, n, fixed)
}

// fastestPinned returns up to n best verified evaluations of distinct
// points of evals that agree with the pinned values, fastest first.
func fastestPinned(evals []records.Evaluation, n int, fixed map[transforms.Name]int) []records.Evaluation {
	var ok []records.Evaluation
	for _, e := range evals {
		if e.Outcome == autotune.OK && e.Ms > 0 && pinned(e.Params, fixed) {
			ok = append(ok, e)
		}
	}
	slices.SortStableFunc(ok, func(a, b records.Evaluation) int { return cmp.Compare(a.Ms, b.Ms) })
	var out []records.Evaluation
	seen := map[string]bool{}
	for _, e := range ok {
		if len(out) < n && !seen[e.Point()] {
			seen[e.Point()] = true
			out = append(out, e)
		}
	}
	return out
}

func (r *recording) best(fixed map[transforms.Name]int) (records.Evaluation, bool) {
	b := r.bests(1, fixed)
	if len(b) == 0 {
		return records.Evaluation{}, false
	}
	return b[0], true
}

// baseline returns the single-point time recorded by run id among runs.
func (r *recording) baseline(runs []records.Run, id string) float64 {
	for _, run := range runs {
		if run.ID == id {
			return run.BaselineMs
		}
	}
	return 0
}

// pinnedBests gives each of ns the fastest verified setting recorded of
// its problem that has the pinned values fixed: its best when that has
// them, else (a problem tuned with other pins too, whose best is one of
// theirs) the fastest of its evaluations that has them; it leaves out a
// problem with none, and keeps the first n (nearest first, as ns comes).
// The evaluations are read only for such a problem, until n are kept.
func (r *recording) pinnedBests(ns []records.Neighbour, fixed map[transforms.Name]int, n int) ([]records.Neighbour, error) {
	var out []records.Neighbour
	for _, nb := range ns {
		if len(out) == n {
			break
		}
		if pinned(nb.Best.Params, fixed) {
			out = append(out, nb)
			continue
		}
		evals, err := r.db.Evaluations(nb.Problem.ID)
		if err != nil {
			return nil, err
		}
		if best := fastestPinned(evals, 1, fixed); len(best) > 0 {
			nb.Best = best[0]
			out = append(out, nb)
		}
	}
	return out, nil
}

// pinned reports whether a recorded setting has the pinned values.
func pinned(params map[string]int, fixed map[transforms.Name]int) bool {
	for n, v := range fixed {
		if params[string(n)] != v {
			return false
		}
	}
	return true
}

// begin records the start of the tuning's run: the cut run it goes on
// with, or a new one.
func (r *recording) begin(set Settings, resume *records.Run, baseline float64) string {
	if !r.on() {
		return ""
	}
	run := records.Run{Strategy: set.Strategy, Seed: set.Seed, Settings: runIdentity(set, r.start), Tool: ToolVersion(), BaselineMs: finite(baseline)}
	run.Host, _ = os.Hostname()
	if resume != nil {
		run.ID = resume.ID
	}
	rec, err := r.db.Begin(r.key, run)
	if err != nil {
		r.fail(err)
		return ""
	}
	r.rec = rec
	return rec.Run().ID
}

// add records e, the seq-th evaluation told to the strategy, measured
// from started to ended (one taken from the records is not recorded
// again); its Order is e.Result.Order when the evaluator gives one (the
// position in the order of measurement), else seq.
func (r *recording) add(e autotune.Eval, seq int, started, ended time.Time) {
	if !r.on() || r.rec == nil || e.Result.FromRecords {
		return
	}
	res := e.Result
	order := seq
	if res.Order > 0 {
		order = res.Order
	}
	ev := records.Evaluation{Order: order, Params: e.Point.Map(), Outcome: res.Outcome, Times: res.Times,
		BuildMs: ms(res.Cost.Build + res.Cost.Load), CheckMs: ms(res.Cost.Check), Started: started, Ended: ended}
	if res.Outcome == autotune.OK {
		ev.Ms = res.Ms
	}
	if res.Err != nil {
		ev.Err = res.Err.Error()
	}
	if _, err := r.rec.Add(ev); err != nil {
		var re *records.Error
		if errors.As(err, &re) {
			r.fail(err)
		} else if !r.bad {
			r.bad = true
			r.warn(fmt.Sprintf("%v: not recorded (the search goes on)", err))
		}
	}
}

// end records the end of the run.
func (r *recording) end(why autotune.StopReason) {
	if !r.on() || r.rec == nil {
		return
	}
	if err := r.rec.End(why.String()); err != nil {
		r.warn(err.Error())
	}
	r.rec = nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return 0
	}
	return x
}

// replayer is the evaluator of a search over recorded results: a point
// the records hold gets its recorded result at once (Result.FromRecords),
// which the strategy sees as if measured, so that a seeded search that was
// cut replays its path and then measures the points it had not reached.
type replayer struct {
	*evaluator
	known map[string]autotune.Result
	// started and ended are when the evaluation just made was measured
	// (it may have been measured ahead of its turn).
	started, ended time.Time
}

func (r *replayer) lookup(pt autotune.Point) (autotune.Result, bool) {
	res, ok := r.known[records.PointKey(pt.Map())]
	return res, ok
}

// Prepare builds pt's variant ahead unless the records hold its result.
func (r *replayer) Prepare(pt autotune.Point) {
	if _, ok := r.lookup(pt); !ok {
		r.evaluator.Prepare(pt)
	}
}

// Speculate builds the variants of pts ahead, as guesses, but those whose
// results the records hold.
func (r *replayer) Speculate(pts []autotune.Point) {
	r.evaluator.Speculate(slices.DeleteFunc(slices.Clone(pts), func(pt autotune.Point) bool {
		_, ok := r.lookup(pt)
		return ok
	}))
}

// Ready reports whether evaluating pt would start at once.
func (r *replayer) Ready(pt autotune.Point) bool {
	if _, ok := r.lookup(pt); ok {
		return true
	}
	return r.evaluator.Ready(pt)
}

// Evaluate returns pt's recorded result, or measures it.
func (r *replayer) Evaluate(ctx context.Context, pt autotune.Point) autotune.Result {
	r.started = time.Now()
	if res, ok := r.lookup(pt); ok {
		if res.Outcome == autotune.OK && (r.evaluator.best == 0 || res.Ms < r.evaluator.best) {
			r.evaluator.best = res.Ms // the cut-off of later variants, as when it was measured
		}
		r.ended = time.Now()
		return res
	}
	res := r.evaluator.Evaluate(ctx, pt)
	r.started, r.ended = r.evaluator.when(r.started)
	return res
}
