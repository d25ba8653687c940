package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/records"
)

// faults runs the fault-injection suites (make faults): this one, of the
// tuning process and its workers as the command line runs them, and
// runner's, of the worker alone.
var faults = flag.Bool("faults", false, "run the fault-injection suite (make faults)")

// fault is one row of the fault-injection suite: a tuning run of hplopt
// as a process of its own, a fault injected into it, and what must hold
// afterwards.
type fault struct {
	name string
	// args are the tuning's arguments; the suite adds --db and --json.
	args []string
	// inject injects the fault into the running tuning p once it has
	// recorded some evaluations (nil: the fault is in the arguments).
	inject func(t *testing.T, p *process)
	// check judges the run: completed reports that the run ended as it
	// must with the fault, lost the measurements made and lost (measured
	// but not recorded, or failed because of the fault rather than the
	// variant).
	check func(t *testing.T, r *faultRun) (completed bool, lost int)
	// known is how many measurements the fault loses by design; the suite
	// fails when a row loses more.
	known int
}

// faultRun is what a row's run left.
type faultRun struct {
	p      *process
	status int
	db, js string // the records database and the JSON report
	// progress is the largest evaluation count the progress lines showed.
	progress int
}

// faultTable is the suite: each fault a row. The tunings are short random
// searches of MATMUL tiny on the default device, with the default budget
// (60 s) and builders (the host's cores less one, at least one).
var faultTable = []fault{
	{name: "SIGINT to hplopt tune", args: []string{"-e", "500"},
		inject: send(syscall.SIGINT), check: stoppedCleanly},
	{name: "SIGTERM to hplopt tune", args: []string{"-e", "500"},
		inject: send(syscall.SIGTERM), check: stoppedCleanly},
	{name: "SIGKILL to hplopt tune, then the same command", args: []string{"-e", "8"},
		inject: send(syscall.SIGKILL), check: resumed},
	{name: "SIGKILL to the measuring worker", args: []string{"-e", "8"},
		inject: killWorkers(measuring), check: completedDespiteWorker},
	{name: "SIGKILL to the builders", args: []string{"-e", "8"},
		inject: killWorkers(func(pid int) bool { return !measuring(pid) }), check: completedDespiteWorker},
	{name: "SIGKILL to the worker and the builders", args: []string{"-e", "8"},
		inject: killWorkers(func(int) bool { return true }), check: completedDespiteWorker},
	// The variant a stopped builder holds fails Timeout at the build's
	// limit, as one whose source hangs the compiler does (the pool cannot
	// tell them apart); the search goes on with a builder started beside
	// the hung one. A later search measures that variant again.
	{name: "SIGSTOP to the builders (hung builders), then --reuse continue", args: []string{"-e", "8"},
		inject: signalWorkers(syscall.SIGSTOP, func(pid int) bool { return !measuring(pid) }), check: measuredAgain},
	{name: "a full disk: --json /dev/full", args: []string{"-e", "8", "--json", "/dev/full"},
		check: refusedBeforeMeasuring},
}

// TestFaults runs the fault-injection suite and prints its tally: faults
// injected, runs completed as they must, measurements lost. Run it with
// make faults (go test ./cli -run TestFaults -faults -v).
func TestFaults(t *testing.T) {
	if !*faults {
		t.Skip("the fault-injection suite runs with -faults (make faults)")
	}
	needDevice(t)
	var injected, completed, lost, known int
	var lines []string
	for _, f := range faultTable {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			r := &faultRun{db: filepath.Join(dir, "records.db"), js: filepath.Join(dir, "r.json")}
			args := append([]string{"tune", "matmul", "-s", "random", "--seed", "5", "--db", r.db}, f.args...)
			if !containsFlag(f.args, "--json") {
				args = append(args, "--json", r.js)
			}
			r.p = start(t, args...)
			injected++
			if f.inject != nil {
				r.p.waitRecorded(t, r.db, 2)
				f.inject(t, r.p)
			}
			r.status = r.p.waitFor(t, faultRunLimit)
			r.progress = lastProgress(r.p.out.String())
			ok, l := f.check(t, r)
			if ok {
				completed++
			} else {
				t.Errorf("the run did not end as it must (status %d):\n%s", r.status, r.p.out.String())
			}
			lost += l
			known += min(l, f.known)
			if l > f.known {
				t.Errorf("%d measurements lost (%d by design)", l, f.known)
			}
			note := ""
			if f.known > 0 {
				note = fmt.Sprintf(" (%d by design)", f.known)
			}
			lines = append(lines, fmt.Sprintf("  %-64s completed %-5v lost %d%s", f.name, ok, l, note))
		})
	}
	fmt.Printf("fault-injection suite (hplopt tune):\n%s\nfaults injected %d, runs completed %d, measurements lost %d (%d by design)\n",
		strings.Join(lines, "\n"), injected, completed, lost, known)
}

func containsFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name {
			return true
		}
	}
	return false
}

// lastProgress is the largest evaluation count of the progress lines.
func lastProgress(out string) int {
	n := 0
	for _, m := range regexp.MustCompile(`evaluations +(\d+) +failures`).FindAllStringSubmatch(out, -1) {
		if v, _ := strconv.Atoi(m[1]); v > n {
			n = v
		}
	}
	return n
}

// send sends sig to the tuning process.
func send(sig syscall.Signal) func(*testing.T, *process) {
	return func(t *testing.T, p *process) {
		if err := p.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
	}
}

// stoppedCleanly: a search stopped by a signal prints its summary, writes
// its report, and every evaluation it reports is recorded.
func stoppedCleanly(t *testing.T, r *faultRun) (bool, int) {
	out := r.p.out.String()
	n := recorded(t, r.db)
	rep := readReport(t, r.js)
	lost := max(0, rep.Measured-n, r.progress-n)
	return r.status == 0 && strings.Contains(out, "stopped: cancelled") && rep.Stopped == "cancelled", lost
}

// resumed: a search killed outright loses at most the evaluation in
// flight; the same command then goes on with the cut run and completes
// the budget, measuring only what was not recorded.
func resumed(t *testing.T, r *faultRun) (bool, int) {
	killed, measured := recorded(t, r.db), counted(t, r.db)
	lost := max(0, r.progress-killed)
	st, out, errs := hplopt("tune", "matmul", "-s", "random", "--seed", "5", "--db", r.db, "-e", "8", "--json", r.js)
	if st != 0 || !strings.Contains(out, "went on with the cut run") {
		t.Logf("the same command again: status %d\n%s%s", st, out, errs)
		return false, lost
	}
	rep := readReport(t, r.js)
	// -e counts the measured, not the illegal settings rejected before a
	// build (which are recorded too).
	return rep.FromRecords == killed && rep.Measured == 8-measured && recorded(t, r.db) == killed+rep.Measured+rep.Rejected, lost
}

// killWorkers kills the tuning's worker processes that which selects
// (SIGKILL), as the OOM killer would.
func killWorkers(which func(pid int) bool) func(*testing.T, *process) {
	return signalWorkers(syscall.SIGKILL, which)
}

// signalWorkers sends sig to the tuning's worker processes that which
// selects (SIGSTOP: a process that hangs).
func signalWorkers(sig syscall.Signal, which func(pid int) bool) func(*testing.T, *process) {
	return func(t *testing.T, p *process) {
		n := 0
		for _, pid := range childrenOf(p.cmd.Process.Pid, "-hplopt.runner.worker") {
			if which(pid) {
				syscall.Kill(pid, sig)
				n++
			}
		}
		if n == 0 {
			t.Fatal("no such worker process found")
		}
	}
}

// measuring reports whether the worker process pid is the measuring
// worker (not a builder): the one that holds the file of the expected
// outputs.
func measuring(pid int) bool {
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && filepath.Base(target) == "want" {
			return true
		}
	}
	return false
}

// childrenOf returns the processes whose parent is pid and whose command
// line contains mark.
func childrenOf(pid int, mark string) []int {
	var out []int
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, stat := range procs {
		b, err := os.ReadFile(stat)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 || fields[1] != strconv.Itoa(pid) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(stat), "cmdline"))
		if strings.Contains(string(cmdline), mark) {
			child, _ := strconv.Atoi(filepath.Base(filepath.Dir(stat)))
			out = append(out, child)
		}
	}
	return out
}

// completedDespiteWorker: the search goes on with new processes and makes
// all its evaluations (measures -e variants, not waiting out its budget); a variant that failed
// because its worker was killed, not through its own fault, is a lost
// measurement.
func completedDespiteWorker(t *testing.T, r *faultRun) (bool, int) {
	rep := readReport(t, r.js)
	lost := 0
	for _, e := range rep.History {
		if strings.Contains(e.Message, "signal: killed") || strings.Contains(e.Message, "did not finish within") {
			lost++
		}
	}
	lost += max(0, rep.Measured-recorded(t, r.db))
	return r.status == 0 && rep.Measured == 8 && rep.Stopped == "max-evals", lost
}

// measuredAgain: completedDespiteWorker; then the same search from the
// records (--reuse continue) takes the other variants from the records
// but measures again those whose build passed its limit (a timeout a
// loaded or stopped builder causes is not the variant's verdict), so that
// in the end the fault loses nothing.
func measuredAgain(t *testing.T, r *faultRun) (bool, int) {
	ok, lost := completedDespiteWorker(t, r)
	hung := map[string]bool{}
	for _, e := range readReport(t, r.js).History {
		if strings.Contains(e.Message, "did not finish within") {
			if e.Outcome != autotune.Timeout {
				t.Errorf("a build past its limit is a %v, want a timeout: %s", e.Outcome, e.Message)
			}
			hung[records.PointKey(e.Params)] = true
		}
	}
	js := filepath.Join(filepath.Dir(r.js), "again.json")
	st, out, errs := hplopt("tune", "matmul", "-s", "random", "--seed", "5", "--db", r.db, "-e", "8", "--reuse", "continue", "--json", js)
	if st != 0 {
		t.Logf("the search from the records: status %d\n%s%s", st, out, errs)
		return false, lost
	}
	again := readReport(t, js)
	if again.FromRecords == 0 {
		t.Errorf("the search from the records took nothing from them:\n%s", out)
	}
	for _, e := range again.History {
		if k := records.PointKey(e.Params); hung[k] && !e.FromRecords && e.Outcome != autotune.Timeout {
			delete(hung, k)
			lost--
		}
	}
	for k := range hung {
		t.Errorf("%s, whose build the stopped builder held, was not measured again", k)
	}
	return ok, max(0, lost)
}

// refusedBeforeMeasuring: an output that cannot be written is a usage
// error before anything is measured (the search's results were thrown
// away after it), within seconds.
func refusedBeforeMeasuring(t *testing.T, r *faultRun) (bool, int) {
	_, err := os.Stat(r.db)
	return r.status == 2 && strings.Contains(r.p.out.String(), "cannot write") && os.IsNotExist(err), 0
}

// faultRunLimit bounds a row's run: past it the process is killed and the
// row fails (a hang is a fault the suite must not inherit).
const faultRunLimit = 3 * time.Minute

// waitFor waits for p to end, at most d, and returns its exit status.
func (p *process) waitFor(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
	case <-time.After(d):
		p.cmd.Process.Kill()
		t.Errorf("hplopt ran past %v; killed:\n%s", d, p.out.String())
	}
	return p.wait()
}
