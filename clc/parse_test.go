package clc_test

import (
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/clc"
)

// parse converts a kernel whose body is stmts and returns its compute
// section as ast.Fprint prints it, without the compute braces.
func parse(t *testing.T, params, stmts string) string {
	t.Helper()
	src := "__kernel void k(" + params + ") {\n" + stmts + "\n}\n"
	k, err := clc.Parse("k.cl", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if len(k.Body.List) != 1 {
		t.Fatalf("the body has %d statements, want the compute section alone", len(k.Body.List))
	}
	c, ok := k.Body.List[0].(*ast.Compute)
	if !ok {
		t.Fatalf("the body is a %T, not the compute section", k.Body.List[0])
	}
	var lines []string
	for _, s := range c.Body.List {
		lines = append(lines, ast.String(s))
	}
	return strings.Join(lines, "\n")
}

// TestParse checks the conversion of the supported constructs.
func TestParse(t *testing.T) {
	const params = "__global float *a, __global double *d, __global int *ia, int n, float f, double g"
	cases := []struct {
		name, body, want string
	}{
		{"ids become predefined identifiers",
			"int i = get_global_id(0); size_t j = get_global_id(1); const int l = (int)get_local_id(2);\na[i] = j + l + get_global_size(0) + get_group_id(1) + get_local_size(0) + get_num_groups(2);",
			"a[idx] = idy + lidz + szx + gidy + lszx + ngroupsz;"},
		{"an id assigned later is a variable",
			"int i = get_global_id(0); i += 1; a[i] = 0.0f;",
			"int i = idx;\ni += 1;\na[i] = 0.0f;"},
		{"loop forms",
			"int k; for (k = 0; k <= n; k += 2) a[k] = 1.0f;\nfor (int j = 1; n > j; j = j + 3) a[j] = 2.0f;\nfor (int j = 0; j < n; ++j) a[j] = 3.0f;",
			"int k;\nfor (k = 0; k < n + 1; k += 2) {\n  a[k] = 1.0f;\n}\nfor (j = 1; j < n; j += 3) {\n  a[j] = 2.0f;\n}\nfor (j = 0; j < n; j += 1) {\n  a[j] = 3.0f;\n}"},
		{"shadowed and reserved names are renamed",
			"int idx = get_global_id(0) + 1; for (int k = 0; k < n; k++) { int idx = k; a[idx] = 0.0f; } a[idx] = 1.0f;",
			"int idx_1 = idx + 1;\nfor (k = 0; k < n; k += 1) {\n  int idx_2 = k;\n  a[idx_2] = 0.0f;\n}\na[idx_1] = 1.0f;"},
		{"nested loops with one name",
			"for (int k = 0; k < n; k++) for (int k = 0; k < 2; k++) a[k] = 0.0f;",
			"for (k = 0; k < n; k += 1) {\n  for (k_1 = 0; k_1 < 2; k_1 += 1) {\n    a[k_1] = 0.0f;\n  }\n}"},
		{"constants take the type they are assigned to",
			"float x = 0.1; double y = 0.1f; a[0] = 2; d[0] = 1.5; a[1] = x * 0.5; a[2] = (float)0.25;",
			"float x = 0.1f;\ndouble y = 0.10000000149011612;\na[0] = 2;\nd[0] = 1.5;\na[1] = x * 0.5;\na[2] = 0.25f;"},
		{"increments and compound assignments",
			"int i = get_global_id(0); ia[i]++; --ia[i]; a[i] *= f; a[i] /= 2.0f; a[i] -= 1.0f;",
			"ia[idx] += 1;\nia[idx] -= 1;\na[idx] *= f;\na[idx] /= 2.0f;\na[idx] -= 1.0f;"},
		{"conditional assignment",
			"float x = f > 0.0f ? f : (f < -1.0f ? -1.0f : 0.0f); a[0] = x;",
			"float x;\nif (f > 0.0f) {\n  x = f;\n} else {\n  if (f < -1.0f) {\n    x = -1.0f;\n  } else {\n    x = 0.0f;\n  }\n}\na[0] = x;"},
		{"early exit",
			"int i = get_global_id(0); if (i >= n) return; a[i] = 1.0f;",
			"if (idx < n) {\n  a[idx] = 1.0f;\n}"},
		{"early exit with float condition",
			"int i = get_global_id(0); if (i >= n || f < 0.0f) return; a[i] = 1.0f;",
			"if (idx < n && !(f < 0.0f)) {\n  a[idx] = 1.0f;\n}"},
		{"early exit in an if with work",
			"int i = get_global_id(0); if (i == 0) { a[0] = 0.0f; return; } a[i] = 1.0f; return;",
			"if (idx == 0) {\n  a[0] = 0.0f;\n} else {\n  a[idx] = 1.0f;\n}"},
		{"early exit in an else",
			"int i = get_global_id(0); if (i < n) { a[i] = 1.0f; } else return; a[i] += 1.0f;",
			"if (idx < n) {\n  a[idx] = 1.0f;\n  a[idx] += 1.0f;\n}"},
		{"private arrays",
			"float t[4][2]; for (int k = 0; k < 4; k++) { t[k][0] = 0.0f; t[k][1] = 1.0f; } a[0] = t[3][1];",
			"float t[4][2];\nfor (k = 0; k < 4; k += 1) {\n  t[k][0] = 0.0f;\n  t[k][1] = 1.0f;\n}\na[0] = t[3][1];"},
		{"math built-ins and macros",
			"#define SQ(x) ((x) * (x))\na[0] = sqrt(f) + rsqrt(SQ(f)) + exp(g) + fabs(f) + min(n, 3) + max(f, 1.0f) + fma(f, f, 1.0f) + M_PI_F;",
			"a[0] = sqrt(f) + rsqrt(f * f) + exp(g) + fabs(f) + min(n, 3) + max(f, 1.0f) + fma(f, f, 1.0f) + 3.1415927f;"},
		{"casts and logic",
			"int i = get_global_id(0); ia[i] = (int)(f * 2.0f) % 3 + !(i < n) + (i > 0 && i <= n);",
			"ia[idx] = (int)(f * 2.0f) % 3 + !(idx < n) + (idx > 0 && idx <= n);"},
		{"blocks that declare keep their braces",
			"{ float x = 1.0f; a[0] = x; } { a[1] = 2.0f; }",
			"{\n  float x = 1.0f;\n  a[0] = x;\n}\na[1] = 2.0f;"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := parse(t, params, c.body); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestTypedef checks that a typedef of the source names its type.
func TestTypedef(t *testing.T) {
	src := "typedef float real;\ntypedef int index_t;\n__kernel void k(__global real *a, index_t n) {\n    index_t i = get_global_id(0);\n    real x = a[i];\n    if (i < n) a[i] = x * 2.0f;\n}\n"
	k, err := clc.Parse("k.cl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ast.String(k), "kernel k(global float a[], int n) {\n  compute {\n    float x = a[idx];\n    if (idx < n) {\n      a[idx] = x * 2.0f;\n    }\n  }\n}"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestParams checks the kernel's name and arguments.
func TestParams(t *testing.T) {
	src := "__kernel void f(__global float *restrict a, __global const double *b, const __global int *c,\n" +
		"__constant float *w, global float *e, const int n, float x, double y) { }"
	k, err := clc.Parse("f.cl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range k.Params {
		got = append(got, p.Mem.String()+" "+p.Type.String()+" "+p.Name+strings.Repeat("[]", p.Rank))
	}
	want := "global float32 a[], global float64 b[], global int32 c[], constant float32 w[], global float32 e[], private int32 n, private float32 x, private float64 y"
	if k.Name != "f" || strings.Join(got, ", ") != want {
		t.Errorf("kernel %s(%s), want f(%s)", k.Name, strings.Join(got, ", "), want)
	}
}

// TestParseKeepsSource checks that Parse leaves the caller's bytes alone,
// past their length too (the C front end appends to a []byte source).
func TestParseKeepsSource(t *testing.T) {
	const src = "__kernel void k(__global float *a) { a[get_global_id(0)] = 1.0f; }"
	buf := make([]byte, len(src), 4*len(src))
	copy(buf, src)
	tail := buf[len(src):cap(buf)]
	for i := range tail {
		tail[i] = '#'
	}
	if _, err := clc.Parse("k.cl", buf); err != nil {
		t.Fatal(err)
	}
	if string(buf) != src || strings.Trim(string(tail), "#") != "" {
		t.Errorf("Parse wrote into its input: %q, then %q", buf, tail)
	}
}
