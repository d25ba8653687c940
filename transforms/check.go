package transforms

import (
	"fmt"

	"github.com/hplopt/hplopt/ast"
)

// Check verifies invariants every variant must keep (after the manner of
// go/ssa's sanity checker): every variable is declared before it is used
// and in scope, every global array is indexed with one subscript per
// dimension, and no barrier sits inside control flow that can diverge within
// a work-group (an if, a while, or a loop whose bounds depend on the
// work-item). limit, if positive, bounds the local memory declared.
func Check(k *ast.Kernel, limit int64) error {
	c := &checker{k: k, scopes: []map[string]bool{{}}}
	for _, p := range k.Params {
		c.scopes[0][p.Name] = true
	}
	c.block(k.Body, false)
	if c.err != nil {
		return c.err
	}
	var local int64
	ast.Inspect(k.Body, func(n ast.Node) bool {
		if d, ok := n.(*ast.Decl); ok && d.Mem == ast.Local {
			local += d.Bytes()
		}
		return true
	})
	if limit > 0 && local > limit {
		return fmt.Errorf("transforms: kernel %s declares %d bytes of local memory; the limit is %d", k.Name, local, limit)
	}
	return nil
}

type checker struct {
	k      *ast.Kernel
	scopes []map[string]bool
	err    error
}

func (c *checker) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("transforms: kernel %s: %s", c.k.Name, fmt.Sprintf(format, args...))
	}
}

func (c *checker) declared(name string) bool {
	for _, s := range c.scopes {
		if s[name] {
			return true
		}
	}
	return false
}

func (c *checker) expr(e ast.Expr) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if !c.declared(n.Name) {
				c.fail("%s is used but not declared in scope", n.Name)
			}
		case *ast.Index:
			if !c.declared(n.Array) {
				c.fail("array %s is used but not declared in scope", n.Array)
			}
			if p := c.k.Param(n.Array); p != nil && len(n.Indices) != p.Rank {
				c.fail("%s has %d subscripts for %d dimensions", ast.ExprString(n), len(n.Indices), p.Rank)
			}
		}
		return true
	})
}

func (c *checker) block(b *ast.Block, divergent bool) {
	c.scopes = append(c.scopes, map[string]bool{})
	for _, s := range b.List {
		c.stmt(s, divergent)
	}
	c.scopes = c.scopes[:len(c.scopes)-1]
}

// uniformLoops are loop counters whose values are the same for a whole
// work-group, so barriers may sit inside their loops.
var uniformRoles = map[ast.LoopRole]bool{ast.TileLoop: true, ast.CyclicLoop: true}

func (c *checker) stmt(s ast.Stmt, divergent bool) {
	top := c.scopes[len(c.scopes)-1]
	switch s := s.(type) {
	case *ast.Decl:
		if s.Init != nil {
			c.expr(s.Init)
		}
		top[s.Name] = true
	case *ast.Assign:
		c.expr(s.LHS)
		c.expr(s.RHS)
	case *ast.Block:
		c.block(s, divergent)
	case *ast.If:
		c.expr(s.Cond)
		c.block(s.Then, true)
		if s.Else != nil {
			c.block(s.Else, true)
		}
	case *ast.For:
		c.expr(s.Lo)
		c.expr(s.Hi)
		c.expr(s.Step)
		if !c.declared(s.Var) {
			top[s.Var] = true
		}
		div := divergent
		if !uniformRoles[s.Role] && s.Role != ast.UserLoop && s.Role != ast.ElementLoop {
			div = true
		}
		c.block(s.Body, div)
	case *ast.While:
		c.expr(s.Cond)
		c.block(s.Body, true)
	case *ast.Barrier:
		if divergent {
			c.fail("a barrier is inside control flow that can diverge within a work-group")
		}
	case *ast.Compute:
		c.block(s.Body, divergent)
	default:
		c.fail("unknown statement %T", s)
	}
}
