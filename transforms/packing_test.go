package transforms

import (
	"testing"

	"github.com/hplopt/hplopt/ast"
)

// TestCounterAlignments checks the alignment that packing assumes of loop
// counters: a counter is aligned as its start and step allow, given the
// loops around it, and a counter that a statement assigns, or a loop of a
// variable step, is aligned to nothing.
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
	)
	got := counterAlignments(b)
	want := map[string]int64{"jt": 64, "j": 2, "i": 2, "v": 1}
	for v, a := range want {
		if got[v] != a {
			t.Errorf("alignment of %s = %d, want %d", v, got[v], a)
		}
	}
	if a, ok := got["w"]; ok {
		t.Errorf("w is assigned in the block, yet has alignment %d", a)
	}
}
