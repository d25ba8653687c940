package cli

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/hplopt/hplopt/kernels"
)

func kernelsFlags() *flagSet {
	return newFlagSet("kernels", "", "Lists the kernels the verbs take: each one's source (paper: the paper's eight benchmarks,\nwith their paper names; suite: the suite of kernels users write; or a program's own),\nglobal dimensions, compute loops and sizes.")
}

// kernelsVerb is `hplopt kernels`: the kernels, their shapes and sizes.
func kernelsVerb(c *command, args []string, stdout, stderr io.Writer) int {
	fs := kernelsFlags()
	if err := fs.noOperands(args); err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	// The built-in size classes first, then a program's own.
	classes := append([]string(nil), kernels.Classes...)
	seen := map[string]bool{}
	for _, class := range classes {
		seen[class] = true
	}
	var more []string
	for _, s := range c.sources {
		for _, b := range s.Kernels() {
			for class := range b.Sizes {
				if !seen[class] {
					seen[class] = true
					more = append(more, class)
				}
			}
		}
	}
	sort.Strings(more)
	classes = append(classes, more...)
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprint(w, "NAME\tSOURCE\tPAPER\tDIMS\tLOOPS")
	for _, class := range classes {
		fmt.Fprintf(w, "\t%s", class)
	}
	fmt.Fprintln(w)
	for _, s := range c.sources {
		for _, b := range s.Kernels() {
			paper := b.Paper
			if paper == "" {
				paper = "-"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d", b.Name, s.Name(), paper, b.Dims, b.Loops)
			for _, class := range classes {
				size, ok := b.Sizes[class]
				text := "-"
				if ok {
					text = size.String()
				}
				fmt.Fprintf(w, "\t%s", text)
			}
			fmt.Fprintln(w)
		}
	}
	w.Flush()
	fmt.Fprintln(stdout, "\nn: points per global dimension, x first (-n); k: compute loop lengths, outermost first (-k).")
	return 0
}
