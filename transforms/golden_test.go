package transforms_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/transforms"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/transforms")

// TestGolden pins the generated OpenCL for settings that reproduce the
// shapes of the paper's figures. Each file's comment holds the problem
// ("matmul m n k") and the parameters; kernel.cl holds the expected source.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("../testdata/transforms/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var prob *transforms.Problem
			var p transforms.Params
			for _, line := range strings.Split(string(ar.Comment), "\n") {
				f := strings.Fields(line)
				switch {
				case len(f) == 4 && f[0] == "matmul":
					n := make([]int, 3)
					for i := range n {
						n[i], _ = strconv.Atoi(f[i+1])
					}
					prob = matmulProblem(n[0], n[1], n[2])
				case len(f) == 2 && f[0] == "params":
					if err := transforms.ParseParams(f[1], &p); err != nil {
						t.Fatal(err)
					}
				}
			}
			if prob == nil {
				t.Fatal("no problem line in the comment")
			}
			v, err := transforms.Apply(prob, p)
			if err != nil {
				t.Fatal(err)
			}
			if err := transforms.Check(v.Kernel, prob.LocalMem); err != nil {
				t.Fatal(err)
			}
			src, err := codegen.Source(v.Kernel)
			if err != nil {
				t.Fatal(err)
			}
			got := []byte(src)
			for i := range ar.Files {
				if ar.Files[i].Name != "kernel.cl" {
					continue
				}
				if *update {
					ar.Files[i].Data = got
					if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				if !bytes.Equal(ar.Files[i].Data, got) {
					t.Errorf("generated source differs from %s (run go test ./transforms -run Golden -update and read the diff):\n%s", file, got)
				}
				return
			}
			t.Fatal("no kernel.cl in the file")
		})
	}
}

// TestNoMutation checks that Apply works on a clone: the caller's kernel is
// unchanged.
func TestNoMutation(t *testing.T) {
	prob := matmulProblem(32, 32, 32)
	before := ast.String(prob.Kernel)
	var p transforms.Params
	transforms.ParseParams("szx=16,szy=16,lszx=8,lszy=8,bszx=2,bszy=2,tw0=8,uf=2,lmem=1,fullunroll=1", &p)
	if _, err := transforms.Apply(prob, p); err != nil {
		t.Fatal(err)
	}
	if after := ast.String(prob.Kernel); after != before {
		t.Errorf("Apply changed the input kernel:\n%s\nwas\n%s", after, before)
	}
}
