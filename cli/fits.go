package cli

import (
	"fmt"

	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/runner"
)

// The host memory a verb takes, in copies of the instance's largest
// array, as a lower bound: checkFits multiplies the largest array by it.
// Measured with PoCL (whose buffers are host memory): hplopt run peaked at
// 4.3 times the bytes of all the arrays (matmul 8192x8192 k=2) and 3.7
// times (conv2d 4096x4096 k=3x3, the largest array half of them); hplopt
// tune's program and its worker each hold at least the largest array (the
// instance, the device buffer), 1.2 and 1.6 times the arrays at their
// peaks since the data streams to the worker.
const (
	runCopies  = 4
	tuneCopies = 2
	genCopies  = 1 // the instance
)

// checkFits fails fast, before an instance of b at size is made, when it
// cannot fit: its largest array in one allocation on the device
// (runner.CheckDevice), or copies of it in the host's memory
// (runner.CheckHostMemory). A device that cannot be opened is left for the
// verb to report.
func checkFits(b *kernels.Benchmark, size kernels.Size, device string, copies int) error {
	n, err := b.Largest(size)
	if err != nil {
		return err
	}
	bytes := int64(n) * 4 // float32
	if s, err := runner.Open(device); err == nil {
		if err := runner.CheckDevice(s.Device(), []runner.ArraySize{{Name: "the largest array of " + b.Name + " at " + size.String(), Bytes: bytes}}, 0); err != nil {
			return err
		}
	}
	what := fmt.Sprintf("%s at %s (%d copies of its largest array, %s)", b.Name, size, copies, runner.Bytes(bytes))
	return runner.CheckHostMemory(what, bytes*int64(copies))
}

// fitError is a problem too large for the device or the host, found while
// reading the arguments: an error of the run (exit 1), not of its usage.
type fitError struct{ err error }

func (e *fitError) Error() string { return e.err.Error() }
