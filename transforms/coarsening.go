package transforms

import "github.com/hplopt/hplopt/ast"

var coarsening = &Pass{
	Name:     "coarsening",
	Requires: []*Pass{staging},
	Doc: `Distributes blocks of bszx*bszy*bszz points block-cyclically over
szx*szy*szz work-items (Figure 7): global ids become point coordinates. The
cyclic loop is dropped when a work-item gets one block, the point loop when
a block has one point. Variables whose values live across the parts of the
compute section are held once per point.`,
	Run: func(s *state) error {
		repl := s.pointRepl()
		for _, part := range s.parts() {
			for i, st := range *part {
				(*part)[i] = ast.SubstituteStmt(st, repl)
			}
		}
		for _, l := range s.loops {
			if refs(s.pre, l.Var) || refs(s.post, l.Var) || refs(s.opre, l.Var) || refs(s.opost, l.Var) || refs(s.hoisted, l.Var) {
				return illegal("loop counter %s is used outside its loop", l.Var)
			}
		}
		if o := s.outer; o != nil && (refs(s.pre, o.Var) || refs(s.post, o.Var) || refs(s.hoisted, o.Var)) {
			return illegal("loop counter %s is used outside its loop", o.Var)
		}
		// The private arrays declared in the compute section are hoisted out
		// of it, to be shared by all the points of a block.
		for _, st := range s.hoisted {
			if d := st.(*ast.Decl); len(d.Extents) > 0 && s.points > 1 {
				return illegal("the private array %s declared in the compute section cannot be held per point", d.Name)
			}
		}
		if s.points == 1 {
			return nil
		}
		// Expand the variables assigned in the compute section that carry
		// values from one part to another.
		types := map[string]ast.Type{}
		for _, st := range append(append([]ast.Stmt{}, s.local.decls...), s.hoisted...) {
			if d, ok := st.(*ast.Decl); ok {
				types[d.Name] = d.Type
			}
		}
		ast.Inspect(s.k.Body, func(n ast.Node) bool {
			if d, ok := n.(*ast.Decl); ok {
				types[d.Name] = d.Type
			}
			return true
		})
		// A variable declared inside a part (hoisting left there the
		// declarations of nested blocks and of the loop body) is a new
		// variable for each point and cannot carry a value to another
		// part: it needs no expansion. Expanded, its declaration stayed,
		// and its uses read an element of the per-point array that nothing
		// set (a while loop's counter declared under a guard never ran).
		seen := map[string]bool{}
		for _, part := range s.parts() {
			for _, st := range *part {
				ast.Inspect(st, func(n ast.Node) bool {
					if d, ok := n.(*ast.Decl); ok {
						seen[d.Name] = true
					}
					return true
				})
			}
		}
		var vars []string
		for _, part := range [][]ast.Stmt{s.pre, s.body, s.post} {
			for _, st := range part {
				ast.Inspect(st, func(n ast.Node) bool {
					if a, ok := n.(*ast.Assign); ok {
						if id, ok := a.LHS.(*ast.Ident); ok && !seen[id.Name] {
							seen[id.Name] = true
							vars = append(vars, id.Name)
						}
					}
					return true
				})
			}
		}
		for _, v := range vars {
			var in [][]ast.Stmt
			for _, part := range s.parts() {
				if refs(*part, v) {
					in = append(in, *part)
				}
			}
			if len(in) == 1 && localTemp(in[0], v, false) {
				continue
			}
			s.expand(v+"_p", types[v], func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				return ok && id.Name == v
			})
		}
		return nil
	},
}
