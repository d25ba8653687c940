// Package cli is hplopt's command line as a library: the verbs tune, gen,
// analyze, run, bench, kernels, devices, check and db over the kernels of
// the Sources it is given. Command hplopt is Main over the built-in kernels
// (Builtins); a program of one's own gets the same command line for its
// kernels, the way singlechecker.Main gives a go/analysis analyzer one:
//
//	func main() {
//		cli.Main(cli.Program("stencil", kernels.Def{
//			Name:   "stencil",
//			Kernel: stencil, // an *hpl.Kernel
//			Sizes:  map[string]kernels.Size{"tiny": {N: []int{64, 64}}, "S": {N: []int{2048, 2048}}},
//			Setup:  setup, // makes the arguments (and a reference) for a size
//		}))
//	}
//
// and then: prog tune stencil --size S -t 60, prog gen stencil --params
// lszx=64, prog run stencil, prog analyze stencil, prog bench --kernels
// stencil. Main calls runner.MaybeWorker first: the tuner's worker process
// is the program itself, started again.
//
// Where a verb takes a KERNEL, the Sources are asked in order for the name
// (Source.Lookup). A file of OpenCL C is a kernel too, when the Sources
// include OpenCLC (Builtins does): hplopt tune mm.cl --global 1024,1024
// --arg n=1024 tunes the kernel in mm.cl, checked against it as written.
package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/runner"
)

// A Source is where the command line finds the kernels its verbs name.
type Source interface {
	// Name says what the source holds ("paper", "suite", a program's
	// name): hplopt kernels marks its kernels with it, and bench
	// --kernels NAME runs all of them.
	Name() string
	// Kernels lists the kernels of the source that hplopt kernels lists
	// and bench runs.
	Kernels() []*kernels.Benchmark
	// Lookup returns the kernel an operand names, or nil, nil when the
	// source has none by that name. An error says that the operand is
	// the source's but cannot be used.
	Lookup(name string) (*kernels.Benchmark, error)
}

// Kernels is the Source of the kernels given, named name.
func Kernels(name string, ks ...*kernels.Benchmark) Source {
	return &list{name: name, ks: ks}
}

// Builtins returns the sources of command hplopt: the paper's eight
// benchmarks ("paper", kernels.All), the suite of kernels users write
// ("suite", kernels.Suite) and kernels written in OpenCL C (OpenCLC).
func Builtins() []Source {
	return []Source{Kernels("paper", kernels.All()...), Kernels("suite", kernels.Suite()...), OpenCLC()}
}

// Program is the Source of a program's own kernels, named name, defined
// as the built-in ones are (kernels.Define). A definition that is not
// valid makes Main and Run fail with its error, before any verb runs.
func Program(name string, defs ...kernels.Def) Source {
	l := &list{name: name}
	for _, d := range defs {
		b, err := kernels.Define(d)
		if err != nil {
			l.err = err
			return l
		}
		l.ks = append(l.ks, b)
	}
	return l
}

// list is a Source of a list of kernels.
type list struct {
	name string
	ks   []*kernels.Benchmark
	err  error // a definition error of Program
}

func (l *list) Name() string                  { return l.name }
func (l *list) Kernels() []*kernels.Benchmark { return append([]*kernels.Benchmark(nil), l.ks...) }

func (l *list) Lookup(name string) (*kernels.Benchmark, error) {
	for _, b := range l.ks {
		if b.Name == name {
			return b, nil
		}
	}
	return nil, nil
}

// Main runs the command line of os.Args over the kernels of srcs and exits
// with its status: 0 for success, 1 for a failure, 2 for a usage error. It
// first serves as the tuner's worker if this process was started as one
// (runner.MaybeWorker).
func Main(srcs ...Source) {
	runner.MaybeWorker()
	os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr, srcs...))
}

// Run runs the command line args (without the program's name) over the
// kernels of srcs and returns the exit status. A program that tunes must
// have called runner.MaybeWorker (Main does).
func Run(args []string, stdout, stderr io.Writer, srcs ...Source) int {
	for _, s := range srcs {
		if l, ok := s.(*list); ok && l.err != nil {
			fmt.Fprintf(stderr, "hplopt: %v\n", l.err)
			return 2
		}
	}
	c := &command{sources: srcs}
	return c.run(args, stdout, stderr)
}

// command is one run of the command line: the kernels its verbs can name.
type command struct {
	sources []Source
}

// lookup returns the kernel called name; the error lists the names.
func (c *command) lookup(name string) (*kernels.Benchmark, error) {
	for _, s := range c.sources {
		b, err := s.Lookup(name)
		if err != nil || b != nil {
			return b, err
		}
	}
	return nil, fmt.Errorf("no kernel %q (%s)", name, c.names())
}

// names lists the kernels per source: "paper: matmul, ...; suite: mv, ...".
func (c *command) names() string {
	var parts []string
	for _, s := range c.sources {
		var names []string
		for _, b := range s.Kernels() {
			names = append(names, b.Name)
		}
		if len(names) > 0 {
			parts = append(parts, s.Name()+": "+strings.Join(names, ", "))
		}
	}
	if len(parts) == 0 {
		return "none known"
	}
	return strings.Join(parts, "; ")
}

// source returns the source called name, or nil.
func (c *command) source(name string) Source {
	for _, s := range c.sources {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// kernel resolves a verb's operands: one KERNEL.
func (c *command) kernel(operands []string) (*kernels.Benchmark, error) {
	switch {
	case len(operands) == 0:
		return nil, fmt.Errorf("no kernel given (%s)", c.names())
	case len(operands) > 1:
		return nil, fmt.Errorf("unexpected argument %q", operands[1])
	}
	return c.lookup(operands[0])
}
