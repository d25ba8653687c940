package transforms

import "github.com/hplopt/hplopt/ast"

var cleanup = &Pass{
	Name:     "cleanup",
	Requires: []*Pass{assembly, unrolling},
	Doc: `Folds the integer constants that substitution leaves (lidy*4 + 0) and
merges blocks that declare nothing into the enclosing block, so that the
generated code reads like hand-written code.`,
	Run: func(s *state) error {
		s.comp.Body = ast.Simplify(s.comp.Body).(*ast.Block)
		return nil
	},
}
