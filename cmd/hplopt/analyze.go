package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/patterns"
)

func init() {
	register(verb{name: "analyze", summary: "print a benchmark's access-pattern table (arrays, patterns, subscript roles, loops)", run: analyzeVerb, flags: analyzeFlags})
}

func analyzeFlags() *flagSet {
	return newFlagSet("analyze", "KERNEL", `Prints, for each global array of the kernel's compute section, its access pattern
(the paper's NoPat..RadiusPat, or Unsupported with the reason) and whether it is read
and/or written; for each reference, the role of every subscript (id x, loop k, const 3,
id x + loop j, with offsets); then the compute loop nest and any reason the kernel as
a whole cannot be transformed.
kernels: `+strings.Join(kernels.Names(), ", "))
}

// analyzeVerb is `hplopt analyze KERNEL`: the access-pattern analysis of a
// benchmark's compute section, as the transform passes see it. It exits 2
// on a usage error (an unknown kernel included).
func analyzeVerb(args []string, stdout, stderr io.Writer) int {
	fs := analyzeFlags()
	operands, err := fs.parse(args)
	var b *kernels.Benchmark
	if err == nil {
		b, err = kernelOperand(operands)
	}
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	info, err := patterns.Analyze(b.Kernel.AST())
	if err != nil {
		fmt.Fprintf(stderr, "hplopt analyze: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s (%s): %s\n", b.Name, b.Paper, b.Doc)
	if err := patterns.Fprint(stdout, info); err != nil {
		fmt.Fprintf(stderr, "hplopt analyze: %v\n", err)
		return 1
	}
	return 0
}
