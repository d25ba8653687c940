package patterns_test

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/patterns"
)

var update = flag.Bool("update", false, "rewrite testdata/patterns/tables.txtar")

const golden = "../testdata/patterns/tables.txtar"

// TestTables pins the printed table of every benchmark and of the small
// kernels of these tests, one file of the archive per kernel. Run
// go test ./patterns -run Tables -update and read the diff after a change.
func TestTables(t *testing.T) {
	got := &txtar.Archive{Comment: []byte("The access-pattern tables of patterns.Fprint, one per kernel: the eight\nbenchmarks, the small kernels of patterns/cases_test.go and some of the\nsuite's, then some of those analysed with Settings (int argument values,\ntriangular loops).\n")}
	for _, b := range kernels.All() {
		got.Files = append(got.Files, txtar.File{Name: b.Name, Data: []byte(analyze(t, b.Kernel).String())})
	}
	for _, k := range append(dslKernels, suiteKernels...) {
		got.Files = append(got.Files, txtar.File{Name: k.Name(), Data: []byte(analyze(t, k).String())})
	}
	for _, v := range settled {
		got.Files = append(got.Files, txtar.File{Name: v.name, Data: []byte(analyzeWith(t, v.k, v.set).String())})
	}
	if *update {
		if err := os.WriteFile(golden, txtar.Format(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := txtar.ParseFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range want.Files {
		files[f.Name] = f.Data
	}
	for _, f := range got.Files {
		w, ok := files[f.Name]
		switch {
		case !ok:
			t.Errorf("%s: no table in %s (run with -update)", f.Name, golden)
		case !bytes.Equal(w, f.Data):
			t.Errorf("%s: the table differs from %s (run with -update and read the diff):\n%s", f.Name, golden, f.Data)
		}
		delete(files, f.Name)
	}
	for name := range files {
		t.Errorf("%s: stale table in %s", name, golden)
	}
}

// TestTableContents checks what the table says, independently of layout.
func TestTableContents(t *testing.T) {
	table := func(name string) string {
		b, err := kernels.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		return analyze(t, b.Kernel).String()
	}
	for _, tc := range []struct {
		table string
		want  []string // each on one line, in order
	}{
		{table("matmul"), []string{
			"kernel mxm",
			"a RowPat r", "a[idy][k] id y | loop k RowPat r",
			"b ColPat r", "b[k][idx] loop k | id x ColPat r",
			"c SinglePat rw", "c[idy][idx] id y | id x SinglePat w", "c[idy][idx] id y | id x SinglePat rw",
			"loops:", "[0] for (k = 0; k < limk; k += 1) depth 0",
		}},
		{table("conv2d"), []string{
			"in RadiusPat r", "in[idy + i][idx + j] id y + loop i | id x + loop j RadiusPat r",
			"[0] for (i = 0; i < nky; i += 1) depth 0", "[1] for (j = 0; j < nkx; j += 1) depth 1",
		}},
		{table("dcs3d"), []string{"atoms[a][3] loop a | const 3 InnerPat r"}},
		{analyze(t, nopat).String(), []string{
			"in RadiusPat r", "in[idx + 1] id x +1 SinglePat r", "in[idx - 1 + k] id x + loop k -1 RadiusPat r",
			"s NoPat r", "s[0] const 0 NoPat r",
			"w InnerPat r", "w[k + 2] loop k +2 InnerPat r",
		}},
		{analyze(t, indirect).String(), []string{
			"a Unsupported r", "a[b[k]] other Unsupported r", "unsupported: indirect indexing through b[k]",
			"b InnerPat r",
		}},
		{analyze(t, triangularLoop).String(), []string{
			"a[i][j] loop i | loop j Unsupported r",
			"unsupported: loop j has the bound i, which depends on the enclosing loop i (a triangular loop)",
			"[0] for (i = 0; i < n; i += 1) depth 0", "[1] for (j = 0; j < i; j += 1) depth 1",
			"kernel unsupported: loop j has the bound i, which depends on the enclosing loop i (a triangular loop)",
		}},
		{analyze(t, while).String(), []string{"loops: none", "kernel unsupported: a while loop"}},
	} {
		// Compare with runs of spaces squeezed, line by line.
		var lines []string
		for _, l := range strings.Split(tc.table, "\n") {
			lines = append(lines, strings.Join(strings.Fields(l), " "))
		}
		i := 0
		for _, w := range tc.want {
			for i < len(lines) && !strings.HasPrefix(lines[i], w) {
				i++
			}
			if i == len(lines) {
				t.Errorf("no line %q (in this order) in\n%s", w, tc.table)
				break
			}
		}
	}
}

// TestPrintDeterministic checks that analysing and printing a kernel twice
// gives the same bytes, and that Fprint and String agree.
func TestPrintDeterministic(t *testing.T) {
	for _, b := range kernels.All() {
		first := analyze(t, b.Kernel).String()
		for i := 0; i < 5; i++ {
			in := analyze(t, b.Kernel)
			var buf bytes.Buffer
			if err := patterns.Fprint(&buf, in); err != nil {
				t.Fatal(err)
			}
			if buf.String() != first || in.String() != first {
				t.Fatalf("%s: the table changes between runs:\n%s\nthen\n%s", b.Name, first, buf.String())
			}
		}
	}
	if s := (&patterns.Info{Kernel: "empty"}).String(); !strings.Contains(s, "no global array") || !strings.Contains(s, "loops: none") {
		t.Errorf("empty table:\n%s", s)
	}
}
