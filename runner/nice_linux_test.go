package runner_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/runner"
)

// TestBuildersNiced: every thread of a builder runs at a nice value 10
// above the tuning process's (19 at most); the measuring worker's keep it.
func TestBuildersNiced(t *testing.T) {
	w := startPool(t, runner.WorkerSettings{Builders: 1})
	v := axpyCoarse("nice")
	w.Prepare(v)
	waitBuilt(t, w, v) // the builder has opened the device: its threads are made
	own := niceOf(t, "/proc/self")
	want := min(19, own+10)
	var builders, workers int
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		stat, err := os.ReadFile(filepath.Join(p, "stat"))
		if err != nil || statField(stat, 4) != strconv.Itoa(os.Getpid()) {
			continue // not a child of this process
		}
		cmd, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		if !strings.Contains(string(cmd), "-hplopt.runner.worker") {
			continue
		}
		tasks, _ := filepath.Glob(filepath.Join(p, "task", "[0-9]*"))
		niced := 0
		for _, task := range tasks {
			if n := niceOf(t, task); n == want {
				niced++
			} else if n != own {
				t.Errorf("%s: nice %d, want %d (a builder's) or %d (the worker's)", task, n, want, own)
			}
		}
		switch niced {
		case len(tasks):
			builders++
		case 0:
			workers++
		default:
			t.Errorf("%s: %d of its %d threads niced", p, niced, len(tasks))
		}
	}
	if builders != 1 || workers != 1 {
		t.Errorf("%d niced children and %d not, want 1 builder and 1 measuring worker", builders, workers)
	}
}

// niceOf returns the nice value of the process or thread whose /proc
// directory is dir.
func niceOf(t *testing.T, dir string) int {
	t.Helper()
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(statField(stat, 19))
	if err != nil {
		t.Fatalf("%s/stat: %v", dir, err)
	}
	return n
}

// statField returns field i (from 1) of a /proc stat line; the second,
// the command's name in parentheses, may hold spaces.
func statField(stat []byte, i int) string {
	s := string(stat)
	end := strings.LastIndexByte(s, ')')
	if end < 0 || i < 3 {
		return ""
	}
	f := strings.Fields(s[end+1:])
	if i-3 >= len(f) {
		return ""
	}
	return f[i-3]
}
