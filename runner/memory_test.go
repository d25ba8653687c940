package runner_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/runner"
)

// TestCheckDevice: arrays past the device's largest allocation, or that
// together with the outputs' initial copies exceed its global memory, are
// errors before anything is uploaded (issue 18 #9).
func TestCheckDevice(t *testing.T) {
	dev := &opencl.Device{Name: "dev", MaxAllocSize: 1 << 20, GlobalMemSize: 3 << 20}
	for _, tc := range []struct {
		arrays []runner.ArraySize
		copies int
		want   string
	}{
		{[]runner.ArraySize{{Name: "a", Bytes: 1 << 20}, {Name: "c", Bytes: 1<<20 + 4, Output: true}}, 1,
			"runner: array c takes 1.0 MiB, more than the largest allocation dev allows (1.0 MiB, CL_DEVICE_MAX_MEM_ALLOC_SIZE)"},
		{[]runner.ArraySize{{Name: "the largest array of k", Bytes: 2 << 20}}, 0, "runner: the largest array of k takes 2.0 MiB"},
		{[]runner.ArraySize{{Name: "a", Bytes: 1 << 20}, {Name: "b", Bytes: 1 << 20}, {Name: "c", Bytes: 1 << 20, Output: true}}, 1,
			"runner: the arrays and the initial contents of the outputs take 4.0 MiB, more than the global memory of dev (3.0 MiB)"},
		{[]runner.ArraySize{{Name: "c", Bytes: math.MaxInt64 / 2, Output: true}, {Name: "d", Bytes: math.MaxInt64 / 2}}, 3, "largest allocation"},
	} {
		if err := runner.CheckDevice(dev, tc.arrays, tc.copies); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckDevice(%v, %d) = %v, want %q", tc.arrays, tc.copies, err, tc.want)
		}
	}
	fits := []runner.ArraySize{{Name: "a", Bytes: 1 << 20}, {Name: "c", Bytes: 1 << 20, Output: true}}
	if err := runner.CheckDevice(dev, fits, 1); err != nil {
		t.Error(err)
	}
	if err := runner.CheckDevice(&opencl.Device{}, []runner.ArraySize{{Name: "a", Bytes: math.MaxInt64}}, 1); err != nil {
		t.Errorf("a device without limits: %v", err)
	}
}

// TestCheckHostMemory: a need past what the host has left is an error
// naming what needs it and what bounds it (issue 18 #10).
func TestCheckHostMemory(t *testing.T) {
	avail, bound, ok := runner.HostMemory()
	if !ok {
		t.Skip("no /proc/meminfo, cgroup or address-space limit to read")
	}
	if avail <= 0 || bound == "" {
		t.Fatalf("HostMemory() = %d, %q", avail, bound)
	}
	err := runner.CheckHostMemory("k at n=9", math.MaxInt64)
	if err == nil || !strings.Contains(err.Error(), "runner: k at n=9 needs about") || !strings.Contains(err.Error(), bound) {
		t.Errorf("CheckHostMemory(MaxInt64) = %v", err)
	}
	if err := runner.CheckHostMemory("k", 1); err != nil {
		t.Errorf("CheckHostMemory(1) = %v", err)
	}
}
