package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/runner"
)

func TestMain(m *testing.M) {
	runner.MaybeWorker()
	maybeMemoryRun()
	if os.Getenv(asHplopt) != "" { // a test starts hplopt as a process
		os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr, Builtins()...))
	}
	// Tests never touch the user's records: a test that tunes names its
	// database (--db) or none (--no-db), and the default is a temporary one.
	dir, err := os.MkdirTemp("", "hplopt-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("HPLOPT_DB", filepath.Join(dir, "records.db"))
	status := m.Run()
	os.RemoveAll(dir)
	os.Exit(status)
}

func TestUsage(t *testing.T) {
	if st, _, errs := hplopt(); st != 2 || !strings.Contains(errs, "usage") {
		t.Errorf("no arguments: status %d, stderr %q", st, errs)
	}
	if st, _, errs := hplopt("bogus"); st != 2 || !strings.Contains(errs, "unknown verb or kernel") {
		t.Errorf("bogus: status %d, stderr %q", st, errs)
	}
	if st, out, _ := hplopt("-h"); st != 0 || !strings.Contains(out, "tune") {
		t.Errorf("-h: status %d, stdout %q", st, out)
	}
	for _, args := range [][]string{
		{"tune"}, {"tune", "nosuch"}, {"tune", "matmul", "-s", "simplex"}, {"tune", "matmul", "-t", "0"},
		{"tune", "matmul", "--params", "bogus=1"}, {"matmul", "-n", "0"}, {"gen", "matmul", "--params", "uf"},
		{"devices", "extra"}, {"check", "extra"}, {"tune", "matmul", "--order", "sideways"}, {"tune", "matmul", "--builds", "-1"},
	} {
		if st, _, errs := hplopt(args...); st != 2 {
			t.Errorf("%v: status %d, want 2 (stderr %q)", args, st, errs)
		}
	}
}

func TestDevicesAndCheck(t *testing.T) {
	needDevice(t)
	st, out, errs := hplopt("devices")
	if st != 0 || !strings.Contains(out, "[default]") || !strings.Contains(out, "max work-group") {
		t.Fatalf("devices: status %d\n%s%s", st, out, errs)
	}
	st, out, errs = hplopt("check")
	if st != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("check: status %d\n%s%s", st, out, errs)
	}
	if st, _, errs := hplopt("check", "-d", "no-such-device"); st != 1 || !strings.Contains(errs, "devices found") {
		t.Errorf("check -d no-such-device: status %d, stderr %q", st, errs)
	}
}

// TestTuneVerb runs the paper's command form for a few evaluations and
// checks the printed summary, the --emit source and the --json report.
func TestTuneVerb(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	dir := t.TempDir()
	js, cl := filepath.Join(dir, "r.json"), filepath.Join(dir, "best.cl")
	st, out, errs := hplopt("matmul", "--size", "tiny", "-s", "g", "-e", "8", "-t", "60", "--seed", "3", "--json", js, "--emit", cl, "-q", "--no-db")
	if st != 0 {
		t.Fatalf("status %d\n%s%s", st, out, errs)
	}
	for _, want := range []string{"single-point", "speedup", "evaluations   8", "params", "failures", "time          generating variants",
		"measured in ready order", "setup         ", "device        running kernels", "builders      "} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	src, err := os.ReadFile(cl)
	if err != nil || !strings.Contains(string(src), "void mxm(") {
		t.Errorf("--emit: %v\n%s", err, src)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"kernel", "device", "problem", "sizes", "driver", "date", "tool", "strategy", "seed", "space_size", "evaluations", "measured", "from_records",
		"failures", "baseline_ms", "best_ms", "speedup", "best_params", "evals_per_minute", "history", "time", "setup_s", "order", "builds"} {
		if _, ok := rep[f]; !ok {
			t.Errorf("the JSON report lacks %q", f)
		}
	}
	tm, _ := rep["time"].(map[string]any)
	if rs, _ := tm["run_s"].(float64); !(rs > 0) {
		t.Errorf("time split %v: no time running variants", rep["time"])
	}
	if _, ok := tm["kernel_fraction"].(float64); !ok {
		t.Errorf("time split %v: no kernel_fraction", rep["time"])
	}
	if b, _ := rep["builds"].(map[string]any); b["builders"] == nil || b["utilization"] == nil {
		t.Errorf("builds %v: no builders or utilization", rep["builds"])
	}
	h, _ := rep["history"].([]any)
	if len(h) != 8 {
		t.Errorf("history has %d entries, want 8", len(h))
	}
	// Every evaluation has its place in the order of measurement.
	seen := map[float64]bool{}
	for _, e := range h {
		o, _ := e.(map[string]any)["order"].(float64)
		if o < 1 || seen[o] {
			t.Errorf("history: order %v", e)
		}
		seen[o] = true
	}
	fails, _ := rep["failures"].(map[string]any)
	for _, f := range []string{"illegal", "compile", "launch", "wrong", "timeout"} {
		if _, ok := fails[f]; !ok {
			t.Errorf("failures lacks %q", f)
		}
	}
}

// TestTuneKeepsSinglePoint makes every variant it draws fail (the global
// size pinned to 7, which divides no domain of conv1d tiny's 960 points,
// makes most settings illegal; with seed 2 the four that random search
// draws, the budget of 2 and the 2 rejected points that do not count
// against it, autotune.RejectedPerEval, are all illegal): the summary says the single-point kernel stays, --emit writes it, and the
// status says that no variant ran. A budget too short to time the
// single-point kernel (it counts in -t) is an error that says so.
func TestTuneKeepsSinglePoint(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("starts a worker")
	}
	cl := filepath.Join(t.TempDir(), "best.cl")
	st, out, errs := hplopt("conv1d", "--size", "tiny", "-s", "random", "--seed", "2", "--params", "szx=7", "-e", "2", "--emit", cl, "-q", "--cache", "off", "--no-db")
	if st != 1 || !strings.Contains(errs, "no variant ran correctly in 4 evaluations (4 of them illegal settings rejected before a build)") {
		t.Errorf("status %d, stderr %q", st, errs)
	}
	for _, want := range []string{"no variant ran correctly", "keep          the single-point kernel", "4 of them illegal settings rejected before a build (2 not counted against -e)"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	src, err := os.ReadFile(cl)
	if err != nil || !strings.Contains(string(src), "void conv1d(") || strings.Contains(string(src), "reqd_work_group_size") {
		t.Errorf("--emit did not write the single-point kernel: %v\n%s", err, src)
	}

	start := time.Now()
	st, _, errs = hplopt("conv1d", "--size", "tiny", "-t", "0.001", "-q", "--cache", "off", "--no-db")
	if st != 1 || !strings.Contains(errs, "the single-point kernel was not timed within the budget of 1ms (-t)") {
		t.Errorf("-t 0.001: status %d, stderr %q", st, errs)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("-t 0.001 took %v", d)
	}
}

// TestTuneReadyOrder runs a search that measures the first variant built
// first: it makes its evaluations and finds a variant.
func TestTuneReadyOrder(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	st, out, errs := hplopt("conv1d", "--size", "tiny", "-s", "genetic", "-e", "12", "-t", "120", "--order", "ready", "--builds", "4", "-q", "--no-db")
	if st != 0 || !strings.Contains(out, "evaluations   12 ") || !strings.Contains(out, "speedup") {
		t.Errorf("status %d\n%s%s", st, out, errs)
	}
}

// --stop ends a search on the device whatever the strategy, with -e
// whichever comes first; the report names the condition that held.
func TestTuneStop(t *testing.T) {
	needDevice(t)
	js := filepath.Join(t.TempDir(), "r.json")
	st, out, errs := hplopt("tune", "matmul", "--size", "tiny", "-s", "annealing", "--stop", "evals>=3 or stall>=50", "--no-db", "-q", "--json", js)
	if st != 0 || !strings.Contains(out, "stopped: stop-condition (evals>=3)") || !strings.Contains(out, "evaluations   3 in") || !strings.Contains(out, "stop evals>=3 or stall>=50") {
		t.Fatalf("status %d\n%s%s", st, out, errs)
	}
	var rep struct {
		Stopped       string `json:"stopped"`
		StopCondition string `json:"stop_condition"`
		Evaluations   int    `json:"evaluations"`
	}
	data, err := os.ReadFile(js)
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err != nil || rep.Stopped != "stop-condition" || rep.StopCondition != "evals>=3" || rep.Evaluations != 3 {
		t.Errorf("JSON report %+v, %v", rep, err)
	}
	st, out, errs = hplopt("tune", "matmul", "--size", "tiny", "-s", "model", "--stop", "evals>=3", "-e", "2", "--no-db", "-q")
	if st != 0 || !strings.Contains(out, "stopped: max-evals\n") || !strings.Contains(out, "evaluations   2 in") {
		t.Errorf("-e 2 --stop evals>=3: status %d\n%s%s", st, out, errs)
	}
	if st, _, errs := hplopt("tune", "matmul", "--stop", "evals>=3 or stal>=5"); st != 2 || !strings.Contains(errs, `unknown condition "stal"`) {
		t.Errorf("a bad --stop: status %d, %s", st, errs)
	}
}
