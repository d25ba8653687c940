package records_test

import (
	"bufio"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/records"
)

// The test binary doubles as the other processes of the tests: with
// HPLOPT_RECORDS_CHILD set it runs child() instead of the tests.
func TestMain(m *testing.M) {
	if role := os.Getenv("HPLOPT_RECORDS_CHILD"); role != "" {
		if err := child(role, os.Getenv("HPLOPT_RECORDS_DB")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// writerEvals is how many evaluations each writer process records.
const writerEvals = 300

// child is another process: "writer" records writerEvals evaluations of a
// run; "locker" holds the database locked until its stdin closes.
func child(role, path string) error {
	switch role {
	case "writer":
		db, err := records.Open(path, records.Options{})
		if err != nil {
			return err
		}
		defer db.Close()
		rec, err := db.Begin(key(256, 256), records.Run{Strategy: "random", Host: strconv.Itoa(os.Getpid())})
		if err != nil {
			return err
		}
		for i := range writerEvals {
			if _, err := rec.Add(eval(i, 1, float64(i+1))); err != nil {
				return err
			}
		}
		return rec.End("max-evals")
	case "killed":
		// Records until killed, printing each sequence number once Add
		// has returned.
		db, err := records.Open(path, records.Options{})
		if err != nil {
			return err
		}
		rec, err := db.Begin(key(128, 128), records.Run{Strategy: "random"})
		if err != nil {
			return err
		}
		for i := 1; ; i++ {
			e, err := rec.Add(eval(i, 1, float64(i)))
			if err != nil {
				return err
			}
			fmt.Println(e.Seq)
		}
	case "locker":
		db, err := sql.Open("sqlite", path)
		if err != nil {
			return err
		}
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		if _, err := tx.Exec("DELETE FROM runs WHERE id = 'none'"); err != nil { // a write: takes the lock
			return err
		}
		fmt.Println("locked")
		bufio.NewReader(os.Stdin).ReadString('\n') // until the test closes stdin
		return tx.Rollback()
	}
	return fmt.Errorf("unknown child role %q", role)
}

// start starts the test binary as a child process in role on the
// database at path.
func start(t *testing.T, role, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "HPLOPT_RECORDS_CHILD="+role, "HPLOPT_RECORDS_DB="+path)
	cmd.Stderr = os.Stderr
	return cmd
}

// TestConcurrentWriters runs two processes recording into one new database
// at once (both create and migrate it) and checks that every evaluation
// landed.
func TestConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	var cmds []*exec.Cmd
	for range 2 {
		cmd := start(t, "writer", path)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer process: %v", err)
		}
	}
	db, err := records.Open(path, records.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runs, err := db.Runs(key(256, 256).ID())
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs (%v), want 2", len(runs), err)
	}
	evals, err := db.Evaluations(key(256, 256).ID())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range evals {
		seen[e.Run]++
	}
	for _, r := range runs {
		if seen[r.ID] != writerEvals || r.Stopped != "max-evals" {
			t.Errorf("run of process %s: %d evaluations, stopped %q; want %d, max-evals", r.Host, seen[r.ID], r.Stopped, writerEvals)
		}
	}
}

// TestKilled kills a recording process with SIGKILL and checks that every
// evaluation whose Add had returned is in the database.
func TestKilled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "killed.db")
	cmd := start(t, "killed", path)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	last := 0
	for lines.Scan() {
		last, _ = strconv.Atoi(lines.Text())
		if last == 50 {
			cmd.Process.Kill()
		}
	}
	cmd.Wait()
	if last < 50 {
		t.Fatalf("the process stopped after %d evaluations, before it was killed", last)
	}
	db, err := records.Open(path, records.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	evals, err := db.Evaluations(key(128, 128).ID())
	if err != nil {
		t.Fatal(err)
	}
	// The process may have committed one more before it printed it.
	if n := len(evals); n < last || n > last+1 {
		t.Errorf("%d evaluations recorded; the process had recorded %d when killed", n, last)
	}
}

// withRecords returns the path of a records database holding one run.
func withRecords(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "records.db")
	db, err := records.Open(path, records.Options{})
	if err != nil {
		t.Fatal(err)
	}
	record(t, db, key(64, 64), eval(1, 1, 1), eval(2, 2, 0))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// wantKind checks that err is an *records.Error of the given kind whose
// message names the database.
func wantKind(t *testing.T, what string, err, kind error, path string) {
	t.Helper()
	t.Logf("%s: %v", what, err)
	var re *records.Error
	if !errors.As(err, &re) || !errors.Is(err, kind) {
		t.Errorf("%s: error %v, want a records error of kind %v", what, err, kind)
		return
	}
	if !strings.Contains(err.Error(), path) || !strings.HasPrefix(err.Error(), "records: ") {
		t.Errorf("%s: message %q does not start with records: and name %s", what, err, path)
	}
}

func TestBroken(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, []byte(strings.Repeat("this is not a database\n", 200)), 0o644)
	_, err := records.Open(garbage, records.Options{})
	wantKind(t, "a text file", err, records.ErrBroken, garbage)

	foreign := filepath.Join(dir, "foreign.db")
	raw, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("CREATE TABLE notes (text TEXT)"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	_, err = records.Open(foreign, records.Options{})
	wantKind(t, "another program's database", err, records.ErrBroken, foreign)

	// A records database whose first page (the schema) is overwritten.
	corrupt := withRecords(t)
	f, err := os.OpenFile(corrupt, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte(strings.Repeat("\xff", 3000)), 100)
	f.Close()
	db, err := records.Open(corrupt, records.Options{})
	if err == nil {
		_, err = db.Problems()
		db.Close()
	}
	wantKind(t, "a corrupt database", err, records.ErrBroken, corrupt)
}

func TestNewerSchema(t *testing.T) {
	path := withRecords(t)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(fmt.Sprintf("PRAGMA user_version = %d", records.Version+1)); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	for _, ro := range []bool{false, true} {
		_, err := records.Open(path, records.Options{ReadOnly: ro})
		wantKind(t, fmt.Sprintf("newer schema (read-only %v)", ro), err, records.ErrNewer, path)
	}
}

func TestLocked(t *testing.T) {
	path := withRecords(t)
	db, err := records.Open(path, records.Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rec, err := db.Begin(key(64, 64), records.Run{})
	if err != nil {
		t.Fatal(err)
	}
	locker := start(t, "locker", path)
	stdin, _ := locker.StdinPipe()
	stdout, _ := locker.StdoutPipe()
	if err := locker.Start(); err != nil {
		t.Fatal(err)
	}
	defer locker.Wait()
	defer stdin.Close()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("locker process: %q %v", line, err)
	}
	start := time.Now()
	_, err = records.Open(path, records.Options{BusyTimeout: 100 * time.Millisecond})
	wantKind(t, "Open while another process holds the lock", err, records.ErrLocked, path)
	if waited := time.Since(start); waited < 100*time.Millisecond {
		t.Errorf("gave up after %v, before the busy timeout", waited)
	}
	_, err = rec.Add(eval(3, 3, 3))
	wantKind(t, "Add while another process holds the lock", err, records.ErrLocked, path)
	// Reading goes on (WAL): a tuner can still resume from the records.
	if _, err := db.Evaluations(key(64, 64).ID()); err != nil {
		t.Errorf("reading while another process writes: %v", err)
	}
	stdin.Close()
	if err := locker.Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Add(eval(3, 3, 3)); err != nil {
		t.Errorf("Add after the lock is released: %v", err)
	}
}

// TestReadOnly checks a read-only database file and directory. Root writes
// them anyway, so as root the test runs itself again through setpriv
// without the capabilities that override file permissions.
func TestReadOnly(t *testing.T) {
	if os.Geteuid() == 0 && os.Getenv("HPLOPT_RECORDS_UNPRIVILEGED") == "" {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("root writes read-only files, and there is no setpriv to drop that capability")
		}
		cmd := exec.Command(setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner", "--", os.Args[0], "-test.run=^TestReadOnly$", "-test.v")
		cmd.Env = append(os.Environ(), "HPLOPT_RECORDS_UNPRIVILEGED=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestReadOnly") {
			t.Fatalf("TestReadOnly without root's capabilities: %v\n%s", err, out)
		}
		return
	}
	path := withRecords(t)
	dir := filepath.Dir(path)
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.Chmod(path, 0o644) })

	os.Chmod(path, 0o444)
	_, err := records.Open(path, records.Options{})
	wantKind(t, "a read-only file", err, records.ErrReadOnly, path)
	db, err := records.Open(path, records.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("opening a read-only file for reading: %v", err)
	}
	if ps, err := db.Problems(); err != nil || len(ps) != 1 {
		t.Errorf("reading a read-only file: %d problems, %v", len(ps), err)
	}
	db.Close()

	os.Chmod(path, 0o644)
	os.Chmod(dir, 0o555)
	_, err = records.Open(path, records.Options{})
	wantKind(t, "a database in a read-only directory", err, records.ErrReadOnly, path)
	missing := filepath.Join(dir, "sub", "new.db")
	_, err = records.Open(missing, records.Options{})
	wantKind(t, "a new database in a read-only directory", err, records.ErrReadOnly, missing)
}

func TestReopen(t *testing.T) {
	path := withRecords(t)
	db, err := records.Open(path, records.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Path() != path {
		t.Errorf("Path %q, want %q", db.Path(), path)
	}
	if ps, err := db.Problems(); err != nil || len(ps) != 1 || ps[0].Evaluations != 2 {
		t.Errorf("reopened: %+v %v", ps, err)
	}
	if _, err := records.Open(filepath.Join(t.TempDir(), "absent.db"), records.Options{ReadOnly: true}); err == nil {
		t.Errorf("opening a missing database read-only succeeds")
	}
	if _, err := records.Open(t.TempDir(), records.Options{}); err == nil {
		t.Errorf("opening a directory succeeds")
	}
}

func TestDefaultPath(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("XDG_CACHE_HOME is the cache directory on Linux")
	}
	t.Setenv("XDG_CACHE_HOME", "/cache")
	if p, err := records.DefaultPath(); err != nil || p != "/cache/hplopt/records.db" {
		t.Errorf("DefaultPath with XDG_CACHE_HOME=/cache: %q %v", p, err)
	}
}
