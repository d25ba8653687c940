package clc

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/delinear"
)

// Options are what Load knows beyond the source, as the command line gives
// it (--global, --arg, --shape; the Set methods read those flags). The zero
// value works: extents stay symbolic, and subscripts whose delinearization
// needs the sizes stay linear.
type Options struct {
	// Global is the global size, x first; default none.
	Global []int
	// Args are values of scalar arguments, by name; default none. An int
	// argument's value must be a whole number.
	Args map[string]float64
	// Shapes are array extents, slowest first, by array name: they
	// override the inferred ones (see delinear.Options.Shapes); default
	// none.
	Shapes map[string][]int
}

// SetGlobal reads a global size, X[,Y[,Z]], as --global gives it.
func (o *Options) SetGlobal(s string) error {
	o.Global = nil
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("global size %q: want 1 to 3 positive integers separated by commas, as in 1024,512", s)
		}
		o.Global = append(o.Global, n)
	}
	if len(o.Global) > 3 {
		return fmt.Errorf("global size %q has %d dimensions; kernels have 1 to 3", s, len(o.Global))
	}
	return nil
}

// SetArg reads a scalar argument's value, NAME=VALUE, as --arg gives it.
func (o *Options) SetArg(s string) error {
	name, val, ok := strings.Cut(s, "=")
	v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
	if !ok || name == "" || err != nil {
		return fmt.Errorf("argument %q: want NAME=VALUE, as in n=1024 or alpha=1.5", s)
	}
	if o.Args == nil {
		o.Args = map[string]float64{}
	}
	o.Args[strings.TrimSpace(name)] = v
	return nil
}

// SetShape reads an array's shape, NAME=AxB[xC] (slowest first), as
// --shape gives it.
func (o *Options) SetShape(s string) error {
	name, dims, ok := strings.Cut(s, "=")
	bad := fmt.Errorf("shape %q: want NAME=AxB, extents slowest first, as in a=1024x512", s)
	if !ok || name == "" {
		return bad
	}
	var shape []int
	for _, f := range strings.Split(dims, "x") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return bad
		}
		shape = append(shape, n)
	}
	if o.Shapes == nil {
		o.Shapes = map[string][]int{}
	}
	o.Shapes[strings.TrimSpace(name)] = shape
	return nil
}

// values checks the scalar values against kernel k's arguments and
// returns the environment extents are evaluated in: the int scalars, and
// the global size under its predefined names.
func (o Options) values(k *ast.Kernel) (map[string]int64, error) {
	out := map[string]int64{}
	for name, v := range o.Args {
		p := k.Param(name)
		switch {
		case p == nil || p.Rank > 0:
			return nil, fmt.Errorf("clc: kernel %s has no scalar argument %s", k.Name, name)
		case p.Type != ast.Int:
			continue
		case v != math.Trunc(v) || v < math.MinInt32 || v > math.MaxInt32:
			return nil, fmt.Errorf("clc: kernel %s: the int argument %s cannot be %v", k.Name, name, v)
		}
		out[name] = int64(v)
	}
	for d, g := range o.Global {
		out[(&ast.Special{Kind: ast.GlobalSize, Dim: d}).Name()] = int64(g)
	}
	return out, nil
}

// Kernel is a kernel loaded from OpenCL C.
type Kernel struct {
	Name string
	// Source is the OpenCL C as written: run it with Run to get the
	// reference results.
	Source []byte
	// Parsed is the kernel as written, its arrays one-dimensional.
	Parsed *ast.Kernel
	// AST is the delinearized kernel, the optimizer's input.
	AST *ast.Kernel
	// Args describes the arguments, in order.
	Args []Arg

	values map[string]int64
	result *delinear.Result
}

// Arg describes one kernel argument.
type Arg struct {
	Name  string
	Type  ast.Type // element type of an array
	Array bool
	Mem   ast.Mem // Global or Constant, for an array
	// Read and Written say whether the kernel reads and assigns the
	// array's elements (a written array is an output).
	Read, Written bool
	// Rank is the array's number of dimensions in AST.
	Rank int
	// Extents are the array's extents in AST, slowest first, as
	// expressions over the int scalar arguments and the global size
	// (szx, szy, szz); a nil entry is unknown and needs a shape.
	Extents []ast.Expr
	// Linear says why an array with linearized subscripts keeps them.
	Linear string
}

// Load parses an OpenCL C kernel (see Parse), delinearizes its arrays (see
// package delinear) with what opts knows, and describes its arguments.
func Load(filename string, src []byte, opts Options) (*Kernel, error) {
	parsed, err := Parse(filename, src)
	if err != nil {
		return nil, err
	}
	values, err := opts.values(parsed)
	if err != nil {
		return nil, err
	}
	res, err := delinear.Delinearize(parsed, delinear.Options{Values: values, Shapes: opts.Shapes})
	if err != nil {
		return nil, err
	}
	k := &Kernel{Name: parsed.Name, Source: append([]byte(nil), src...), Parsed: parsed, AST: res.Kernel, values: values, result: res}
	read, written := ast.Accesses(res.Kernel)
	for _, p := range res.Kernel.Params {
		a := Arg{Name: p.Name, Type: p.Type, Array: p.Rank > 0, Mem: p.Mem, Rank: p.Rank}
		if a.Array {
			arr := res.Array(p.Name)
			a.Read, a.Written = read[p.Name], written[p.Name]
			a.Extents, a.Linear = arr.Extents, arr.Linear
		}
		k.Args = append(k.Args, a)
	}
	return k, nil
}

// Shapes evaluates the extents of every array with the values Load was
// given: the dimensions to make its data with, slowest first.
func (k *Kernel) Shapes() (map[string][]int, error) { return k.result.Shapes(k.values) }

// Specialize returns the parsed and the delinearized kernels with every
// array's extents set from Shapes, ready for code generation: the parsed
// kernel's arrays are flat, of the product of the extents.
func (k *Kernel) Specialize() (parsed, delinearized *ast.Kernel, err error) {
	shapes, err := k.Shapes()
	if err != nil {
		return nil, nil, err
	}
	parsed, delinearized = ast.Clone(k.Parsed), ast.Clone(k.AST)
	for _, p := range delinearized.Params {
		if p.Rank > 0 {
			p.Extents = append([]int(nil), shapes[p.Name]...)
		}
	}
	for _, p := range parsed.Params {
		if p.Rank > 0 {
			n := 1
			for _, e := range shapes[p.Name] {
				n *= e
			}
			p.Extents = []int{n}
		}
	}
	return parsed, delinearized, nil
}

// String describes the argument in one line, as hplopt prints it:
//
//	a  global float[m][p]  read
//	n  int
//
// with ? for an unknown extent and, for an array kept linear, the reason.
func (a Arg) String() string {
	if !a.Array {
		return a.Name + "  " + a.Type.CName()
	}
	s := a.Name + "  " + a.Mem.String() + " " + a.Type.CName()
	for _, e := range a.Extents {
		if e == nil {
			s += "[?]"
		} else {
			s += "[" + ast.ExprString(e) + "]"
		}
	}
	switch {
	case a.Read && a.Written:
		s += "  read, written"
	case a.Written:
		s += "  written"
	case a.Read:
		s += "  read"
	default:
		s += "  unused"
	}
	if a.Linear != "" {
		s += "  (linear: " + a.Linear + ")"
	}
	return s
}
