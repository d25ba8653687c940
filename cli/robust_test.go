package cli

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/runner"
)

// TestPinErrors: pinned values that no setting can take are usage errors
// (exit 2) naming the pin and its range, found before anything is
// measured, in every verb that takes --params (issue 18 #3 and #8): a zero
// local or block size was an "internal error" (a division by zero) in
// tune, and a local size above the device's, a block larger than the
// domain or an unroll factor longer than the loop searched until the
// budget ended, blaming it or "no variant ran correctly".
func TestPinErrors(t *testing.T) {
	needDevice(t)
	for _, tc := range []struct {
		params, want string
	}{
		{"lszx=0", "pinned lszx=0: lszx takes 1 to"},
		{"bszx=0", "pinned bszx=0: bszx takes 1 to 32 (the 32 points along x)"},
		{"lszx=100000", "pinned lszx=100000 exceeds the device's"},
		{"bszx=64", "pinned bszx=64 exceeds the 32 points along x (bszx takes 1 to 32)"},
		{"uf=1000", "pinned uf=1000 exceeds the 16 iterations of the innermost compute loop (uf takes 0 to 16)"},
	} {
		for _, verb := range []string{"tune", "gen", "run"} {
			args := []string{verb, "matmul", "--params", tc.params}
			if verb == "tune" {
				args = append(args, "-t", "5", "-q")
			}
			st, out, errs := hplopt(args...)
			if st != 2 || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "usage: hplopt "+verb) {
				t.Errorf("hplopt %s: status %d, stderr %q; want 2 and %q\nstdout: %s", strings.Join(args, " "), st, errs, tc.want, out)
			}
		}
	}
}

// commandProcess returns the command running hplopt with args in a process of
// its own: this test binary, started as the command (asHplopt), under
// the shell's ulimit -v of limitKiB KiB if limitKiB > 0.
func commandProcess(t *testing.T, limitKiB int64, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cmd *exec.Cmd
	if limitKiB > 0 {
		cmd = exec.Command("sh", append([]string{"-c", fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, limitKiB), exe}, args...)...)
	} else {
		cmd = exec.Command(exe, args...)
	}
	cmd.Env = append(os.Environ(), asHplopt+"=1")
	return cmd
}

// TestMemoryLimits: sizes that pass the flags' checks but cannot fit the
// host's memory or the device's largest allocation fail at once, with a
// message naming the sizes and the need, before anything is allocated
// (issue 18 #9 and #10): run matmul -n 46340,46340 -k 46340 under a 6 GiB
// address-space limit ended in the Go runtime's "fatal error: out of
// memory" with a stack dump; tune of an output past the device's largest
// allocation took 38 s and 7.8 GB, then a driver's assertion.
func TestMemoryLimits(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("starts hplopt processes")
	}
	start := time.Now()
	out, err := commandProcess(t, 6<<20, "run", "matmul", "-n", "46340,46340", "-k", "46340").CombinedOutput()
	// Either limit may be the first one met: the host's (the 8 GiB arrays
	// against the 6 GiB address-space limit) or, on a device whose largest
	// allocation is under 8 GiB (PoCL on a host with 23 GB reports 2 GiB),
	// the device's.
	hostLimit := strings.Contains(string(out), "of host memory; the room left under the address-space limit (RLIMIT_AS) is")
	deviceLimit := strings.Contains(string(out), "more than the largest allocation")
	if code := exitCode(err); code != 1 || !strings.Contains(string(out), "matmul at n=46340x46340 k=46340") ||
		!(hostLimit || deviceLimit) || strings.Contains(string(out), "fatal error") {
		t.Errorf("run under a 6 GiB limit: exit %d, output:\n%.3000s", code, out)
	}

	// An output past the device's largest allocation: on PoCL, whose
	// limits follow the free memory, the 17000x17000 with a 2 GB
	// device (max allocation 512 MiB); elsewhere one row past the device's
	// largest allocation, if an array may be that large.
	s, err := runner.Open("")
	if err != nil {
		t.Fatal(err)
	}
	dev := s.Device()
	cmd := commandProcess(t, 0)
	n := 17000
	if strings.Contains(dev.Platform.Name, "Portable Computing Language") {
		cmd.Env = append(cmd.Env, "POCL_MEMORY_LIMIT=2")
	} else if n = int(math.Sqrt(float64(dev.MaxAllocSize/4))) + 1; n*n > math.MaxInt32 {
		t.Skipf("%s allows arrays of %s: any array of 2^31-1 elements fits", dev.Name, runner.Bytes(dev.MaxAllocSize))
	}
	sizes := fmt.Sprintf("%d,%d", n, n)
	cmd.Args = append(cmd.Args, "tune", "matmul", "-n", sizes, "-k", "1", "-t", "5")
	out, err = cmd.CombinedOutput()
	want := fmt.Sprintf("the largest array of matmul at n=%dx%d k=1 takes", n, n)
	if code := exitCode(err); code != 1 || !strings.Contains(string(out), want) || !strings.Contains(string(out), "more than the largest allocation") {
		t.Errorf("tune -n %s -k 1: exit %d, want 1 and %q; output:\n%.3000s", sizes, code, want, out)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("the two checks took %s", el)
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}

// TestSummaryNamesCommonFailure: a search in which nothing ran correctly
// says why, with the most common reason (issue 18 #8: every setting
// illegal was reported as "no variant ran correctly" alone).
func TestSummaryNamesCommonFailure(t *testing.T) {
	b, _ := kernels.Get("matmul")
	inst, err := b.Instance(b.Sizes["tiny"], 1)
	if err != nil {
		t.Fatal(err)
	}
	rep := &autotune.Report{Stopped: autotune.StopBudget}
	for _, why := range []string{"bszx=64 exceeds the 32 points along x", "uf=3: no compute loop to unroll", "bszx=64 exceeds the 32 points along x"} {
		rep.History = append(rep.History, autotune.Eval{Result: autotune.Result{Outcome: autotune.Illegal, Err: errors.New("transforms: illegal setting: " + why)}})
		rep.Evaluations++
		rep.Failures.Illegal++
	}
	var out bytes.Buffer
	printTuning(&out, &tuneConfig{Bench: b, Size: b.Sizes["tiny"]}, &hpl.Tuning{Report: rep, SpaceSize: big.NewInt(5000)}, inst)
	want := "why           3 of 3 evaluations illegal, 2 of them with: transforms: illegal setting: bszx=64 exceeds the 32 points along x"
	if !strings.Contains(out.String(), want) {
		t.Errorf("summary:\n%s\nwant %q", out.String(), want)
	}
}
