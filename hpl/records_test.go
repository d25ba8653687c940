package hpl_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/records"
	"github.com/hplopt/hplopt/runner"
)

// programEnv makes the test binary a program that optimizes MATMUL tiny
// once and prints what it took (optimizeProgram) instead of testing.
const programEnv = "HPLOPT_TEST_OPTIMIZE_PROGRAM"

// isolateCache points the user's cache directory (where the default
// records database lives) at dir, keeping PoCL's compiler cache where it
// was, for this process and the processes it starts, and the cache of
// built programs that tunings keep (runner.DefaultCacheDir, with PoCL's
// cache of the worker processes) where it was: dir's hplopt/binaries and
// hplopt/pocl are links to the user's.
func isolateCache(dir string) {
	if c, err := os.UserCacheDir(); err == nil && os.Getenv("POCL_CACHE_DIR") == "" {
		os.Setenv("POCL_CACHE_DIR", filepath.Join(c, "pocl", "kcache"))
	}
	isolateBuilds(dir)
	os.Setenv("XDG_CACHE_HOME", dir)
}

// isolateBuilds makes dir, as the user's cache directory, share the cache
// of built programs of the user's (before isolateCache).
func isolateBuilds(dir string) {
	if userCache == "" {
		return
	}
	os.MkdirAll(filepath.Join(dir, "hplopt"), 0o755)
	for _, part := range []string{"binaries", "pocl"} {
		real := filepath.Join(userCache, "hplopt", part)
		if os.MkdirAll(real, 0o755) == nil {
			os.Symlink(real, filepath.Join(dir, "hplopt", part))
		}
	}
}

// userCache is the user's cache directory before isolateCache changed it.
var userCache, _ = os.UserCacheDir()

// programResult is what optimizeProgram prints.
type programResult struct {
	FirstResultS float64  `json:"first_result_s"`
	Builds       int      `json:"builds"`
	Stopped      string   `json:"stopped"`
	Measured     int      `json:"measured"`
	Reused       bool     `json:"reused"`
	Records      string   `json:"records"`
	Check        string   `json:"check"`
	Err          string   `json:"err"`
	Warnings     []string `json:"warnings"`
}

// optimizeProgram is a program as a user writes it: Optimize with default
// settings but a small budget, on the default records database. It prints
// the time to its first result, the programs it built in this process and
// what the tuning did, as JSON.
func optimizeProgram() int {
	b, _ := kernels.Get("matmul")
	in, err := b.Instance(b.Sizes["tiny"], 3)
	if err != nil {
		panic(err)
	}
	start := time.Now()
	ev := hpl.Eval(b.Kernel).Global(in.Global...).Optimize(hpl.OptimizerSettings{Strategy: "random", Seed: 2, Evals: 4, Time: time.Minute})
	err = ev.Run(in.Args...)
	r := programResult{FirstResultS: time.Since(start).Seconds(), Err: errText(err)}
	if s, err := runner.Open(""); err == nil {
		r.Builds = s.Builds()
	}
	if tu := ev.Tuning(); tu != nil {
		r.Stopped, r.Measured, r.Reused, r.Records, r.Warnings = tu.Report.Stopped.String(), tu.Report.Measured, tu.Reused != nil && tu.Reused.Exact, tu.Records, tu.Warnings
	}
	r.Check = errText(in.Check(0))
	json.NewEncoder(os.Stdout).Encode(r)
	return 0
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestOptimizeRemembers runs a program that calls Optimize twice, as a user
// starts it twice, on the default records database: the first run
// searches, the second runs the recorded best at once (one build, no
// search, no worker). It reports the time to the first result of each.
func TestOptimizeRemembers(t *testing.T) {
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	cache := t.TempDir()
	isolateBuilds(cache)
	program := func() programResult {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), programEnv+"=1", "XDG_CACHE_HOME="+cache)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var r programResult
		if err == nil {
			err = json.Unmarshal(out, &r)
		}
		if err != nil || r.Err != "" || r.Check != "" {
			t.Fatalf("program: %v %+v\n%s%s", err, r, out, stderr.String())
		}
		return r
	}
	first, second := program(), program()
	if first.Stopped != "max-evals" || first.Measured != 4 || !strings.HasPrefix(first.Records, cache) {
		t.Errorf("first start: %+v, want a search of 4 evaluations recorded under %s", first, cache)
	}
	if second.Stopped != autotune.StopReused.String() || !second.Reused || second.Measured != 0 || second.Builds != 1 {
		t.Errorf("second start: %+v, want the recorded best, one build, no search", second)
	}
	t.Logf("time to the first result: %.2f s searching (4 variants measured in a worker, %d build here); %.3f s from the records (%d build, no search)",
		first.FirstResultS, first.Builds, second.FirstResultS, second.Builds)
}

// stepped is a host loop's kernel: a time step used only in arithmetic, a
// loop bound and a float scalar.
var stepped = hpl.MustKernel("stepped", func(k *hpl.K) {
	out := k.Array("out", hpl.Float32, 1)
	in := k.Array("in", hpl.Float32, 1)
	n := k.Scalar("n", hpl.Int32)
	step := k.Scalar("step", hpl.Int32)
	dt := k.Scalar("dt", hpl.Float32)
	j := k.Int("j")
	k.Compute(func() {
		k.Set(out.At(hpl.Idx), 0.0)
		k.For(j, 0, n, func() {
			k.AddTo(out.At(hpl.Idx), in.At(hpl.Idx.Add(j)).Mul(dt).Mul(step))
		})
	})
})

// TestTimeStepKey checks that a host loop over a time step does not tune
// again at every step: the time step (an int used in arithmetic) and a
// float argument leave the records' key and the process's memo alone; the
// loop bound and the sizes make a new problem.
func TestTimeStepKey(t *testing.T) {
	out, in := hpl.NewArray(hpl.Float32, 64), hpl.NewArray(hpl.Float32, 80)
	key := func(n, step int32, dt float32, outN int) string {
		t.Helper()
		o := out
		if outN != 64 {
			o = hpl.NewArray(hpl.Float32, outN)
		}
		prob, err := hpl.Eval(stepped).OptimizerProblem(o, in, n, step, dt)
		if err != nil {
			t.Skipf("no OpenCL device: %v", err)
		}
		k := prob.Key()
		if len(k.Scalars) != 1 || k.Scalars[0].Name != "n" {
			t.Errorf("key scalars %+v, want n alone", k.Scalars)
		}
		return k.ID()
	}
	base := key(16, 1, 0.5, 64)
	for what, id := range map[string]string{"time step 2": key(16, 2, 0.5, 64), "dt 0.25": key(16, 1, 0.25, 64)} {
		if id != base {
			t.Errorf("%s: another problem", what)
		}
	}
	for what, id := range map[string]string{"loop bound 8": key(8, 1, 0.5, 64), "size 32": key(16, 1, 0.5, 32)} {
		if id == base {
			t.Errorf("%s: the same problem", what)
		}
	}
	if testing.Short() {
		return
	}
	// Three steps of a host loop: one search, in memory.
	set := hpl.OptimizerSettings{Strategy: "random", Seed: 1, Evals: 2, Time: time.Minute, NoRecords: true}
	var first *hpl.Tuning
	for step := int32(1); step <= 3; step++ {
		ev := hpl.Eval(stepped).Optimize(set)
		if err := ev.Run(out, in, int32(16), step, float32(step)/10); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = ev.Tuning()
		} else if ev.Tuning() != first {
			t.Fatalf("step %d tuned again", step)
		}
	}
}

// TestTuneRecordsLocked locks the records database after the first
// evaluation: the tuning warns once, goes on in memory and reports every
// evaluation.
func TestTuneRecordsLocked(t *testing.T) {
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	path := filepath.Join(t.TempDir(), "records.db")
	db, err := records.Open(path, records.Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ctx := context.Background()
	conn, err := raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var warnings []string
	set := hpl.OptimizerSettings{Strategy: "random", Seed: 6, Evals: 3, Time: time.Minute, Records: db,
		Warn: func(msg string) { warnings = append(warnings, msg) },
		Progress: func(p autotune.Progress) {
			if p.Evaluations == 1 { // another process takes the write lock
				if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
					t.Error(err)
				}
			}
		}}
	b, _ := kernels.Get("conv1d")
	in, _ := b.Instance(b.Sizes["tiny"], 1)
	tu, err := hpl.Eval(b.Kernel).Global(in.Global...).Tune(ctx, set, in.Args...)
	conn.ExecContext(ctx, "ROLLBACK")
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "locked") || !strings.Contains(warnings[0], "in memory") {
		t.Errorf("warnings %q, want one saying the database is locked and the search goes on in memory", warnings)
	}
	if tu.Report.Counted(3) != 3 || tu.Report.Measured+tu.Report.Rejected != tu.Report.Evaluations || len(tu.Warnings) != 1 {
		t.Errorf("%d evaluations (%d measured), warnings %q", tu.Report.Evaluations, tu.Report.Measured, tu.Warnings)
	}
	evals, err := db.Evaluations(tu.Key.ID())
	if err != nil || len(evals) != 1 {
		t.Errorf("recorded %d evaluations (%v), want the first only", len(evals), err)
	}
}
