// Package clc reads single-point kernels written in OpenCL C, the way
// people write them, into hplopt's kernel syntax tree (package ast):
//
//	__kernel void mxm(__global float *c, __global const float *a,
//	                  __global const float *b, int n, int k) {
//	    int row = get_global_id(1), col = get_global_id(0);
//	    if (row >= n || col >= n) return;
//	    float acc = 0.0f;
//	    for (int i = 0; i < k; i++)
//	        acc += a[row*k + i] * b[i*n + col];
//	    c[row*n + col] = acc;
//	}
//
// Parse converts the source as written: arrays stay one-dimensional with
// their linear subscripts. Load also recovers the arrays' dimensions with
// package delinear (a[row*k + i] becomes a[row][i] of extents [?][k]) and
// says, for each argument, what the command line needs to make data for
// it: its type, whether the kernel writes it and its extents as
// expressions over the scalar arguments and the global size.
//
// The C is parsed by modernc.org/cc/v4, with OpenCL's qualifiers and
// built-in functions declared by a prelude. The supported subset is one
// __kernel function with __global (or __constant) pointers to int, float
// or double and int, float or double scalars as arguments; the work-item
// functions (get_global_id, get_local_id, get_group_id, get_global_size,
// get_local_size, get_num_groups) with a constant dimension; private int,
// float and double variables and private arrays of constant extents;
// assignments (=, +=, -=, *=, /=, ++, --); counted for loops
// (for (int k = lo; k < hi; k++), <=, k += step); if and else, with early
// exits (if (i >= n) return;) at the top level of the kernel; arithmetic,
// comparisons, logical operators, casts to int, float and double, the
// conditional operator as the whole right side of an assignment, and these
// built-in functions: sqrt, rsqrt, cbrt, exp, exp2, exp10, expm1, log,
// log2, log10, log1p, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh,
// fabs, floor, ceil, round, trunc, pow, powr, atan2, fmin, fmax, fmod,
// hypot, copysign, fma, mad, their native_ forms (native_sqrt,
// native_rsqrt, native_exp, native_log, native_sin, native_cos,
// native_recip, native_divide, native_powr), and min, max and clamp.
// Anything else is an ErrorList of *Error naming the line, the column and
// the construct:
//
//	kernel.cl:7:12: pointer arithmetic is not supported: index the array
//	kernel.cl:4:5: while loops are not supported: write a counted for loop
//	kernel.cl:9:9: atomic_add is not supported
//
// A variable of an integer type that holds a work-item function and is
// never assigned (int i = get_global_id(0);, size_t too) becomes the
// predefined identifier (idx): the kernel reads as the DSL writes it. Such
// a size_t or uint is read as an int, as the DSL reads ids; the code
// generator declares ids as int.
package clc

import (
	"fmt"
	"go/token"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"modernc.org/cc/v4"

	"github.com/hplopt/hplopt/ast"
)

// Error is a construct outside the supported subset, or a C error, at a
// position of the source.
type Error struct {
	Pos token.Position // file name, line and column (1-based, in bytes)
	Msg string
}

func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		if e.Pos.Filename != "" {
			return e.Pos.Filename + ": " + e.Msg
		}
		return "clc: " + e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// ErrorList is the errors found in one source, in source order.
type ErrorList []*Error

// Error reports the first error and how many others there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "clc: no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Unwrap returns the errors, for errors.As.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

func (l ErrorList) sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// preludeName is the file name of the prelude in positions.
const preludeName = "<opencl>"

// Parse converts the one kernel of an OpenCL C source into a kernel
// syntax tree, with the kernel's body as its compute section and array
// subscripts as written (linear). filename names the source in errors.
// An error is an ErrorList of *Error.
func Parse(filename string, src []byte) (k *ast.Kernel, err error) {
	if filename == "" {
		filename = "kernel.cl"
	}
	defer func() {
		if r := recover(); r != nil {
			k, err = nil, ErrorList{{Pos: token.Position{Filename: filename}, Msg: fmt.Sprintf("internal error: %v", r)}}
		}
	}()
	abi, err := cc.NewABI("linux", "amd64")
	if err != nil {
		return nil, fmt.Errorf("clc: %v", err)
	}
	cfg := &cc.Config{ABI: abi, ExpansionLimit: 1 << 20, FSOnly: true, FS: emptyFS{}}
	tu, err := translate(cfg, filename, src)
	if err != nil {
		return nil, err
	}
	var kernels, others []*cc.FunctionDefinition
	var list ErrorList
	for l := tu.TranslationUnit; l != nil; l = l.TranslationUnit {
		ed := l.ExternalDeclaration
		if f := ed.Position().Filename; f == preludeName || f == endName {
			continue
		}
		switch ed.Case {
		case cc.ExternalDeclarationFuncDef:
			f := ed.FunctionDefinition
			if attrs(f.DeclarationSpecifiers)["kernel"] != nil {
				kernels = append(kernels, f)
			} else {
				others = append(others, f)
			}
		case cc.ExternalDeclarationDecl:
			if !isTypedef(ed.Declaration) {
				list = append(list, errorAt(ed, "declarations outside the kernel are not supported (use #define for constants)"))
			}
		case cc.ExternalDeclarationAsmStmt:
			list = append(list, errorAt(ed, "asm is not supported"))
		}
	}
	for _, f := range others {
		list = append(list, errorAt(f.Declarator, fmt.Sprintf("function %s is not a kernel: helper functions are not supported (inline it into the kernel)", f.Declarator.Name())))
	}
	switch {
	case len(kernels) == 0 && len(list) == 0:
		list = append(list, &Error{Pos: token.Position{Filename: filename}, Msg: "no __kernel function"})
	case len(kernels) > 1:
		first := kernels[0].Declarator.Position()
		for _, f := range kernels[1:] {
			list = append(list, errorAt(f.Declarator, fmt.Sprintf("more than one kernel (%s is the second; the first, %s, is at line %d)", f.Declarator.Name(), kernels[0].Declarator.Name(), first.Line)))
		}
	}
	if len(list) > 0 {
		list.sort()
		return nil, list
	}
	c := &converter{vars: map[*cc.Declarator]*variable{}, names: map[string]*variable{}, types: map[string]ast.Type{}, ranks: map[string]int{}}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stop); !ok {
					panic(r)
				}
			}
		}()
		c.function(kernels[0])
	}()
	if len(c.errs) > 0 {
		c.errs.sort()
		return nil, c.errs
	}
	return c.kernel, nil
}

// translate parses and type-checks the source after the prelude. The C
// front end appends to a []byte source in place, writing into the
// caller's memory past len(src): it gets a string. It can also panic on
// some malformed sources; that is reported as the source's error. And it
// loops forever when a source ends inside a declarator after a * (int *;
// at the end of a file): the declaration after the source (see end)
// stops it.
func translate(cfg *cc.Config, filename string, src []byte) (tu *cc.AST, err error) {
	defer func() {
		if r := recover(); r != nil {
			tu, err = nil, ErrorList{{Pos: token.Position{Filename: filename}, Msg: fmt.Sprintf("not valid C: the C parser failed on it (%v)", r)}}
		}
	}()
	tu, err = cc.Translate(cfg, []cc.Source{{Name: preludeName, Value: prelude}, {Name: filename, Value: string(src)}, {Name: endName, Value: end}})
	if err != nil {
		return nil, cErrors(filename, src, err)
	}
	return tu, nil
}

// isTypedef reports whether a file-scope declaration is a typedef, which
// the kernel may use (typedef float real;).
func isTypedef(d *cc.Declaration) bool {
	s := d.DeclarationSpecifiers
	return d.Case == cc.DeclarationDecl && s != nil && s.Case == cc.DeclarationSpecifiersStorage &&
		s.StorageClassSpecifier.Case == cc.StorageClassSpecifierTypedef
}

func errorAt(n cc.Node, msg string) *Error {
	p := n.Position()
	return &Error{Pos: token.Position{Filename: p.Filename, Offset: p.Offset, Line: p.Line, Column: p.Column}, Msg: msg}
}

// cErrorLine is one message of the C front end: position and text, with
// the front end's own source location in parentheses at the end.
var (
	cErrorLine = regexp.MustCompile(`^(.*?):(\d+):(\d+): (.*?)(?: \([A-Za-z0-9_]+\.go:\d+:[^)]*\))?$`)
	cOrigin    = regexp.MustCompile(` \([A-Za-z0-9_]+\.go:\d+:[^)]*\)$`)
)

// cErrors converts the C front end's errors (the source is not valid C)
// into an ErrorList. An error in the declaration after the source is the
// source ending too early.
func cErrors(filename string, src []byte, err error) ErrorList {
	var list ErrorList
	for _, line := range strings.Split(err.Error(), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "TODO") {
			continue
		}
		if m := cErrorLine.FindStringSubmatch(line); m != nil {
			ln, _ := strconv.Atoi(m[2])
			col, _ := strconv.Atoi(m[3])
			e := &Error{Pos: token.Position{Filename: m[1], Line: ln, Column: col}, Msg: m[4]}
			if m[1] == endName {
				lines := strings.Split(string(src), "\n")
				e = &Error{Pos: token.Position{Filename: filename, Line: len(lines), Column: len(lines[len(lines)-1]) + 1}, Msg: "unexpected end of the source (unbalanced parentheses or braces?)"}
				if len(list) > 0 && list[len(list)-1].Msg == e.Msg {
					continue
				}
			}
			list = append(list, e)
			continue
		}
		list = append(list, &Error{Pos: token.Position{Filename: filename}, Msg: "not valid C: " + cOrigin.ReplaceAllString(line, "")})
	}
	if len(list) == 0 {
		list = append(list, &Error{Pos: token.Position{Filename: filename}, Msg: err.Error()})
	}
	if len(list) > maxErrors {
		list = list[:maxErrors]
	}
	list.sort()
	return list
}

// emptyFS is the file system #include searches: a kernel includes nothing.
type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}
