package transforms

import (
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
)

// TestSplit covers the forms of accumulation the accumulation pass splits
// and those it leaves alone, on statements over the private float acc
// (and the private int n), the arguments x, y, z, w and the global array g.
func TestSplit(t *testing.T) {
	sp := splitter{
		types:   map[string]ast.Type{"acc": ast.Float, "n": ast.Int, "x": ast.Float, "y": ast.Float, "z": ast.Float, "w": ast.Float, "g": ast.Float, "i": ast.Int},
		private: map[string]bool{"acc": true, "n": true, "i": true},
	}
	x, y, z, w, acc := ast.Id("x"), ast.Id("y"), ast.Id("z"), ast.Id("w"), ast.Id("acc")
	mul := func(a, b ast.Expr) ast.Expr { return ast.Product(a, b) }
	sub := func(a, b ast.Expr) ast.Expr { return &ast.Binary{Op: ast.Sub, X: a, Y: b} }
	xy, zw := mul(x, y), mul(z, w)
	for _, tc := range []struct {
		name string
		st   *ast.Assign
		want string // the statements, "; "-separated; "" when left alone
	}{
		{"add", &ast.Assign{LHS: acc, Op: ast.AddSet, RHS: ast.Sum(xy, zw)}, "acc += x * y; acc += z * w"},
		{"sub of difference", &ast.Assign{LHS: acc, Op: ast.SubSet, RHS: sub(xy, zw)}, "acc -= x * y; acc += z * w"},
		{"set acc + sum", &ast.Assign{LHS: acc, Op: ast.Set, RHS: ast.Sum(acc, ast.Sum(xy, zw))}, "acc += x * y; acc += z * w"},
		{"set sum + acc", &ast.Assign{LHS: acc, Op: ast.Set, RHS: ast.Sum(ast.Sum(xy, zw), acc)}, "acc += x * y; acc += z * w"},
		{"set acc - sum", &ast.Assign{LHS: acc, Op: ast.Set, RHS: sub(acc, ast.Sum(xy, zw))}, "acc -= x * y; acc -= z * w"},
		{"three terms", &ast.Assign{LHS: acc, Op: ast.AddSet, RHS: ast.Sum(ast.Sum(xy, w), zw)}, "acc += x * y; acc += w; acc += z * w"},
		{"element of a private array", &ast.Assign{LHS: &ast.Index{Array: "acc", Indices: []ast.Expr{ast.Id("i")}}, Op: ast.AddSet, RHS: ast.Sum(xy, zw)}, "acc[i] += x * y; acc[i] += z * w"},
		{"one product", &ast.Assign{LHS: acc, Op: ast.AddSet, RHS: ast.Sum(xy, z)}, ""},
		{"a term reads acc", &ast.Assign{LHS: acc, Op: ast.AddSet, RHS: ast.Sum(mul(acc, x), zw)}, ""},
		{"set without acc", &ast.Assign{LHS: acc, Op: ast.Set, RHS: ast.Sum(xy, zw)}, ""},
		{"set of another sum", &ast.Assign{LHS: acc, Op: ast.Set, RHS: ast.Sum(x, ast.Sum(xy, zw))}, ""},
		{"global accumulator", &ast.Assign{LHS: &ast.Index{Array: "g", Indices: []ast.Expr{ast.Id("i")}}, Op: ast.AddSet, RHS: ast.Sum(xy, zw)}, ""},
		{"int accumulator", &ast.Assign{LHS: ast.Id("n"), Op: ast.AddSet, RHS: ast.Sum(mul(ast.Id("i"), ast.Id("i")), mul(ast.Id("i"), ast.IntConst(2)))}, ""},
		{"int term", &ast.Assign{LHS: acc, Op: ast.AddSet, RHS: ast.Sum(ast.Sum(xy, zw), ast.Id("i"))}, ""},
		{"multiplied", &ast.Assign{LHS: acc, Op: ast.MulSet, RHS: ast.Sum(xy, zw)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, st := range sp.split(tc.st) {
				got = append(got, strings.TrimSuffix(strings.TrimSpace(ast.String(st)), ";"))
			}
			if g := strings.Join(got, "; "); g != tc.want {
				t.Errorf("split(%s %s %s) = %q, want %q", ast.ExprString(tc.st.LHS), tc.st.Op, ast.ExprString(tc.st.RHS), g, tc.want)
			}
		})
	}
}
