package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/patterns"
)

func init() {
	register(verb{name: "analyze", summary: "print a benchmark's access-pattern table (arrays, patterns, subscript roles, loops)", run: analyzeVerb})
}

const analyzeUsage = "usage: hplopt analyze KERNEL"

// analyzeVerb is `hplopt analyze KERNEL`: the access-pattern analysis of a
// benchmark's compute section, as the transform passes see it. It exits 2
// on a usage error (an unknown kernel included).
func analyzeVerb(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "hplopt analyze: "+format+"\n%s\n", append(a, analyzeUsage)...)
		return 2
	}
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, analyzeUsage)
			fmt.Fprintln(stdout, "Prints, for each global array of the kernel's compute section, its access pattern")
			fmt.Fprintln(stdout, "(the paper's NoPat..RadiusPat, or Unsupported with the reason) and whether it is read")
			fmt.Fprintln(stdout, "and/or written; for each reference, the role of every subscript (id x, loop k, const 3,")
			fmt.Fprintln(stdout, "id x + loop j, with offsets); then the compute loop nest and any reason the kernel as")
			fmt.Fprintf(stdout, "a whole cannot be transformed.\nkernels: %s\n", strings.Join(kernels.Names(), ", "))
			return 0
		}
		return fail("%v", err)
	}
	rest := fs.Args()
	if name == "" && len(rest) > 0 {
		name, rest = rest[0], rest[1:]
	}
	if name == "" {
		return fail("no kernel given (one of %s)", strings.Join(kernels.Names(), ", "))
	}
	if len(rest) > 0 {
		return fail("unexpected argument %q", rest[0])
	}
	b, err := kernels.Get(name)
	if err != nil {
		return fail("%v", err)
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
