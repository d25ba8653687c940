package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/clc"
	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/patterns"
)

func init() {
	register(verb{name: "parse", summary: "read a kernel written in OpenCL C: its arguments and extents, the kernel as hplopt sees it, its access patterns", run: parseVerb,
		flags: func() *flagSet { return parseFlags(&clc.Options{}) }})
}

const parseAbout = `Reads a single-point kernel written in OpenCL C and prints its arguments, with
the extents of its arrays recovered from their linear subscripts (a[i*n + k] is
a[i][k] of [?][n]), the kernel as the optimizer sees it, and its access-pattern
table.`

// parseFlags defines parse's flags on opts.
func parseFlags(opts *clc.Options) *flagSet {
	fs := newFlagSet("parse", "FILE.cl", parseAbout)
	clVars(fs, opts, nil)
	return fs
}

// parseVerb is `hplopt parse FILE.cl`: it loads a single-point kernel
// written in OpenCL C (package clc), recovers its arrays' dimensions and
// prints its arguments with their extents, the kernel as the optimizer
// sees it (OpenCL C from code generation when the extents are known, else
// hplopt's pseudo-C) and its access-pattern table. It exits 1 when the
// kernel is outside the supported subset (each error on a line, with its
// position), 2 on a usage error.
func parseVerb(_ *command, args []string, stdout, stderr io.Writer) int {
	var opts clc.Options
	fs := parseFlags(&opts)
	operands, err := fs.parse(args)
	if err == nil && len(operands) != 1 {
		err = fmt.Errorf("no OpenCL C file given")
		if len(operands) > 1 {
			err = fmt.Errorf("unexpected argument %q", operands[1])
		}
	}
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	file := operands[0]
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "hplopt parse: %v\n", err)
		return 1
	}
	k, err := clc.Load(file, src, opts)
	if err != nil {
		(&failure{err}).report("parse", stderr)
		return 1
	}
	fmt.Fprintf(stdout, "kernel %s (%s)\narguments:\n", k.Name, file)
	shapes, _ := k.Shapes()
	for _, a := range k.Args {
		dims := ""
		for i, e := range shapes[a.Name] {
			dims += strings.Repeat("x", min(i, 1)) + fmt.Sprint(e)
		}
		if dims != "" {
			dims = "  = " + dims
		}
		fmt.Fprintf(stdout, "  %s%s\n", a, dims)
	}
	if _, spec, err := k.Specialize(); err != nil {
		fmt.Fprintf(stdout, "kernel (the extents are not all known, %v):\n", err)
		ast.Fprint(stdout, k.AST)
	} else if gen, err := codegen.Source(spec); err != nil {
		fmt.Fprintf(stderr, "hplopt parse: %v\n", err)
		return 1
	} else {
		fmt.Fprint(stdout, "kernel, as the optimizer sees it:\n", gen)
	}
	info, err := patterns.Analyze(k.AST)
	if err != nil {
		fmt.Fprintf(stderr, "hplopt parse: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "access patterns:")
	if err := patterns.Fprint(stdout, info); err != nil {
		fmt.Fprintf(stderr, "hplopt parse: %v\n", err)
		return 1
	}
	return 0
}
