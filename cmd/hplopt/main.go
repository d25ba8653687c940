// Command hplopt optimizes and tunes single-point OpenCL kernels: it lists
// devices and benchmarks, analyses and transforms kernels, runs them and
// searches the optimizer's parameters by measured, verified time.
package main

import (
	"os"

	"github.com/hplopt/hplopt/runner"
)

func main() {
	runner.MaybeWorker()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
