package opencl

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// firstUseEnv, set in the environment of this test binary started again,
// makes TestConcurrentSelectChild do its work.
const firstUseEnv = "HPLOPT_TEST_CONCURRENT_SELECT"

// TestConcurrentSelect starts this test binary again, so that the first
// OpenCL call of a process is made by several goroutines at once: Select
// from eight goroutines at program start crashed the process (SIGSEGV) or
// found no platform (issue 18 #4), as the ICD loader's setup is not safe
// for concurrent callers. It runs the child three times.
func TestConcurrentSelect(t *testing.T) {
	if _, err := Select(""); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		cmd := exec.Command(exe, "-test.run=^TestConcurrentSelectChild$", "-test.v")
		cmd.Env = append(os.Environ(), firstUseEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestConcurrentSelectChild") {
			t.Fatalf("run %d: the child process failed (%v):\n%.2000s", i+1, err, out)
		}
	}
}

// TestConcurrentSelectChild is the child of TestConcurrentSelect; it does
// nothing in a plain test run.
func TestConcurrentSelectChild(t *testing.T) {
	if os.Getenv(firstUseEnv) == "" {
		t.Skip("run by TestConcurrentSelect in a process of its own")
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	start := make(chan struct{})
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if i%2 == 0 {
				_, errs[i] = Select("")
			} else {
				_, errs[i] = AllDevices()
			}
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
}
