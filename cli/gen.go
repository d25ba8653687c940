package cli

import (
	"fmt"
	"io"

	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/transforms"
)

func init() {
	register(verb{name: "gen", summary: "print the OpenCL of a kernel for one setting of the optimizer's parameters", run: genVerb,
		flags: func() *flagSet { return new(genConfig).flags() }})
}

// genConfig is what gen's flags set.
type genConfig struct {
	device string
	size   sizeFlags
	pins   map[transforms.Name]int
}

// flags defines gen's flags on c.
func (c *genConfig) flags() *flagSet {
	fs := newFlagSet("gen", "KERNEL", `Prints the OpenCL that the optimizer makes of a benchmark's kernel for one
setting of its parameters (--params; the others: their defaults), with the
launch geometry and the local memory it uses.`)
	deviceVar(fs, &c.device)
	c.size.define(fs)
	pinsVar(fs, &c.pins, nil, "optimizer parameters (the others: their defaults)")
	return fs
}

// pinnedVariant makes the variant of b's kernel at size, its instance's
// data made with seed, for device, with the parameters pins (the others:
// their defaults). usage says that err is the command line's fault (pins
// that do not fit the kernel, a size without an instance): a usage error.
func pinnedVariant(b *kernels.Benchmark, size kernels.Size, seed int64, device string, pins map[transforms.Name]int) (p transforms.Params, v *transforms.Variant, usage bool, err error) {
	inst, err := b.Instance(size, seed)
	if err != nil {
		return p, nil, true, err
	}
	op, err := hpl.Eval(b.Kernel).Device(device).Global(inst.Global...).OptimizerProblem(inst.Args...)
	if err != nil {
		return p, nil, false, err
	}
	prob := op.Passes
	if err := optimizer.CheckPins(prob, pins); err != nil {
		return p, nil, true, err
	}
	if p, err = transforms.Complete(prob, pins); err != nil {
		return p, nil, true, err
	}
	v, err = transforms.Apply(prob, p)
	return p, v, false, err
}

func genVerb(cmd *command, args []string, stdout, stderr io.Writer) int {
	var c genConfig
	fs := c.flags()
	operands, err := fs.parse(args)
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	b, size, err := c.size.benchmark(cmd, operands)
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	if err := checkFits(b, size, c.device, genCopies); err != nil {
		fmt.Fprintf(stderr, "hplopt gen: %v\n", err)
		return 1
	}
	p, v, usage, err := pinnedVariant(b, size, 1, c.device, c.pins)
	if usage {
		return fs.usageError(err, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hplopt gen: %v\n", err)
		return 1
	}
	src, err := codegen.Source(v.Kernel)
	if err != nil {
		fmt.Fprintf(stderr, "hplopt gen: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "// %s %s: %s\n// launch: global %v, local %v; local memory %d bytes\n%s", b.Name, size, p, v.Global, v.Local, v.LocalBytes, src)
	return 0
}
