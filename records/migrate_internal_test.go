package records

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hplopt/hplopt/autotune"
)

// TestMigrate opens a database of schema version 1 (before runs had the
// single-point time, and when a build stopped at its limit was recorded as
// a compile failure): it is migrated, its run reads back with the time
// unknown (0), new runs record theirs, and the builds that passed their
// limit (the runner's two messages) are timeouts while a compiler's error
// stays a compile failure.
func TestMigrate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	k := Key{Kernel: "mxm", Hash: "h", Device: Device{Name: "dev"}, Global: []int{8}, Space: "s"}
	for _, q := range []string{schema[0], fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = 1", applicationID),
		fmt.Sprintf(`INSERT INTO problems (id, family, kernel, space, key, shape, created) VALUES ('%s', '%s', 'mxm', 's', '%s', '[8]', '')`, k.ID(), k.Family(), k.JSON()),
		fmt.Sprintf(`INSERT INTO runs (id, problem, strategy, seed, settings, tool, host, started, ended, stopped) VALUES ('old', '%s', 'random', 1, '', '', '', '', '', '')`, k.ID()),
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for i, msg := range []string{"runner: the build of mxm did not finish within 10s; builder killed",
		"runner: build of mxm did not finish within 1m0s; worker killed",
		"<source>:3:1: error: the build did not finish within reason",
		"runner: the builder building mxm crashed, twice (each time in a new builder): exit status 3"} {
		q := fmt.Sprintf(`INSERT INTO evaluations (run, seq, problem, ord, params, point, outcome, error, times, ms, build_ms, check_ms, started, ended)
			VALUES ('old', %d, '%s', %d, '{"lx":%d}', 'lx=%d', 'compile', '%s', '[]', NULL, 0, 0, '', '')`, i+1, k.ID(), i+1, i, i, msg)
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Begin(k, Run{ID: "new", BaselineMs: 2.5}); err != nil {
		t.Fatal(err)
	}
	runs, err := db.Runs(k.ID())
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	for _, r := range runs {
		if want := map[string]float64{"old": 0, "new": 2.5}[r.ID]; r.BaselineMs != want {
			t.Errorf("run %s: single-point time %v, want %v", r.ID, r.BaselineMs, want)
		}
	}
	evals, err := db.Evaluations(k.ID())
	if err != nil || len(evals) != 4 {
		t.Fatalf("evaluations %+v, %v", evals, err)
	}
	for i, e := range evals {
		if want := []autotune.Outcome{autotune.Timeout, autotune.Timeout, autotune.Compile, autotune.Compile}[i]; e.Outcome != want {
			t.Errorf("evaluation %d (%s): %v after the migration, want %v", i+1, e.Err, e.Outcome, want)
		}
	}
	var v int
	db.sql.QueryRow("PRAGMA user_version").Scan(&v)
	if v != Version || Version < 3 {
		t.Errorf("schema version %d after Open, want %d", v, Version)
	}
}
