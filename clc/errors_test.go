package clc_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/clc"
)

// body wraps statements in a kernel whose first line is line 1:
//
//	__kernel void k(__global float *a, __global int *ia, int n, float f) {
//	    int i = get_global_id(0);
//	    BODY (from line 3)
//	}
func body(stmts string) string {
	return "__kernel void k(__global float *a, __global int *ia, int n, float f) {\n    int i = get_global_id(0);\n" + stmts + "\n}\n"
}

// TestErrors checks that each construct outside the supported subset is
// refused with its line, column and name.
func TestErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"pointer arithmetic", body("    a[i] = *(a + i);"), "k.cl:3:12: pointer dereference is not supported"},
		{"pointer plus", body("    float x = (a + 1)[i];"), "k.cl:3:18: pointer arithmetic is not supported"},
		{"pointer variable", body("    __global float *p = a;"), "k.cl:3:20: pointer variables are not supported"},
		{"while", body("    int j = 0;\n    while (j < n) j++;"), "k.cl:4:5: while loops are not supported"},
		{"do while", body("    int j = 0;\n    do { j++; } while (j < n);"), "k.cl:4:5: do-while loops are not supported"},
		{"atomic", body("    atomic_add(ia, 1);"), "k.cl:3:5: atomic_add is not supported"},
		{"atomic value", body("    int old = atomic_add(&ia[0], 1);"), "k.cl:3:15: atomic_add is not supported"},
		{"barrier", body("    barrier(CLK_LOCAL_MEM_FENCE);"), "k.cl:3:5: barrier is not supported"},
		{"two kernels", "__kernel void a(__global float *x) { x[0] = 1.0f; }\n__kernel void b(__global float *x) { x[0] = 2.0f; }\n", "k.cl:2:15: more than one kernel"},
		{"no kernel", "void f(void) {}\n", "k.cl:1:6: function f is not a kernel"},
		{"helper", "float sq(float x) { return x * x; }\n__kernel void k(__global float *a) { a[0] = sq(a[1]); }\n", "k.cl:1:7: function sq is not a kernel"},
		{"global variable", "__constant float c = 1.0f;\n__kernel void k(__global float *a) { a[0] = c; }\n", "k.cl:1:18: declarations outside the kernel are not supported"},
		{"unsigned scalar", "__kernel void k(__global float *a, uint n) { a[0] = n; }\n", "k.cl:1:41: argument n has type uint"},
		{"vector argument", "__kernel void k(__global float4 *a) { }\n", "k.cl:1:33: argument a points to float4"},
		{"vector variable", body("    float4 v;"), "k.cl:3:12: vector type float4 is not supported"},
		{"local memory", body("    __local float tile[16];"), "k.cl:3:5: __local variables are not supported"},
		{"local argument", "__kernel void k(__global float *a, __local float *t) { }\n", "k.cl:1:36: __local argument t is not supported"},
		{"no address space", "__kernel void k(float *a) { }\n", "k.cl:1:23: pointer argument a has no address space"},
		{"bitwise", body("    ia[i] = i << 2;"), "k.cl:3:15: bitwise operator << is not supported"},
		{"bitwise and", body("    ia[i] = i & 1;"), "k.cl:3:15: bitwise operator & is not supported"},
		{"ternary in expression", body("    a[i] = 1.0f + (f > 0 ? f : -f);"), "k.cl:3:26: the conditional operator ?: is supported only as the whole right side"},
		{"comma", body("    int j = 0, k2 = 1;\n    j = 1, k2 = 2;"), "k.cl:4:5: the comma operator is not supported"},
		{"return inside loop", body("    for (int k = 0; k < n; k++) { if (k > i) return; }"), "k.cl:3:46: return is supported only as an early exit"},
		{"break", body("    for (int k = 0; k < n; k++) { break; }"), "k.cl:3:35: break is not supported"},
		{"counting down", body("    for (int k = n; k > 0; k--) a[k] = 0.0f;"), "k.cl:3:21: loops counting down are not supported"},
		{"odd condition", body("    for (int k = 0; k * 2 < n; k++) a[k] = 0.0f;"), "k.cl:3:21: the loop condition must compare the counter k with a bound"},
		{"counter assigned", body("    for (int k = 0; k < n; k++) { k += 2; }"), "k.cl:3:35: the loop counter k is assigned in the body"},
		{"bound assigned", body("    int m = n;\n    for (int k = 0; k < m; k++) { m = 3; }"), "k.cl:4:35: m is assigned in the body of for (int k = 0; k < m; k++)"},
		{"float counter", body("    for (float x = 0; x < f; x += 1.0f) a[i] += x;"), "k.cl:3:16: the loop counter x must be an int"},
		{"assign argument", body("    n = 3;"), "k.cl:3:5: assigning to the argument n is not supported"},
		{"modulo assign", body("    int j = 7;\n    j %= 3;"), "k.cl:4:7: compound assignment %= is not supported"},
		{"increment in expression", body("    int j = 0;\n    a[j++] = 1.0f;"), "k.cl:4:8: ++ inside an expression is not supported"},
		{"switch", body("    switch (i) { case 0: a[0] = 1.0f; }"), "k.cl:3:5: switch statements are not supported"},
		{"sizeof", body("    ia[i] = sizeof(float);"), "k.cl:3:13: sizeof is not supported"},
		{"address", body("    float x = 1.0f;\n    float y = *&x;"), "k.cl:4:15: pointer dereference is not supported"},
		{"size_t variable", body("    size_t j = 2 * i;"), "k.cl:3:12: type size_t is not supported"},
		{"unknown function", body("    a[i] = foo(f);"), "k.cl:3:12: foo is not supported"},
		{"integer sqrt", body("    a[i] = sqrt(n);"), "k.cl:3:12: sqrt needs float or double arguments"},
		{"float subscript", body("    a[i] = a[f];"), "k.cl:3:13: one of the expressions shall be a pointer and the other shall have integer type"},
		{"work-item dimension", body("    int j = get_global_id(n);\n    a[j] = 0.0f;"), "k.cl:3:27: the dimension of get_global_id must be the constant 0, 1 or 2"},
		{"unsigned constant", body("    ia[i] = 3u;"), "k.cl:3:13: integer constant 3u has a suffix"},
		{"vector component", "__kernel void k(__global float *a) { float2 v; a[0] = v.x; }\n", "k.cl:1:45: vector type float2 is not supported"},
		{"syntax", body("    a[i] = ;"), "k.cl:3:12: "},
		{"include", "#include <math.h>\n__kernel void k(__global float *a) { }\n", "k.cl:1:"},
		{"end inside a declarator", "__kernel void k(__global float *a) {\n    float *;\n}\n", "k.cl:2:12: unexpected ';', expected type qualifier"},
		{"end inside a parameter list", "__kernel void k(__global float *", "k.cl:1:33: unexpected end of the source"},
		{"end inside a body", "__kernel void k(__global float *a) {\n    a[0] = 1.0f;\n", "k.cl:3:1: unexpected end of the source"},
		{"kernel attribute", "__kernel __attribute__((reqd_work_group_size(16, 1, 1))) void k(__global float *a) { }\n", "k.cl:1:25: the kernel attribute reqd_work_group_size is not supported"},
		{"bool", body("    bool b = i < n;"), "k.cl:3:10: type bool is not supported"},
		{"statement after return", "__kernel void k(__global float *a) { return; a[0] = 1.0f; }\n", "k.cl:1:46: statements after return are never run"},
		{"return value", body("    return 1;"), "k.cl:3:5: a kernel returns void"},
		{"constant assigned", "__kernel void k(__constant float *c) { c[0] = 1.0f; }\n", "k.cl:1:40: c is in constant memory and cannot be assigned"},
		{"reserved name", "__kernel void k(__global float *a, int idx) { a[idx] = 0.0f; }\n", "k.cl:1:40: argument name idx is reserved"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k, err := clc.Parse("k.cl", []byte(c.src))
			if err == nil {
				t.Fatalf("parsed, want error %q\n%s", c.want, c.src)
			}
			if k != nil {
				t.Error("a kernel was returned with the error")
			}
			var list clc.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v is a %T, not an ErrorList", err, err)
			}
			if got := list[0].Error(); !strings.HasPrefix(got, c.want) {
				t.Errorf("error\n  %s\nwant prefix\n  %s", strings.ReplaceAll(err.Error(), "\n", "\n  "), c.want)
			}
		})
	}
}
