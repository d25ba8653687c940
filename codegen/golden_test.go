package codegen_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/codegen")

const goldenDir = "../testdata/codegen"

// source generates the OpenCL of benchmark b's single-point kernel,
// specialized for its tiny size.
func source(t *testing.T, b *kernels.Benchmark) string {
	t.Helper()
	inst, err := b.Instance(b.Sizes["tiny"], 1)
	if err != nil {
		t.Fatal(err)
	}
	k, err := hpl.Specialize(b.Kernel, inst.Args...)
	if err != nil {
		t.Fatal(err)
	}
	src, err := codegen.Source(k)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func comment(b *kernels.Benchmark) string {
	return fmt.Sprintf("%s (%s) at size tiny: %s\n", b.Name, b.Paper, b.Sizes["tiny"])
}

// TestGoldenKernels pins the OpenCL of the eight single-point kernels at
// their tiny sizes: testdata/codegen/<name>.txtar holds the kernel and size
// in its comment and the expected source in kernel.cl. Run
// go test ./codegen -run GoldenKernels -update to rewrite them, and read the
// diff.
func TestGoldenKernels(t *testing.T) {
	for _, b := range kernels.All() {
		t.Run(b.Name, func(t *testing.T) {
			file := filepath.Join(goldenDir, b.Name+".txtar")
			got := source(t, b)
			if *update {
				ar := &txtar.Archive{Comment: []byte(comment(b)), Files: []txtar.File{{Name: "kernel.cl", Data: []byte(got)}}}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatalf("%v (run go test ./codegen -run GoldenKernels -update to create it)", err)
			}
			if c := string(ar.Comment); c != comment(b) {
				t.Errorf("%s: comment %q, want %q (the tiny size changed? run with -update)", file, c, comment(b))
			}
			if len(ar.Files) != 1 || ar.Files[0].Name != "kernel.cl" {
				t.Fatalf("%s: want exactly one file, kernel.cl", file)
			}
			if want := string(ar.Files[0].Data); got != want {
				t.Errorf("generated source differs from %s (run go test ./codegen -run GoldenKernels -update and read the diff):\n%s", file, lineDiff(want, got))
			}
		})
	}
	// Every golden file belongs to a benchmark.
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	names := map[string]bool{}
	for _, n := range kernels.Names() {
		names[n] = true
	}
	for _, f := range files {
		if n := strings.TrimSuffix(filepath.Base(f), ".txtar"); !names[n] {
			t.Errorf("%s: no benchmark called %s", f, n)
		}
	}
}

// lineDiff shows the first differing line of two sources, with context.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n\twant %q\n\tgot  %q\n\ngot source:\n%s", i+1, wl, gl, got)
		}
	}
	return "(sources differ only in line endings)"
}

// TestDeterministic checks that the same kernel and sizes give
// byte-identical source, run after run, from independently made instances.
func TestDeterministic(t *testing.T) {
	for _, b := range kernels.All() {
		first := source(t, b)
		for i := 0; i < 3; i++ {
			if again := source(t, b); !bytes.Equal([]byte(first), []byte(again)) {
				t.Fatalf("%s: source differs between runs:\n%s", b.Name, lineDiff(first, again))
			}
		}
	}
}
