package cli

import (
	"fmt"
	"io"

	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/transforms"
)

func init() {
	register(verb{name: "gen", summary: "print the OpenCL of a kernel for one setting of the optimizer's parameters", run: genVerb,
		flags: func() *flagSet { return new(genConfig).flags() }})
	applyParams = variantOf
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

// variantOf turns run's --params into the variant to run.
func variantOf(cfg *runConfig) error {
	inst, err := cfg.Bench.Instance(cfg.Size, cfg.Seed)
	if err != nil {
		return err
	}
	op, err := hpl.Eval(cfg.Bench.Kernel).Device(cfg.Device).Global(inst.Global...).OptimizerProblem(inst.Args...)
	if err != nil {
		return err
	}
	prob := op.Passes
	if err := optimizer.CheckPins(prob, cfg.Pins); err != nil {
		return err
	}
	p, err := transforms.Complete(prob, cfg.Pins)
	if err != nil {
		return err
	}
	v, err := transforms.Apply(prob, p)
	if err != nil {
		return err
	}
	cfg.Variant, cfg.Global, cfg.Local = v.Kernel, v.Global, v.Local
	return nil
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
	inst, err := b.Instance(size, 1)
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	op, err := hpl.Eval(b.Kernel).Device(c.device).Global(inst.Global...).OptimizerProblem(inst.Args...)
	if err != nil {
		fmt.Fprintf(stderr, "hplopt gen: %v\n", err)
		return 1
	}
	prob := op.Passes
	if err := optimizer.CheckPins(prob, c.pins); err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	p, err := transforms.Complete(prob, c.pins)
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	v, err := transforms.Apply(prob, p)
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
