// Command hplopt optimizes and tunes single-point OpenCL kernels: it lists
// devices and kernels, analyses and transforms kernels, runs them and
// searches the optimizer's parameters by measured, verified time. It is
// package cli's command line over the built-in kernels: the paper's eight
// benchmarks and the suite of kernels users write.
package main

import "github.com/hplopt/hplopt/cli"

func main() { cli.Main(cli.Builtins()...) }
