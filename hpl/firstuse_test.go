package hpl_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
)

// firstUseEnv, set in the environment of a test binary started again by
// TestConcurrentFirstUse, makes TestConcurrentFirstUseChild do its work:
// goroutines whose first OpenCL use is Optimize, at the start of a process.
const firstUseEnv = "HPLOPT_TEST_CONCURRENT_FIRST_USE"

// TestConcurrentFirstUse starts this test binary again to run
// TestConcurrentFirstUseChild, so that the first OpenCL use of the process
// really is concurrent: several goroutines each calling
// Eval(k).Optimize(s).Run(...) at program start once crashed the process
// (SIGSEGV) or found "no OpenCL platform", every time (issue 18 #4: the
// optimizer enumerated the platforms without the lock the runner's
// sessions take).
func TestConcurrentFirstUse(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process that tunes")
	}
	device(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestConcurrentFirstUseChild$", "-test.v")
	cmd.Env = append(os.Environ(), firstUseEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestConcurrentFirstUseChild") {
		t.Fatalf("the child process failed (%v):\n%s", err, out)
	}
}

// TestConcurrentFirstUseChild is the child of TestConcurrentFirstUse; it
// does nothing in a plain test run.
func TestConcurrentFirstUseChild(t *testing.T) {
	if os.Getenv(firstUseEnv) == "" {
		t.Skip("run by TestConcurrentFirstUse in a process of its own")
	}
	names := []string{"matmul", "conv1d", "saxpy"}
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := kernels.Find(name)
			if err != nil {
				errs[i] = err
				return
			}
			in, err := b.Instance(b.Sizes["tiny"], 1)
			if err != nil {
				errs[i] = err
				return
			}
			<-start
			set := hpl.OptimizerSettings{Strategy: "random", Seed: 1, Evals: 1, Time: time.Minute}
			if err := hpl.Eval(b.Kernel).Global(in.Global...).Optimize(set).Run(in.Args...); err != nil {
				errs[i] = fmt.Errorf("%s: %w", name, err)
				return
			}
			errs[i] = in.Check(0)
		}()
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
