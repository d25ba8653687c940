package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/records"
)

// testRecords writes a records database with two matmul sizes, the
// smaller one under an older search space, and returns its path and the
// current problem's ID.
func testRecords(t *testing.T) (path, id string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "records.db")
	db, err := records.Open(path, records.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dev := records.Device{Platform: "PoCL", Name: "cpu-test", Vendor: "AMD", Driver: "6.0", OpenCL: "OpenCL 3.0"}
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, n := range []int{64, 128} {
		k := records.Key{Kernel: "matmul", Hash: "abc", Device: dev, Global: []int{n, n}, Space: "v1",
			Args: []records.Arg{{Name: "A", Type: "float32", Shape: []int{n, n}}}}
		if i == 0 {
			k.Space = "v0"
		}
		rec, err := db.Begin(k, records.Run{Strategy: "random", Seed: 7, Host: "box", Started: start})
		if err != nil {
			t.Fatal(err)
		}
		rec.Add(records.Evaluation{Params: map[string]int{"lx": 8}, Outcome: autotune.OK, Times: []float64{2, 2.5}, Ms: 2.25, Started: start, Ended: start})
		rec.Add(records.Evaluation{Params: map[string]int{"lx": 16}, Outcome: autotune.Compile, Err: "out of registers\nmore", Started: start, Ended: start})
		rec.End("budget")
		id = k.ID()
	}
	if _, err := db.Retire("v1"); err != nil {
		t.Fatal(err)
	}
	return path, id
}

func wantOutput(t *testing.T, args []string, status int, stdout string, wants ...string) {
	t.Helper()
	st, out, errs := hplopt(args...)
	if st != status {
		t.Fatalf("hplopt %s: status %d, want %d\n%s%s", strings.Join(args, " "), st, status, out, errs)
	}
	text := errs
	if stdout == "stdout" {
		text = out
	}
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("hplopt %s: %s lacks %q:\n%s", strings.Join(args, " "), stdout, w, text)
		}
	}
}

func TestDBVerb(t *testing.T) {
	path, id := testRecords(t)
	wantOutput(t, []string{"db", "--db", path, "list"}, 0, "stdout", "PROBLEM", id[:12], "matmul", "cpu-test", "128x128 A[128x128]", "2.2500", "stale")
	wantOutput(t, []string{"db", "show", id[:6], "--db", path}, 0, "stdout",
		"problem      "+id, "hash abc", "space        v1\n", "best         2.2500 ms  lx=8", "2 evaluations", "random search, seed 7", "compile", "out of registers", "stopped: budget")
	wantOutput(t, []string{"db", "--db", path, "show", "matmul"}, 0, "stdout", "64x64", "128x128", "stale: not the current search space")
	wantOutput(t, []string{"db", "--db", path, "show", "nosuch"}, 1, "stderr", "no recorded problem")

	// Export in each format; import the exports elsewhere, twice.
	dir := t.TempDir()
	for _, f := range []string{"json", "t4", "csv"} {
		out := filepath.Join(dir, "export."+f)
		wantOutput(t, []string{"db", "--db", path, "export", "--format", f, "--out", out}, 0, "stdout")
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if f == "csv" {
			if rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll(); err != nil || len(rows) != 5 {
				t.Errorf("csv export: %d rows (%v), want 5", len(rows), err)
			}
			continue
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s export: %v", f, err)
		}
		if f == "t4" && doc["schema_version"] != "1.0.0" {
			t.Errorf("t4 export: schema_version %v", doc["schema_version"])
		}
		other := filepath.Join(dir, f+".db")
		wantOutput(t, []string{"db", "--db", other, "import", out}, 0, "stdout", "imported 2 problems, 2 runs, 4 evaluations")
		wantOutput(t, []string{"db", "--db", other, "import", out}, 0, "stdout", "imported 0 problems, 0 runs, 0 evaluations", "(4 evaluations were already recorded)")
	}
	wantOutput(t, []string{"db", "--db", path, "export", "--format", "json", "matmul"}, 0, "stdout", `"format": "hplopt-records"`)

	wantOutput(t, []string{"db", "--db", path, "prune", "--stale"}, 0, "stdout", "dropped 1 problems, 1 runs, 2 evaluations")
	wantOutput(t, []string{"db", "--db", path, "prune", "--before", "2025-03-02", "--kernel", "matmul"}, 0, "stdout", "dropped 1 problems, 1 runs, 2 evaluations")
	wantOutput(t, []string{"db", "--db", path, "list"}, 0, "stdout", "no records yet in")
}

func TestDBVerbPath(t *testing.T) {
	t.Setenv("HPLOPT_DB", "/env/records.db")
	wantOutput(t, []string{"db", "path"}, 0, "stdout", "/env/records.db\n")
	wantOutput(t, []string{"db", "path"}, 0, "stderr", "(from HPLOPT_DB)")
	wantOutput(t, []string{"db", "path", "--db", "/flag.db"}, 0, "stdout", "/flag.db\n")
	t.Setenv("HPLOPT_DB", "")
	t.Setenv("XDG_CACHE_HOME", "/cache")
	if def, _ := records.DefaultPath(); def == "/cache/hplopt/records.db" {
		wantOutput(t, []string{"db", "path"}, 0, "stdout", "/cache/hplopt/records.db\n")
	}
	missing := filepath.Join(t.TempDir(), "none.db")
	wantOutput(t, []string{"db", "--db", missing, "list"}, 0, "stdout", "no records yet (no database at")
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("db list created the database")
	}
}

func TestDBVerbErrors(t *testing.T) {
	path, _ := testRecords(t)
	for _, args := range [][]string{
		{"db"}, {"db", "bogus"}, {"db", "--db"}, {"db", "list", "extra"}, {"db", "show"},
		{"db", "--db", path, "export", "--format", "xml"}, {"db", "--db", path, "prune"},
		{"db", "--db", path, "prune", "--before", "yesterday"}, {"db", "import"}, {"db", "list", "--nosuch"},
	} {
		if st, _, errs := hplopt(args...); st != 2 || !strings.Contains(errs, "usage: hplopt db") {
			t.Errorf("hplopt %s: status %d, want 2 with the usage (stderr %q)", strings.Join(args, " "), st, errs)
		}
	}
	wantOutput(t, []string{"db", "-h"}, 0, "stdout", "usage: hplopt db", "subcommands", "prune")
	wantOutput(t, []string{"db", "prune", "-h"}, 0, "stdout", "usage: hplopt db prune", "-before", "-stale", "-kernel", "-db")

	broken := filepath.Join(t.TempDir(), "broken.db")
	os.WriteFile(broken, []byte(strings.Repeat("not sqlite ", 100)), 0o644)
	wantOutput(t, []string{"db", "--db", broken, "list"}, 1, "stderr", "hplopt db list: records: open", "not a records database")
	wantOutput(t, []string{"db", "--db", path, "import", filepath.Join(t.TempDir(), "none.json")}, 1, "stderr", "no such file")
	notExport := filepath.Join(t.TempDir(), "x.json")
	os.WriteFile(notExport, []byte(`{"kernel": "matmul"}`), 0o644)
	wantOutput(t, []string{"db", "--db", path, "import", notExport}, 1, "stderr", "x.json: records: import: neither")
}
