package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeKernel(t *testing.T, src string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "k.cl")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func runParse(args ...string) (int, string, string) {
	var o, e bytes.Buffer
	status := Run(append([]string{"parse"}, args...), &o, &e, Builtins()...)
	return status, o.String(), e.String()
}

func TestParseVerb(t *testing.T) {
	file := writeKernel(t, `__kernel void mm(__global float *c, __global const float *a, __global const float *b, int n, int p) {
    int row = get_global_id(1), col = get_global_id(0);
    if (row >= n || col >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < p; k++)
        acc += a[row*p + k] * b[k*n + col];
    c[row*n + col] = acc;
}`)
	status, out, errs := runParse(file, "--global", "16,16", "--arg", "n=16", "--arg", "p=8")
	if status != 0 {
		t.Fatalf("exit %d: %s", status, errs)
	}
	for _, want := range []string{
		"c  global float[n][n]  written  = 16x16",
		"a  global float[n][p]  read  = 16x8",
		"acc += a[idy * 8 + k] * b[k * 16 + idx];",
		"a  RowPat",
		"b  ColPat",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	// Without the values the extents stay symbolic.
	status, out, errs = runParse(file)
	if status != 0 || !strings.Contains(out, "acc += a[idy][k] * b[k][idx];") {
		t.Errorf("exit %d without values: %s%s", status, out, errs)
	}
}

func TestParseVerbErrors(t *testing.T) {
	bad := writeKernel(t, "__kernel void k(__global float *a, int n) {\n    int i = 0;\n    while (i < n) i++;\n}\n")
	cases := []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{bad}, 1, "k.cl:3:5: while loops are not supported"},
		{nil, 2, "no OpenCL C file given"},
		{[]string{bad, "--global", "0"}, 2, "want 1 to 3 positive integers"},
		{[]string{bad, "--arg", "n"}, 2, "want NAME=VALUE"},
		{[]string{bad, "--shape", "a=4xx"}, 2, "want NAME=AxB"},
		{[]string{bad, "extra"}, 2, `unexpected argument "extra"`},
		{[]string{filepath.Join(t.TempDir(), "none.cl")}, 1, "no such file"},
	}
	for _, c := range cases {
		status, _, errs := runParse(c.args...)
		if status != c.status || !strings.Contains(errs, c.want) {
			t.Errorf("hplopt parse %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), status, errs, c.status, c.want)
		}
	}
	if status, out, _ := runParse("-h"); status != 0 || !strings.Contains(out, "--shape") && !strings.Contains(out, "-shape") {
		t.Errorf("hplopt parse -h: exit %d\n%s", status, out)
	}
}
