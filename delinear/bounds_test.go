package delinear_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/clc"
)

// bounds runs the integer part of a kernel whose arrays have extents, for
// every work-item of a small launch, and checks that every subscript of a
// multi-dimensional array argument stays within its extent: what the
// delinearization claims of the rows it makes. Conditions it cannot
// evaluate (they read data) take both branches.
type bounds struct {
	k       *ast.Kernel
	global  []int
	values  map[string]int64
	checked int
	errs    []string
}

func (b *bounds) eval(e ast.Expr, env map[string]int64) (int64, bool) {
	switch e := e.(type) {
	case *ast.IntLit:
		return e.Value, true
	case *ast.Ident:
		v, ok := env[e.Name]
		return v, ok
	case *ast.Special:
		v, ok := env[e.Name()]
		return v, ok
	case *ast.Cast:
		if e.Type == ast.Int {
			return b.eval(e.X, env)
		}
	case *ast.Unary:
		x, ok := b.eval(e.X, env)
		if !ok {
			return 0, false
		}
		if e.Op == ast.Neg {
			return -x, true
		}
		return map[bool]int64{true: 1, false: 0}[x == 0], true
	case *ast.Call:
		if len(e.Args) == 2 && (e.Func == "min" || e.Func == "max") {
			x, ok1 := b.eval(e.Args[0], env)
			y, ok2 := b.eval(e.Args[1], env)
			if e.Func == "min" {
				return min(x, y), ok1 && ok2
			}
			return max(x, y), ok1 && ok2
		}
	case *ast.Binary:
		x, ok1 := b.eval(e.X, env)
		y, ok2 := b.eval(e.Y, env)
		if !ok1 || !ok2 {
			return 0, false
		}
		truth := func(c bool) (int64, bool) { return map[bool]int64{true: 1, false: 0}[c], true }
		switch e.Op {
		case ast.Add:
			return x + y, true
		case ast.Sub:
			return x - y, true
		case ast.Mul:
			return x * y, true
		case ast.Div:
			if y != 0 {
				return x / y, true
			}
		case ast.Rem:
			if y != 0 {
				return x % y, true
			}
		case ast.Lt:
			return truth(x < y)
		case ast.Le:
			return truth(x <= y)
		case ast.Gt:
			return truth(x > y)
		case ast.Ge:
			return truth(x >= y)
		case ast.Eq:
			return truth(x == y)
		case ast.Ne:
			return truth(x != y)
		case ast.And:
			return truth(x != 0 && y != 0)
		case ast.Or:
			return truth(x != 0 || y != 0)
		}
	}
	return 0, false
}

// refs checks the array references in e.
func (b *bounds) refs(e ast.Expr, env map[string]int64) {
	ast.Inspect(e, func(n ast.Node) bool {
		ix, ok := n.(*ast.Index)
		if !ok {
			return true
		}
		p := b.k.Param(ix.Array)
		if p == nil || p.Rank < 2 {
			return true
		}
		for d, i := range ix.Indices {
			v, ok := b.eval(i, env)
			if !ok {
				continue
			}
			b.checked++
			// The outermost extent is an upper bound too.
			if v < 0 || v >= int64(p.Extents[d]) {
				if len(b.errs) < 5 {
					b.errs = append(b.errs, fmt.Sprintf("%s: subscript %d is %d, outside [0, %d) at %v", ast.ExprString(ix), d, v, p.Extents[d], env))
				}
			}
		}
		return true
	})
}

func (b *bounds) block(list []ast.Stmt, env map[string]int64) {
	for _, s := range list {
		b.stmt(s, env)
	}
}

func (b *bounds) stmt(s ast.Stmt, env map[string]int64) {
	switch s := s.(type) {
	case *ast.Decl:
		if s.Init != nil {
			b.refs(s.Init, env)
		}
		delete(env, s.Name)
		if s.Type == ast.Int && s.Init != nil {
			if v, ok := b.eval(s.Init, env); ok {
				env[s.Name] = v
			}
		}
	case *ast.Assign:
		b.refs(s.RHS, env)
		b.refs(s.LHS, env)
		if id, ok := s.LHS.(*ast.Ident); ok {
			old, known := env[id.Name]
			v, ok := b.eval(s.RHS, env)
			delete(env, id.Name)
			if !ok || !known && s.Op != ast.Set {
				return
			}
			switch s.Op {
			case ast.Set:
				env[id.Name] = v
			case ast.AddSet:
				env[id.Name] = old + v
			case ast.SubSet:
				env[id.Name] = old - v
			case ast.MulSet:
				env[id.Name] = old * v
			}
		}
	case *ast.Block:
		b.block(s.List, env)
	case *ast.Compute:
		b.block(s.Body.List, env)
	case *ast.If:
		b.refs(s.Cond, env)
		c, ok := b.eval(s.Cond, env)
		if !ok || c != 0 {
			b.block(s.Then.List, maps.Clone(env))
		}
		if s.Else != nil && (!ok || c == 0) {
			b.block(s.Else.List, maps.Clone(env))
		}
	case *ast.For:
		lo, ok1 := b.eval(s.Lo, env)
		hi, ok2 := b.eval(s.Hi, env)
		step, ok3 := b.eval(s.Step, env)
		if !ok1 || !ok2 || !ok3 || step <= 0 {
			b.errs = append(b.errs, "cannot run "+ast.ExprString(s.Hi))
			return
		}
		for v := lo; v < hi; v += step {
			inner := maps.Clone(env)
			inner[s.Var] = v
			b.block(s.Body.List, inner)
		}
	}
}

func (b *bounds) run() {
	g := append(append([]int(nil), b.global...), 1, 1, 1)[:3]
	for z := 0; z < g[2]; z++ {
		for y := 0; y < g[1]; y++ {
			for x := 0; x < g[0]; x++ {
				env := maps.Clone(b.values)
				for d, v := range []int{x, y, z} {
					env[(&ast.Special{Kind: ast.GlobalID, Dim: d}).Name()] = int64(v)
					env[(&ast.Special{Kind: ast.GlobalSize, Dim: d}).Name()] = int64(g[d])
				}
				b.block(b.k.Body.List, env)
			}
		}
	}
}

// TestInBounds loads each golden OpenCL C kernel at its launch and checks
// that, for every work-item, the subscripts of its delinearized arrays
// stay within the extents found.
func TestInBounds(t *testing.T) {
	files, err := filepath.Glob("../testdata/clc/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden kernels: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var opts clc.Options
			var src []byte
			for _, line := range strings.Split(string(ar.Comment), "\n") {
				key, val, _ := strings.Cut(line, ":")
				set := map[string]func(string) error{"global": opts.SetGlobal, "args": opts.SetArg, "shape": opts.SetShape}[key]
				for _, v := range strings.Fields(val) {
					if set != nil {
						if err := set(v); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			for _, fl := range ar.Files {
				if fl.Name == "kernel.cl" {
					src = fl.Data
				}
			}
			k, err := clc.Load(f, src, opts)
			if err != nil {
				t.Fatal(err)
			}
			_, del, err := k.Specialize()
			if err != nil {
				t.Fatal(err)
			}
			values := map[string]int64{}
			for name, v := range opts.Args {
				values[name] = int64(v)
			}
			b := &bounds{k: del, global: opts.Global, values: values}
			b.run()
			for _, e := range b.errs {
				t.Error(e)
			}
			multi := false
			for _, p := range del.Params {
				multi = multi || p.Rank > 1
			}
			if multi && b.checked == 0 {
				t.Error("no subscript was checked")
			}
		})
	}
}

// TestBoundsCatches checks the checker: a[i][k + 1] in rows of n leaves
// its row.
func TestBoundsCatches(t *testing.T) {
	k, err := clc.Parse("k.cl", []byte(`__kernel void g(__global float *a, int n) {
		int i = get_global_id(0);
		for (int k = 0; k < n; k++) a[i*n + k + 1] = 0.0f;
	}`))
	if err != nil {
		t.Fatal(err)
	}
	a := k.Param("a")
	a.Rank, a.Extents = 2, []int{5, 4}
	ast.Inspect(k.Body, func(n ast.Node) bool {
		if ix, ok := n.(*ast.Index); ok {
			ix.Indices = []ast.Expr{&ast.Special{Kind: ast.GlobalID}, ast.Sum(ast.Id("k"), ast.IntConst(1))}
		}
		return true
	})
	b := &bounds{k: k, global: []int{4}, values: map[string]int64{"n": 4}}
	if b.run(); len(b.errs) == 0 {
		t.Errorf("no error in %d checks of\n%s", b.checked, ast.String(k))
	}
}
