package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// memoryRunEnv, set in the environment of the test binary, makes it run
// hplopt with the arguments it holds (separated by spaces) instead of the
// tests, and print the peak resident memory (VmHWM) of itself and of the
// worker processes it started: the set-up memory of one tuning, measured
// in a process that did nothing else.
const memoryRunEnv = "HPLOPT_TEST_MEMORY_RUN"

// maybeMemoryRun is TestMain's hook for memoryRunEnv.
func maybeMemoryRun() {
	args := os.Getenv(memoryRunEnv)
	if args == "" {
		return
	}
	var mu sync.Mutex
	workers := 0
	done := make(chan struct{})
	go func() { // the workers' peaks, while they live
		for {
			for _, pid := range children() {
				if kb := statusKB(pid, "VmHWM"); kb > 0 {
					mu.Lock()
					workers = max(workers, kb)
					mu.Unlock()
				}
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	st := Run(strings.Fields(args), io.Discard, os.Stderr, Builtins()...)
	close(done)
	mu.Lock()
	fmt.Printf("status %d parent %d worker %d\n", st, statusKB("self", "VmHWM"), workers)
	mu.Unlock()
	os.Exit(0)
}

// statusKB reads a size in kB from /proc/PID/status, -1 if it cannot.
func statusKB(pid, key string) int {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key+":"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.Atoi(f[0])
				return n
			}
		}
	}
	return -1
}

// children lists the processes whose parent is this one, from the
// children files of its threads (not by scanning /proc, whose garbage
// would count in the peak being measured).
func children() []string {
	tasks, _ := os.ReadDir("/proc/self/task")
	var out []string
	for _, t := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}

// TestSetupMemory bounds the memory a tuning's set-up takes, in the
// program and in its worker process: tuning saxpy over 16M floats (x and
// y, 64 MiB each, y read and written) peaks at most twice the arguments'
// 128 MiB above the same tuning of a tiny saxpy, in each process (about
// 1.2 and 1.6 times on PoCL, whose device buffers are the worker's host
// memory; before the data was streamed to the worker, 10 times in each).
func TestSetupMemory(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("sets up 128 MiB of data twice over")
	}
	if statusKB("self", "VmHWM") < 0 {
		t.Skip("no /proc/self/status to read the peak memory from")
	}
	peaks := func(n int) (parent, worker int) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), memoryRunEnv+"=tune saxpy -n "+strconv.Itoa(n)+" -e 2 -q --timeout 60 --no-db")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("n=%d: %v\n%s", n, err, out.String())
		}
		var st int
		if _, err := fmt.Sscanf(out.String()[strings.LastIndex(out.String(), "status "):], "status %d parent %d worker %d", &st, &parent, &worker); err != nil || st != 0 || worker <= 0 {
			t.Fatalf("n=%d: status %d, %v\n%s", n, st, err, out.String())
		}
		return parent, worker
	}
	const n = 16 << 20
	args := 2 * 4 * n / 1024 // kB
	p0, w0 := peaks(1000)
	p, w := peaks(n)
	t.Logf("set-up of %d MiB of arguments: program %d MiB (%d MiB at the tiny size), worker %d MiB (%d MiB)", args>>10, p>>10, p0>>10, w>>10, w0>>10)
	if p-p0 > 2*args {
		t.Errorf("the program's peak grew by %d MiB for %d MiB of arguments; want at most twice", (p-p0)>>10, args>>10)
	}
	if w-w0 > 2*args {
		t.Errorf("the worker's peak grew by %d MiB for %d MiB of arguments; want at most twice", (w-w0)>>10, args>>10)
	}
}
