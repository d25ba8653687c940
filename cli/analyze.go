package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/patterns"
	"github.com/hplopt/hplopt/transforms"
)

func init() {
	register(verb{name: "analyze", summary: "print a kernel's access-pattern table (arrays, patterns, subscript roles, loops)", run: analyzeVerb,
		flags: func() *flagSet { return new(analyzeConfig).flags() }})
}

// analyzeConfig is what analyze's flags set.
type analyzeConfig struct {
	size sizeFlags
}

func (c *analyzeConfig) flags() *flagSet {
	fs := newFlagSet("analyze", "KERNEL", `Prints, for each global array of the kernel's compute section, its access pattern
(the paper's NoPat..RadiusPat, or Unsupported with the reason) and whether it is read
and/or written; for each reference, the role of every subscript (id x, loop k, const 3,
id x + loop j, with offsets); then the compute loop nest, the bounds guard, any reason
the kernel as a whole cannot be transformed, and the int arguments whose values the
variants' code holds. The kernel is analysed as the optimizer does, for an instance of
the size given: int arguments in subscripts are the instance's values.`)
	c.size.define(fs)
	return fs
}

// analyzeVerb is `hplopt analyze KERNEL`: the access-pattern analysis of a
// kernel's compute section, as the transform passes see it for an instance
// of the size the flags give. It exits 2 on a usage error (an unknown
// kernel included).
func analyzeVerb(c *command, args []string, stdout, stderr io.Writer) int {
	var cfg analyzeConfig
	fs := cfg.flags()
	operands, err := fs.parse(args)
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	b, size, err := cfg.size.benchmark(c, operands)
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	inst, err := b.Instance(size, 1)
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "hplopt analyze: %v\n", err)
		return 1
	}
	k, err := hpl.Specialize(b.Kernel, inst.Args...)
	if err != nil {
		return fail(err)
	}
	prob := &transforms.Problem{Kernel: k, Domain: inst.Global, Ints: map[string]int{}}
	var ints []string
	for i, p := range k.Params {
		if v, ok := inst.Args[i].(int32); ok {
			prob.Ints[p.Name] = int(v)
			ints = append(ints, fmt.Sprintf("%s=%d", p.Name, v))
		}
	}
	if err := prob.Analyze(); err != nil {
		return fail(err)
	}
	names, err := transforms.BoundInts(prob)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "%s: %s\n", title(b), b.Doc)
	sort.Strings(ints)
	fmt.Fprintf(stdout, "at %s, int arguments %s\n", size, orNone(strings.Join(ints, ", ")))
	if err := patterns.Fprint(stdout, prob.Info); err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "variant ints: %s (the variants' code holds their values; the others are passed)\n", orNone(strings.Join(names, ", ")))
	return 0
}

// title names a kernel in the verbs' output: its name, and its paper
// name if it has one, as "matmul (MATMUL)".
func title(b *kernels.Benchmark) string {
	if b.Paper == "" {
		return b.Name
	}
	return b.Name + " (" + b.Paper + ")"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
