package clc_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/clc"
	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/opencl"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/clc")

const goldenDir = "../testdata/clc"

// A golden case is testdata/clc/NAME.txtar: its comment describes the
// kernel and gives its launch (global: X,Y,Z and args: NAME=VALUE ...,
// optionally shape: NAME=AxB); kernel.cl is the OpenCL C; kernel.ast the
// delinearized kernel as ast.Fprint prints it; args the arguments as
// clc.Arg.String describes them; kernel.gen.cl the OpenCL that code
// generation prints for the delinearized kernel at that launch.
type golden struct {
	name    string
	file    string
	archive *txtar.Archive
	opts    clc.Options
}

func loadGolden(t *testing.T) []*golden {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files in %s: %v", goldenDir, err)
	}
	var out []*golden
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g := &golden{name: strings.TrimSuffix(filepath.Base(f), ".txtar"), file: f, archive: ar}
		for _, line := range strings.Split(string(ar.Comment), "\n") {
			key, val, _ := strings.Cut(line, ":")
			set := map[string]func(string) error{"global": g.opts.SetGlobal, "args": g.opts.SetArg, "shape": g.opts.SetShape}[key]
			if set == nil {
				continue
			}
			for _, f := range strings.Fields(val) {
				if err := set(f); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
			}
		}
		out = append(out, g)
	}
	return out
}

func (g *golden) get(t *testing.T, name string) []byte {
	t.Helper()
	for _, f := range g.archive.Files {
		if f.Name == name {
			return f.Data
		}
	}
	if !*update {
		t.Fatalf("%s has no %s", g.file, name)
	}
	return nil
}

func (g *golden) load(t *testing.T) *clc.Kernel {
	t.Helper()
	k, err := clc.Load(g.name+".cl", g.get(t, "kernel.cl"), g.opts)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// outputs renders what the golden files pin.
func outputs(t *testing.T, k *clc.Kernel) map[string]string {
	t.Helper()
	var args strings.Builder
	for _, a := range k.Args {
		fmt.Fprintln(&args, a)
	}
	_, del, err := k.Specialize()
	if err != nil {
		t.Fatal(err)
	}
	src, err := codegen.Source(del)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"kernel.ast": ast.String(k.AST) + "\n", "args": args.String(), "kernel.gen.cl": src}
}

// TestGolden parses and delinearizes each kernel of testdata/clc and
// compares the printed kernel, its arguments' extents and the generated
// OpenCL with the golden files. go test ./clc -run Golden -update rewrites
// them; read the diff.
func TestGolden(t *testing.T) {
	for _, g := range loadGolden(t) {
		t.Run(g.name, func(t *testing.T) {
			got := outputs(t, g.load(t))
			if *update {
				ar := &txtar.Archive{Comment: g.archive.Comment, Files: []txtar.File{{Name: "kernel.cl", Data: g.get(t, "kernel.cl")}}}
				for _, name := range []string{"kernel.ast", "args", "kernel.gen.cl"} {
					ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(got[name])})
				}
				if err := os.WriteFile(g.file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, name := range []string{"kernel.ast", "args", "kernel.gen.cl"} {
				if want := string(g.get(t, name)); got[name] != want {
					t.Errorf("%s differs (run with -update and read the diff)\n--- got:\n%s--- want:\n%s", name, got[name], want)
				}
			}
		})
	}
}

func session(t *testing.T) *opencl.Session {
	t.Helper()
	s, err := opencl.Open("")
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestRunMatchesSource runs each golden kernel as written (its OpenCL C
// built directly) and as parsed, delinearized and printed by code
// generation, on the same random inputs, and compares every array after
// the run: the parse is faithful. Both kernels are built in one program.
func TestRunMatchesSource(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program per kernel on the device")
	}
	s := session(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, g := range loadGolden(t) {
		t.Run(g.name, func(t *testing.T) {
			k := g.load(t)
			_, del, err := k.Specialize()
			if err != nil {
				t.Fatal(err)
			}
			del.Name += "_parsed"
			src, err := codegen.Source(del)
			if err != nil {
				t.Fatal(err)
			}
			prog, err := clc.Build(s, string(k.Source)+"\n"+src)
			if err != nil {
				t.Fatal(err)
			}
			defer prog.Close()
			shapes, err := k.Shapes()
			if err != nil {
				t.Fatal(err)
			}
			want, err := clc.Inputs(k.Parsed, shapes, g.opts.Args, rng)
			if err != nil {
				t.Fatal(err)
			}
			got := clc.Copy(want)
			if _, err := prog.Run(k.Name, want, g.opts.Global, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := prog.Run(del.Name, got, g.opts.Global, nil); err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
			if err := clc.Compare(k.Parsed, want, got, 1e-5); err != nil {
				t.Errorf("%v\n%s", err, src)
			}
			if !bytes.Equal(k.Source, g.get(t, "kernel.cl")) {
				t.Error("Load changed the source it keeps")
			}
		})
	}
}
