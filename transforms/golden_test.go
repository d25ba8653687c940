package transforms_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/transforms"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/transforms")

const goldenDir = "../testdata/transforms"

// figures holds the golden files of the whole pipeline that reproduce the
// shapes of the paper's figures; every other directory of goldenDir is
// named after the pass whose effect its files show.
const figures = "figures"

// The sections of a golden file.
const (
	inputFile  = "input.cl"  // the single-point kernel, as codegen prints it
	outputFile = "output.cl" // the variant Apply makes
	errorFile  = "error"     // or the error that rejects the setting
	beforeFile = "before.cl" // optional: the variant made without the directory's pass
)

// TestGolden pins the OpenCL the passes generate. Each file of
// testdata/transforms/<pass>/ shows the effect of one pass, with a setting
// chosen so that, as far as the pass's requirements allow, it is the only
// one that acts; testdata/transforms/figures/ holds the paper's figures.
//
// A file's comment describes the case and holds two lines: the problem,
// either "matmul M N K" (the paper's Figure 3 kernel, mxm, for
// c[N][M] = a[N][K] * b[K][M]) or "kernel NAME SIZE" (a benchmark or a
// suite kernel of package kernels at a size class such as tiny, or at
// n=AxB k=C) or "test NAME" (a kernel of this package's tests, testKernels),
// and "params name=value,...", a partial setting completed by
// transforms.Complete. Its sections are input.cl, the single-point kernel;
// output.cl, the variant, or error, the reason the setting is illegal; and
// optionally before.cl, the variant made by the pipeline without the pass
// (for a pass that no other pass requires). The invariants are checked after
// every pass. Run go test ./transforms -run Golden -update to rewrite the
// sections from the code, and read the diff.
func TestGolden(t *testing.T) {
	dirs, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	passes := map[string]bool{}
	for _, p := range transforms.Pipeline {
		passes[p.Name] = true
	}
	cases := map[string]int{}
	for _, dir := range dirs {
		name := dir.Name()
		if !dir.IsDir() || (name != figures && !passes[name]) {
			t.Errorf("%s/%s: want a directory named after a pass or %s", goldenDir, name, figures)
			continue
		}
		files, _ := filepath.Glob(filepath.Join(goldenDir, name, "*.txtar"))
		for _, file := range files {
			cases[name]++
			t.Run(name+"/"+strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
				golden(t, file, name)
			})
		}
	}
	for _, p := range transforms.Pipeline {
		if cases[p.Name] < 2 {
			t.Errorf("pass %s has %d golden files in %s/%s; want at least 2", p.Name, cases[p.Name], goldenDir, p.Name)
		}
	}
}

// golden checks one golden file of the directory dir.
func golden(t *testing.T, file, dir string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	prob, p := goldenCase(t, ar.Comment)
	input, err := codegen.Source(prob.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	v, err := transforms.ApplyChecked(prob, p)
	var output, errText string
	if err != nil {
		errText = err.Error() + "\n"
	} else {
		if output, err = codegen.Source(v.Kernel); err != nil {
			t.Fatal(err)
		}
		if again, _ := applySource(prob, p); again != output {
			t.Fatalf("Apply and ApplyChecked differ:\n%s\n%s", again, output)
		}
	}
	want := map[string]string{inputFile: input}
	if errText != "" {
		want[errorFile] = errText
	} else {
		want[outputFile] = output
	}
	if section(ar, beforeFile) != nil {
		v, err := transforms.ApplyWithout(prob, p, dir)
		if err != nil {
			t.Fatalf("%s: %v", beforeFile, err)
		}
		if want[beforeFile], err = codegen.Source(v.Kernel); err != nil {
			t.Fatal(err)
		}
	}
	if *update {
		var files []txtar.File
		for _, name := range []string{inputFile, outputFile, errorFile, beforeFile} {
			if data, ok := want[name]; ok {
				files = append(files, txtar.File{Name: name, Data: []byte(data)})
			}
		}
		ar.Files = files
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, f := range ar.Files {
		if _, ok := want[f.Name]; !ok {
			t.Errorf("%s: unexpected section %s", file, f.Name)
		}
	}
	for _, name := range []string{inputFile, outputFile, errorFile, beforeFile} {
		w, ok := want[name]
		if !ok {
			continue
		}
		got := section(ar, name)
		switch {
		case got == nil:
			t.Errorf("%s: no section %s; want\n%s", file, name, w)
		case !bytes.Equal(got, []byte(w)):
			t.Errorf("%s: %s differs from the code (run go test ./transforms -run Golden -update and read the diff): %s; from the code:\n%s", file, name, firstDiff(string(got), w), w)
		}
	}
}

// section returns the data of the section called name, or nil.
func section(ar *txtar.Archive, name string) []byte {
	for _, f := range ar.Files {
		if f.Name == name {
			return append([]byte{}, f.Data...)
		}
	}
	return nil
}

// firstDiff says where two texts first differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d is %q in the file, %q from the code", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("the file has %d lines, the code %d", len(al), len(bl))
}

// goldenCase reads the problem and the setting from a golden file's
// comment.
func goldenCase(t *testing.T, comment []byte) (*transforms.Problem, transforms.Params) {
	t.Helper()
	var prob *transforms.Problem
	var params string
	for _, line := range strings.Split(string(comment), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 4 && f[0] == "matmul":
			n := make([]int, 3)
			for i := range n {
				var err error
				if n[i], err = strconv.Atoi(f[i+1]); err != nil {
					t.Fatalf("%q: %v", line, err)
				}
			}
			prob = matmulProblem(n[0], n[1], n[2])
		case len(f) >= 3 && f[0] == "kernel":
			b, err := kernels.Find(f[1])
			if err != nil {
				t.Fatal(err)
			}
			prob = benchProblem(t, b, goldenSize(t, b, f[2:]))
		case len(f) == 2 && f[0] == "test":
			mk, ok := testKernels[f[1]]
			if !ok {
				t.Fatalf("no test kernel %q", f[1])
			}
			prob = mk()
		case len(f) == 2 && f[0] == "params":
			params = f[1]
		}
	}
	if prob == nil {
		t.Fatal(`no problem in the comment: want a line "matmul M N K", "kernel NAME SIZE" or "test NAME"`)
	}
	_, p := completed(t, prob, params)
	return prob, p
}

// goldenSize reads a size class ("tiny") or "n=AxB k=C".
func goldenSize(t *testing.T, b *kernels.Benchmark, f []string) kernels.Size {
	t.Helper()
	if len(f) == 1 && !strings.Contains(f[0], "=") {
		s, err := b.ParseSize(f[0], nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var n, k []int
	for _, kv := range f {
		name, vals, _ := strings.Cut(kv, "=")
		var list []int
		for _, v := range strings.Split(vals, "x") {
			x, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("size %q: %v", kv, err)
			}
			list = append(list, x)
		}
		switch name {
		case "n":
			n = list
		case "k":
			k = list
		default:
			t.Fatalf("size %q: want n=AxB or k=C", kv)
		}
	}
	s, err := b.ParseSize("", n, k)
	if err != nil {
		t.Fatal(err)
	}
	return s
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
