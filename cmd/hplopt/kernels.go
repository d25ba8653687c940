package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/hplopt/hplopt/kernels"
)

func kernelsFlags() *flagSet {
	return newFlagSet("kernels", "", "Lists the benchmarks: their paper names, global dimensions, compute loops and sizes.")
}

// kernelsVerb is `hplopt kernels`: the benchmarks, their shapes and sizes.
func kernelsVerb(args []string, stdout, stderr io.Writer) int {
	fs := kernelsFlags()
	if err := fs.noOperands(args); err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprint(w, "NAME\tPAPER\tDIMS\tLOOPS")
	for _, c := range kernels.Classes {
		fmt.Fprintf(w, "\t%s", c)
	}
	fmt.Fprintln(w)
	for _, b := range kernels.All() {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d", b.Name, b.Paper, b.Dims, b.Loops)
		for _, c := range kernels.Classes {
			fmt.Fprintf(w, "\t%s", b.Sizes[c])
		}
		fmt.Fprintln(w)
	}
	w.Flush()
	fmt.Fprintln(stdout, "\nn: points per global dimension, x first (-n); k: compute loop lengths, outermost first (-k).")
	return 0
}
