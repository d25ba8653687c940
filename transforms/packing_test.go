package transforms

import (
	"testing"

	"github.com/hplopt/hplopt/ast"
)

// TestCounterAlignments checks the alignment that packing assumes of loop
// counters: a counter is aligned as its start and step allow, given the
// loops around it; a counter that a statement assigns or declares with a
// value is not aligned, nor is one of a loop of a variable step.
func TestCounterAlignments(t *testing.T) {
	loop := func(v string, lo, step ast.Expr, body ...ast.Stmt) *ast.For {
		return &ast.For{Var: v, Lo: lo, Hi: ast.IntConst(1024), Step: step, Body: ast.NewBlock(body...)}
	}
	b := ast.NewBlock(
		loop("jt", ast.IntConst(0), ast.IntConst(256),
			loop("j", ast.Id("jt"), ast.IntConst(8)),
			loop("i", ast.Sum(ast.Id("jt"), ast.IntConst(2)), ast.IntConst(16)),
			loop("v", ast.IntConst(0), ast.Id("n")),
			loop("w", ast.IntConst(0), ast.IntConst(4)),
		),
		loop("j", ast.IntConst(0), ast.IntConst(2)),
		&ast.Assign{LHS: ast.Id("w"), Op: ast.Set, RHS: ast.IntConst(3)},
		loop("d", ast.IntConst(0), ast.IntConst(16)),
		&ast.Decl{Name: "d", Type: ast.Int, Init: ast.IntConst(1)},
	)
	got := counterAlignments(b)
	want := map[string]int64{"jt": 64, "j": 2, "i": 2, "v": 1}
	for v, a := range want {
		if got[v] != a {
			t.Errorf("alignment of %s = %d, want %d", v, got[v], a)
		}
	}
	for _, v := range []string{"w", "d"} {
		if a, ok := got[v]; ok {
			t.Errorf("%s is set in the block other than by its loop, yet has alignment %d", v, a)
		}
	}
}
