package cli

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/bench"
	"github.com/hplopt/hplopt/records"
)

// asHplopt makes the test binary hplopt itself (see TestMain), for the
// tests that signal or kill a tuning process.
const asHplopt = "HPLOPT_TEST_AS_HPLOPT"

// process is hplopt running as a process of its own.
type process struct {
	cmd  *exec.Cmd
	out  bytes.Buffer // stdout and stderr
	done chan error
}

// start starts hplopt args as a process.
func start(t *testing.T, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(os.Args[0], args...), done: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), asHplopt+"=1")
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
		p.done <- nil
	})
	return p
}

// recorded returns the number of evaluations in the records database at
// path, 0 while it does not exist.
func recorded(t *testing.T, path string) int { return countRecorded(t, path, nil) }

// counted returns how many evaluations the records database at path
// holds that count against -e: all but the illegal settings rejected
// before a build.
func counted(t *testing.T, path string) int {
	return countRecorded(t, path, func(e records.Evaluation) bool { return e.Outcome != autotune.Illegal })
}

// countRecorded returns the number of evaluations in the records database
// at path that keep selects (nil: all), 0 while it does not exist.
func countRecorded(t *testing.T, path string, keep func(records.Evaluation) bool) int {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return 0
	}
	db, err := records.Open(path, records.Options{ReadOnly: true})
	if err != nil {
		return 0 // being created
	}
	defer db.Close()
	ps, err := db.Problems()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range ps {
		if keep == nil {
			n += p.Evaluations
			continue
		}
		es, err := db.Evaluations(p.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if keep(e) {
				n++
			}
		}
	}
	return n
}

// waitRecorded waits until the database at path holds n evaluations; it
// fails the test if p ends first.
func (p *process) waitRecorded(t *testing.T, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for recorded(t, path) < n {
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("hplopt ended (%v) before %d evaluations were recorded:\n%s", err, n, p.out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d evaluations not recorded in 2 minutes:\n%s", n, p.out.String())
		}
	}
}

// wait waits for p to end and returns its exit status.
func (p *process) wait() int {
	err := <-p.done
	p.done <- err
	if e, ok := err.(*exec.ExitError); ok {
		return e.ExitCode()
	}
	return 0
}

func readReport(t *testing.T, path string) *autotune.JSONReport {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r autotune.JSONReport
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestTuneKilledResumes kills a search with SIGKILL mid-way and runs the
// same command again: the recorded evaluations are not measured again (the
// strategy is told them), only the rest are. Then the same command once
// more measures nothing (the recorded best); --reuse continue measures
// only points not recorded; and the records export as T4.
func TestTuneKilledResumes(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "records.db")
	args := []string{"tune", "matmul", "-s", "random", "-e", "12", "--seed", "11", "--db", db, "-q"}
	p := start(t, args...)
	p.waitRecorded(t, db, 3)
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait()
	killed, measuredKilled := recorded(t, db), counted(t, db)
	if killed < 3 || measuredKilled >= 12 {
		t.Fatalf("%d evaluations recorded when killed (%d measured), want 3 or more, fewer than 12 measured:\n%s", killed, measuredKilled, p.out.String())
	}

	js := filepath.Join(dir, "resumed.json")
	st, out, errs := hplopt(append(args, "--json", js)...)
	if st != 0 || !strings.Contains(out, "went on with the cut run") {
		t.Fatalf("resumed: status %d\n%s%s", st, out, errs)
	}
	r := readReport(t, js)
	// Points rejected as illegal are recorded, and do not count against
	// -e (autotune.RejectedPerEval), in the cut run as in the resumed one.
	if r.Evaluations != killed+r.Measured+r.Rejected || r.FromRecords != killed || r.Measured != 12-measuredKilled || r.Stopped != "max-evals" {
		t.Errorf("resumed: %d evaluations, %d from records, %d measured, %d rejected, stopped %s; want %d from records, %d measured, max-evals",
			r.Evaluations, r.FromRecords, r.Measured, r.Rejected, r.Stopped, killed, 12-measuredKilled)
	}
	for i, e := range r.History { // the cut search's path, then the points it had not reached
		if e.FromRecords != (i < killed) {
			t.Errorf("evaluation %d: from records %v", i+1, e.FromRecords)
		}
	}
	total := recorded(t, db)
	if total != r.Evaluations {
		t.Errorf("%d evaluations recorded, want %d", total, r.Evaluations)
	}
	measured := map[string]bool{}
	timedOut := map[string]bool{} // measured again by --reuse continue, as a timeout may have been the machine's load
	for _, e := range r.History {
		measured[records.PointKey(e.Params)] = true
		if e.Outcome == autotune.Timeout {
			timedOut[records.PointKey(e.Params)] = true
		}
	}

	// The same command again: nothing measured.
	st, out, errs = hplopt(append(args, "--json", js)...)
	r = readReport(t, js)
	if st != 0 || r.Measured != 0 || r.Stopped != autotune.StopReused.String() || !strings.Contains(out, "from records  the recorded best") {
		t.Errorf("the same search again: status %d, %d measured, stopped %s\n%s%s", st, r.Measured, r.Stopped, out, errs)
	}

	// Searching on: the same path from the records, then 3 new points.
	cont := []string{"tune", "matmul", "-s", "random", "-e", "3", "--seed", "11", "--db", db, "-q", "--reuse", "continue", "--json", js}
	if st, out, errs := hplopt(cont...); st != 0 {
		t.Fatalf("--reuse continue: status %d\n%s%s", st, out, errs)
	}
	r = readReport(t, js)
	again := 0 // timed-out points measured again
	for _, e := range r.History {
		if k := records.PointKey(e.Params); !e.FromRecords && measured[k] {
			if !timedOut[k] {
				t.Errorf("--reuse continue measured %v again", e.Params)
			}
			again++
		}
	}
	// Timed-out points measured again spend the budget of 3 before the
	// path from the records ends: then fewer come from the records.
	if r.Measured != 3 || (again == 0 && r.FromRecords != total) || r.FromRecords > total-again {
		t.Errorf("--reuse continue: %d measured, %d from records, %d timed out before and measured again; want 3 and %d", r.Measured, r.FromRecords, again, total-again)
	}
	total += r.Measured + r.Rejected

	// The real records export as T4.
	t4 := filepath.Join(dir, "records.t4.json")
	if st, out, errs := hplopt("db", "--db", db, "export", "--format", "t4", "--out", t4); st != 0 {
		t.Fatalf("export: status %d\n%s%s", st, out, errs)
	}
	data, _ := os.ReadFile(t4)
	if err := records.CheckT4(data); err != nil {
		t.Error(err)
	}
	var doc struct{ Results []map[string]any }
	json.Unmarshal(data, &doc)
	if len(doc.Results) != total {
		t.Errorf("T4 export: %d results, want the %d recorded", len(doc.Results), total)
	}
}

// TestTuneSIGTERM stops a search with SIGTERM: as Ctrl-C, the summary and
// the report are written, with every evaluation recorded.
func TestTuneSIGTERM(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	dir := t.TempDir()
	db, js := filepath.Join(dir, "records.db"), filepath.Join(dir, "r.json")
	p := start(t, "tune", "matmul", "-s", "random", "-e", "500", "--seed", "12", "--db", db, "-q", "--json", js)
	p.waitRecorded(t, db, 2)
	p.cmd.Process.Signal(syscall.SIGTERM)
	if st := p.wait(); st != 0 || !strings.Contains(p.out.String(), "stopped: cancelled") || !strings.Contains(p.out.String(), "params") {
		t.Fatalf("status %d\n%s", st, p.out.String())
	}
	r := readReport(t, js)
	if n := recorded(t, db); r.Stopped != "cancelled" || r.Evaluations != n || r.Measured != n {
		t.Errorf("report: stopped %s, %d evaluations (%d measured); %d recorded", r.Stopped, r.Evaluations, r.Measured, n)
	}
}

// TestConcurrentTunes runs two tuning processes on one records database at
// once: both record every evaluation.
func TestConcurrentTunes(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	db := filepath.Join(t.TempDir(), "records.db")
	dir := t.TempDir()
	var want int
	var procs []*process
	for i, k := range []string{"matmul", "conv1d"} {
		procs = append(procs, start(t, "tune", k, "-s", "random", "-e", "4", "--seed", fmt.Sprint(21+i), "--db", db, "-q", "--json", filepath.Join(dir, k+".json")))
	}
	for i, p := range procs {
		if st := p.wait(); st != 0 {
			t.Fatalf("status %d\n%s", st, p.out.String())
		}
		r := readReport(t, filepath.Join(dir, []string{"matmul", "conv1d"}[i]+".json"))
		if r.Measured != 4 {
			t.Errorf("%d measured, want 4", r.Measured)
		}
		want += r.Evaluations
	}
	if n := recorded(t, db); n != want {
		t.Errorf("%d evaluations recorded, want %d", n, want)
	}
}

// TestOutputsChecked gives tune and bench output paths that cannot be
// written: each is a usage error before anything is measured (or a
// records database opened).
func TestOutputsChecked(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	db := filepath.Join(dir, "records.db")
	type output struct{ what, path string }
	files := []output{{"/dev/full", "/dev/full"}, {"a directory", dir}, {"a missing directory", filepath.Join(dir, "missing", "r")}}
	dirs := []output{{"/dev/full", "/dev/full"}, {"a file", file}}
	if unprivileged() {
		files = append(files, output{"a read-only directory", filepath.Join(ro, "r")})
		dirs = append(dirs, output{"a read-only directory", ro})
	}
	check := func(what string, args ...string) {
		t.Helper()
		st, out, errs := hplopt(args...)
		if st != 2 || !strings.Contains(errs, "cannot write") || out != "" {
			t.Errorf("%s: %s: status %d, stdout %q, stderr %q; want a usage error", what, strings.Join(args, " "), st, out, errs)
		}
	}
	for _, o := range files {
		check(o.what, "tune", "matmul", "-e", "2", "--db", db, "--json", o.path)
		check(o.what, "tune", "matmul", "-e", "2", "--db", db, "--emit", o.path)
	}
	for _, o := range dirs {
		check(o.what, "bench", "--kernels", "matmul", "--sizes", "tiny", "-t", "1", "--db", db, "--out", o.path)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a records database was opened before the outputs were checked")
	}
	if os.Geteuid() == 0 {
		rerunUnprivileged(t, "TestOutputsChecked")
	}
}

// unprivileged reports whether file permissions bind this process (root
// writes read-only files, unless rerunUnprivileged dropped that
// capability).
func unprivileged() bool {
	return os.Geteuid() != 0 || os.Getenv("HPLOPT_TEST_UNPRIVILEGED") != ""
}

// rerunUnprivileged runs the test again in a process without root's
// capability to write read-only files (setpriv), for its read-only cases.
func rerunUnprivileged(t *testing.T, name string) {
	t.Helper()
	if os.Getenv("HPLOPT_TEST_UNPRIVILEGED") != "" {
		return
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Log("root writes read-only files, and there is no setpriv to drop that capability: read-only cases not run")
		return
	}
	cmd := exec.Command(setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner", "--", os.Args[0], "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), "HPLOPT_TEST_UNPRIVILEGED=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("%s without root's capabilities: %v\n%s", name, err, out)
	}
}

// TestTuneStartsFromKin tunes MATMUL tiny, exports the records as if made
// under another driver of the same device and imports them into a new
// database: a search there starts from the other driver's best (its first
// evaluation), where it measures the point, rather than taking it from
// the records.
func TestTuneStartsFromKin(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	dir := t.TempDir()
	a, b, export := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db"), filepath.Join(dir, "a.json")
	hploptOK(t, []string{"tune", "matmul", "-s", "random", "-e", "6", "--seed", "3", "--db", a, "-q", "--json", filepath.Join(dir, "a-run.json")})
	best := readReport(t, filepath.Join(dir, "a-run.json")).BestParams
	hploptOK(t, []string{"db", "--db", a, "export", "--format", "json", "--out", export})
	data, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range doc["problems"].([]any) {
		p := p.(map[string]any)
		p["key"].(map[string]any)["device"].(map[string]any)["driver"] = "0.1-older"
		kb, _ := json.Marshal(p["key"])
		var k records.Key
		if err := json.Unmarshal(kb, &k); err != nil {
			t.Fatal(err)
		}
		p["id"] = k.ID()
	}
	data, _ = json.Marshal(doc)
	if err := os.WriteFile(export, data, 0o644); err != nil {
		t.Fatal(err)
	}
	hploptOK(t, []string{"db", "--db", b, "import", export})
	js := filepath.Join(dir, "b-run.json")
	out := hploptOK(t, []string{"tune", "matmul", "-e", "2", "--db", b, "--json", js}, "started from  the best recorded on ", "driver 0.1-older), 32x32")
	r := readReport(t, js)
	if r.FromRecords != 0 || len(r.History) == 0 || !reflect.DeepEqual(r.History[0].Params, best) {
		t.Errorf("the search under the new driver: %d from the records, first evaluation %v; want none from the records and the other driver's best %v first", r.FromRecords, r.History, best)
	}
	if len(r.StartedFrom) != 1 || !strings.Contains(r.StartedFrom[0], "0.1-older") {
		t.Errorf("the report's started_from %q, want the other driver's records:\n%s", r.StartedFrom, out)
	}
}

// TestTuneStartsFromPinnedNearest tunes MATMUL at 64x64, then at 128x128
// with lszx pinned to a value its best lacks but another setting it
// measured has: the second search starts from the fastest such setting,
// carried over (its blocks and work-groups kept), where it used to pass
// the shape over and start from the single-point setting.
func TestTuneStartsFromPinnedNearest(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	dir := t.TempDir()
	db, first, second := filepath.Join(dir, "r.db"), filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	hploptOK(t, []string{"tune", "matmul", "-n", "64,64", "-k", "64", "-s", "random", "-e", "8", "--seed", "3", "--db", db, "-q", "--json", first})
	r := readReport(t, first)
	var pin *autotune.JSONEval
	for i, e := range r.History {
		if e.Outcome == autotune.OK && e.Params["lszx"] != r.BestParams["lszx"] && (pin == nil || e.Ms < pin.Ms) {
			pin = &r.History[i]
		}
	}
	if pin == nil {
		t.Fatalf("the first search measured no setting with another lszx than its best's: %+v", r.History)
	}
	hploptOK(t, []string{"tune", "matmul", "-n", "128,128", "-k", "64", "-e", "2", "--params", fmt.Sprintf("lszx=%d", pin.Params["lszx"]), "--db", db, "-q", "--json", second},
		"started from  the best recorded at 64x64 ")
	r2 := readReport(t, second)
	if len(r2.StartedFrom) != 1 || !strings.Contains(r2.StartedFrom[0], ", 64x64 ") {
		t.Errorf("the report's started_from %q, want the 64x64 shape's records", r2.StartedFrom)
	}
	h := r2.History
	if len(h) == 0 {
		t.Fatal("the second search measured nothing")
	}
	for _, name := range []string{"bszx", "bszy", "lszx", "lszy", "tw0", "uf", "vec"} {
		if h[0].Params[name] != pin.Params[name] {
			t.Errorf("the second search's first setting %v, want the first's fastest with lszx=%d carried over (%v): %s differs", h[0].Params, pin.Params["lszx"], pin.Params, name)
		}
	}
}

// TestBadRecords tunes with a records database that cannot be used: each
// case gives one warning and a normal search, and no records.
func TestBadRecords(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.db")
	os.WriteFile(broken, []byte(strings.Repeat("not a database\n", 100)), 0o644)
	newer := filepath.Join(dir, "newer.db")
	rdb, err := records.Open(newer, records.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rdb.Close()
	raw, err := sql.Open("sqlite", newer)
	if err != nil {
		t.Fatal(err)
	}
	raw.Exec(fmt.Sprintf("PRAGMA user_version = %d", records.Version+1))
	raw.Close()
	cases := map[string][]string{"broken": {broken, "not a records database"}, "newer": {newer, "written by a newer hplopt"}}
	if os.Getenv("HPLOPT_TEST_UNPRIVILEGED") != "" {
		clear(cases) // run again for the read-only case alone
	}
	if unprivileged() {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o755)
		path := filepath.Join(ro, "records.db")
		rdb, err := records.Open(path, records.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rdb.Close()
		os.Chmod(path, 0o444)
		os.Chmod(ro, 0o555)
		t.Cleanup(func() { os.Chmod(ro, 0o755) })
		cases["read-only"] = []string{path, "read-only"}
	}
	for name, c := range cases {
		st, out, errs := hplopt("tune", "conv1d", "-s", "random", "-e", "2", "--seed", "2", "-q", "--db", c[0])
		if st != 0 || strings.Count(errs, "warning") != 1 || !strings.Contains(errs, c[1]) || !strings.Contains(errs, "tuning without records") ||
			!strings.Contains(out, "2 evaluations, stopped: max-evals") || strings.Contains(out, "records ") {
			t.Errorf("%s database: status %d\n%s%s", name, st, out, errs)
		}
	}
	if os.Geteuid() == 0 {
		rerunUnprivileged(t, "TestBadRecords")
	}
}

// TestTuneSizes tunes two sizes in one command, prints the decision rule
// the records imply, and runs a third size never tuned: without a budget,
// the nearest shape's best runs, unsearched.
func TestTuneSizes(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	dir := t.TempDir()
	db, js := filepath.Join(dir, "records.db"), filepath.Join(dir, "sizes.json")
	st, out, errs := hplopt("tune", "matmul", "-n", "32,32", "-k", "16", "-n", "16,16", "-k", "8", "-s", "random", "-e", "3", "--seed", "4", "--db", db, "-q", "--json", js)
	if st != 0 || !strings.Contains(out, "SETTING FROM") || strings.Count(out, " search ") < 2 {
		t.Fatalf("--sizes: status %d\n%s%s", st, out, errs)
	}
	var reps []autotune.JSONReport
	data, _ := os.ReadFile(js)
	if err := json.Unmarshal(data, &reps); err != nil || len(reps) != 2 || reps[0].Sizes == reps[1].Sizes {
		t.Fatalf("--json of two sizes: %v\n%s", err, data)
	}
	st, out, errs = hplopt("db", "--db", db, "rule", "matmul")
	if st != 0 || !strings.Contains(out, "2 recorded shapes") || !strings.Contains(out, "16x16 c[16x16]") || !strings.Contains(out, "32x32 c[32x32]") {
		t.Fatalf("db rule: status %d\n%s%s", st, out, errs)
	}
	st, out, errs = hplopt("tune", "matmul", "-n", "24,24", "-k", "12", "--db", db, "-q", "--json", js)
	r := readReport(t, js)
	if st != 0 || !strings.Contains(out, "nearest recorded shape") || r.Measured != 0 || r.Reused == nil || r.Reused.Exact {
		t.Errorf("a shape never tuned, no budget: status %d\n%s%s", st, out, errs)
	}
}

// TestBenchResumes stops a suite with SIGTERM in the middle of a run, and
// resumes it: the cut run goes on from its records.
func TestBenchResumes(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	dir := t.TempDir()
	db, out := filepath.Join(dir, "records.db"), filepath.Join(dir, "bench")
	args := []string{"bench", "--kernels", "matmul", "--sizes", "tiny", "-s", "random", "-e", "10", "-t", "120", "--seed", "13", "--db", db, "--out", out, "-q"}
	p := start(t, args...)
	p.waitRecorded(t, db, 2)
	p.cmd.Process.Signal(syscall.SIGTERM)
	if st := p.wait(); st != 1 || !strings.Contains(p.out.String(), "interrupted") {
		t.Fatalf("bench after SIGTERM: status %d\n%s", st, p.out.String())
	}
	cut, counts := recorded(t, db), counted(t, db)
	if st, o, errs := hplopt(append(args, "--resume")...); st != 0 {
		t.Fatalf("--resume: status %d\n%s%s", st, o, errs)
	}
	recs, err := bench.Load(out)
	if err != nil || len(recs) != 1 || recs[0].Report == nil {
		t.Fatalf("saved runs %v, %v", recs, err)
	}
	r := recs[0].Report
	// -e counts neither the recorded evaluations nor the illegal settings
	// rejected before a build (of the cut run or this one).
	if r.Evaluations != cut+r.Measured+r.Rejected || r.FromRecords != cut || r.Measured != 10-counts {
		t.Errorf("resumed run: %d evaluations, %d from records, %d measured, %d rejected; %d were recorded when cut, %d of them measured", r.Evaluations, r.FromRecords, r.Measured, r.Rejected, cut, counts)
	}
}
