package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/transforms"
)

func init() {
	register(verb{name: "gen", summary: "print the OpenCL of a kernel for one setting of the optimizer's parameters", run: genVerb})
	applyParams = variantOf
}

const genUsage = "usage: hplopt gen KERNEL [-d DEVICE] [--size tiny|S|M|L] [-n N[,N...]] [-k K[,K...]] [--params name=value,...]"

// variantOf turns run's --params into the variant to run.
func variantOf(cfg *runConfig) error {
	given, err := transforms.ParsePins(cfg.Params)
	if err != nil {
		return err
	}
	inst, err := cfg.Bench.Instance(cfg.Size, cfg.Seed)
	if err != nil {
		return err
	}
	op, err := hpl.Eval(cfg.Bench.Kernel).Device(cfg.Device).Global(inst.Global...).OptimizerProblem(inst.Args...)
	if err != nil {
		return err
	}
	prob := op.Passes
	p, err := transforms.Complete(prob, given)
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

func genVerb(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var n, k intList
	device := fs.String("d", "", "OpenCL device whose limits apply")
	class := fs.String("size", "", "size class: tiny, S, M or L")
	fs.Var(&n, "n", "points per global dimension, x first")
	fs.Var(&k, "k", "compute loop lengths, outermost first")
	params := fs.String("params", "", "optimizer parameters: name=value,...")
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "hplopt gen: %v\n%s\n", err, genUsage)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		return fail(err)
	}
	if name == "" || fs.NArg() > 0 {
		return fail(fmt.Errorf("give one kernel (one of %s)", strings.Join(kernels.Names(), ", ")))
	}
	b, err := kernels.Get(name)
	if err != nil {
		return fail(err)
	}
	if *class == "" && n == nil && k == nil {
		*class = "tiny"
	}
	size, err := b.ParseSize(*class, n, k)
	if err != nil {
		return fail(err)
	}
	given, err := transforms.ParsePins(*params)
	if err != nil {
		return fail(err)
	}
	inst, err := b.Instance(size, 1)
	if err != nil {
		return fail(err)
	}
	op, err := hpl.Eval(b.Kernel).Device(*device).Global(inst.Global...).OptimizerProblem(inst.Args...)
	if err != nil {
		fmt.Fprintf(stderr, "hplopt gen: %v\n", err)
		return 1
	}
	prob := op.Passes
	p, err := transforms.Complete(prob, given)
	if err != nil {
		return fail(err)
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
