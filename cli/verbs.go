package cli

import (
	"fmt"
	"io"
	"sort"
)

// verb is one subcommand. To add one, write a file with
//
//	func init() {
//		register(verb{name: "x", summary: "...", run: xVerb,
//			flags: func() *flagSet { return new(xConfig).flags() }})
//	}
//
// where (*xConfig).flags defines the verb's flags on a newFlagSet, and
// xVerb(c, args, stdout, stderr) parses its arguments with the same flags and
// returns the exit status: 0 for success (and for -h, the help on stdout), 1
// for a failure, 2 for a usage error (flagSet.usageError: the error and the
// usage line on stderr).
type verb struct {
	name    string
	summary string
	run     func(c *command, args []string, stdout, stderr io.Writer) int
	// flags defines the verb's flags on a new flag set, as run does: for
	// hplopt help VERB and the test that every flag is in the help.
	flags  func() *flagSet
	hidden bool
}

var verbs = map[string]verb{}

func register(v verb) { verbs[v.name] = v }

func init() {
	register(verb{name: "tune", summary: "search the optimizer's parameters for a kernel (the default verb: hplopt KERNEL ...)", run: tuneVerb,
		flags: func() *flagSet { return new(tuneConfig).flags() }})
	register(verb{name: "run", summary: "run a kernel's single-point kernel (or --params variant) and check it", run: runVerb,
		flags: func() *flagSet { return new(runConfig).flags() }})
	register(verb{name: "kernels", summary: "list the kernels and their sizes", run: kernelsVerb, flags: kernelsFlags})
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hplopt VERB [arguments]   (hplopt help VERB, or hplopt VERB -h, for a verb's flags)")
	fmt.Fprintln(w, "       hplopt KERNEL -d GPU -n 1024,1024 -k 1024 -s genetic -t 3600   (same as hplopt tune KERNEL ...)")
	fmt.Fprintln(w, "       hplopt tune FILE.cl --global 1024,1024 --arg n=1024 -d GPU -t 60   (a kernel written in OpenCL C)")
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

// help is `hplopt help [VERB]`.
func help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return 0
	}
	v, ok := verbs[args[0]]
	switch {
	case !ok:
		fmt.Fprintf(stderr, "hplopt help: unknown verb %q\n", args[0])
	case len(args) > 1:
		fmt.Fprintf(stderr, "hplopt help: unexpected argument %q (want one verb)\n", args[1])
	default:
		v.flags().help(stdout)
		return 0
	}
	usage(stderr)
	return 2
}

// run is the whole command: it returns the exit status.
func (c *command) run(args []string, stdout, stderr io.Writer) (status int) {
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
	case "-h", "-help", "--help":
		usage(stdout)
		return 0
	case "help":
		return help(args[1:], stdout, stderr)
	}
	if v, ok := verbs[args[0]]; ok {
		return v.run(c, args[1:], stdout, stderr)
	}
	if b, err := c.lookup(args[0]); b != nil && err == nil || isCLFile(args[0]) && c.readsCL() {
		return tuneVerb(c, args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "hplopt: unknown verb or kernel %q (kernels: %s)\n", args[0], c.names())
	usage(stderr)
	return 2
}
