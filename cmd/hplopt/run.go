package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hplopt/hplopt/kernels"
)

// verb is one subcommand. To add one, write a file with
//
//	func init() { register(verb{name: "x", summary: "...", run: xVerb}) }
//
// where xVerb(args, stdout, stderr) returns the exit status: 0 for success,
// 1 for a failure, 2 for a usage error (with a usage line on stderr).
type verb struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
	hidden  bool
}

var verbs = map[string]verb{}

func register(v verb) { verbs[v.name] = v }

func init() {
	register(verb{name: "tune", summary: "search the optimizer's parameters for a kernel (the default verb: hplopt KERNEL ...)", run: tuneVerb})
	register(verb{name: "run", summary: "run a benchmark's single-point kernel (or --params variant) and check it", run: runVerb})
	register(verb{name: "kernels", summary: "list the benchmark kernels and their sizes", run: kernelsVerb})
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hplopt VERB [arguments]   (hplopt VERB -h for a verb's flags)")
	fmt.Fprintln(w, "       hplopt KERNEL -d GPU -n 1024,1024 -k 1024 -s genetic -t 3600   (same as hplopt tune KERNEL ...)")
	fmt.Fprintln(w, "verbs:")
	var names []string
	for n, v := range verbs {
		if !v.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, verbs[n].summary)
	}
}

// run is the whole command: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "hplopt: internal error: %v\n", r)
			status = 1
		}
	}()
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	if v, ok := verbs[args[0]]; ok {
		return v.run(args[1:], stdout, stderr)
	}
	if _, err := kernels.Get(args[0]); err == nil {
		return tuneVerb(args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "hplopt: unknown verb or kernel %q (kernels: %s)\n", args[0], strings.Join(kernels.Names(), ", "))
	usage(stderr)
	return 2
}
