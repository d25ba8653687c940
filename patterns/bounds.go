package patterns

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hplopt/hplopt/ast"
)

// CheckBounds reports a reference of kernel k to an element outside its
// array that is certain to happen when k runs over the global domain
// global (x first) with the int arguments ints: a Run that would write
// past an output (or read past an input) is an error before launch, not
// memory damaged in silence or a crash with no message.
//
// It rejects only what it can prove. It reads k's array parameters'
// Extents (a specialized kernel) and checks each subscript that is an
// affine function of global ids, global sizes, constants, int arguments
// given in ints and the counters of enclosing loops with constant bounds,
// of a reference that every work-item makes on every iteration of those
// loops: one under no if or while. Such a subscript takes every value
// between its least and greatest (each id and counter runs over its whole
// range, independently of the others), which must lie within the extent.
// References under a bounds guard (if (idx < n) ...), or whose subscripts
// read private variables, array elements or divisions, are not checked.
func CheckBounds(k *ast.Kernel, global []int, ints map[string]int) error {
	b := &bounds{k: k, global: global, ints: ints, assigned: map[string]bool{}, loops: map[string]span{}}
	ast.Inspect(k.Body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.Assign:
			if id, ok := s.LHS.(*ast.Ident); ok {
				b.assigned[id.Name] = true
			}
		case *ast.Decl:
			b.assigned[s.Name] = true
		}
		return true
	})
	b.block(k.Body, false)
	return b.err
}

// span is a range of integers, lo to hi inclusive.
type span struct{ lo, hi int64 }

// bounds is one CheckBounds.
type bounds struct {
	k        *ast.Kernel
	global   []int
	ints     map[string]int
	assigned map[string]bool // variables assigned or declared in the body
	loops    map[string]span // counters of the enclosing loops with known ranges
	err      error
}

func (b *bounds) block(bl *ast.Block, cond bool) {
	if bl == nil {
		return
	}
	for _, s := range bl.List {
		if b.err != nil {
			return
		}
		b.stmt(s, cond)
	}
}

func (b *bounds) stmt(s ast.Stmt, cond bool) {
	switch s := s.(type) {
	case *ast.Decl:
		if s.Init != nil {
			b.expr(s.Init, cond)
		}
	case *ast.Assign:
		b.expr(s.RHS, cond)
		b.expr(s.LHS, cond)
	case *ast.Block:
		b.block(s, cond)
	case *ast.If:
		b.expr(s.Cond, cond)
		b.block(s.Then, true)
		b.block(s.Else, true)
	case *ast.While:
		b.expr(s.Cond, cond)
		b.block(s.Body, true)
	case *ast.For:
		for _, e := range []ast.Expr{s.Lo, s.Hi, s.Step} {
			b.expr(e, cond)
		}
		lo, okLo := b.constant(s.Lo)
		hi, okHi := b.constant(s.Hi)
		step, okStep := b.constant(s.Step)
		known := okLo && okHi && okStep && step > 0 && !b.assignedIn(s.Var, s.Body)
		if known && hi <= lo {
			return // the body never runs
		}
		if !known {
			b.block(s.Body, true) // may run for some work-items or iterations only
			return
		}
		old, had := b.loops[s.Var]
		b.loops[s.Var] = span{lo, lo + (hi-lo-1)/step*step}
		b.block(s.Body, cond)
		if had {
			b.loops[s.Var] = old
		} else {
			delete(b.loops, s.Var)
		}
	case *ast.Compute:
		b.block(s.Body, cond)
	case *ast.Barrier:
	}
}

// assignedIn reports whether name is assigned in bl.
func (b *bounds) assignedIn(name string, bl *ast.Block) bool {
	found := false
	ast.Inspect(bl, func(n ast.Node) bool {
		if a, ok := n.(*ast.Assign); ok {
			if id, ok := a.LHS.(*ast.Ident); ok && id.Name == name {
				found = true
			}
		}
		return !found
	})
	return found
}

// expr checks the references to array parameters in e.
func (b *bounds) expr(e ast.Expr, cond bool) {
	ast.Inspect(e, func(n ast.Node) bool {
		if ix, ok := n.(*ast.Index); ok && b.err == nil && !cond {
			b.index(ix)
		}
		return b.err == nil
	})
}

// index checks one reference.
func (b *bounds) index(ix *ast.Index) {
	p := b.k.Param(ix.Array)
	if p == nil || p.Rank == 0 || len(p.Extents) != len(ix.Indices) {
		return
	}
	for d, sub := range ix.Indices {
		f, ok := b.affine(sub)
		if !ok {
			continue
		}
		r := b.rangeOf(f)
		ext := int64(p.Extents[d])
		if r.lo >= 0 && r.hi < ext {
			continue
		}
		at := r.hi
		if r.lo < 0 {
			at = r.lo
		}
		where := ""
		if len(ix.Indices) > 1 {
			where = fmt.Sprintf(" along its dimension %d", d+1)
		}
		b.err = fmt.Errorf("patterns: kernel %s: %s reaches %s with %s = %d%s, outside the %d element(s) of %s%s",
			b.k.Name, ast.ExprString(ix), ix.Array, subscriptName(d, len(ix.Indices)), at, b.witness(f, at == r.hi), ext, p.Name, where)
		return
	}
}

// subscriptName names subscript d of n: "subscript 2", or "its subscript" for one.
func subscriptName(d, n int) string {
	if n == 1 {
		return "its subscript"
	}
	return fmt.Sprintf("subscript %d", d+1)
}

// witness says which ids and counters give a subscript its greatest
// (high) or least value, with the global size: " (idx = 199 of the global
// size [200])".
func (b *bounds) witness(f affine, high bool) string {
	var parts []string
	for _, v := range f.vars() {
		r := b.varRange(v)
		x := r.lo
		if (f.terms[v] > 0) == high {
			x = r.hi
		}
		parts = append(parts, fmt.Sprintf("%s = %d", varName(v), x))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf(" (at %s; global size %v)", strings.Join(parts, ", "), b.global)
}

// The terms of affine subscripts here: a global id is "id0" to "id2", as
// for the analysis, and a loop counter "c:" and its name.
func idVar(d int) string { return fmt.Sprintf("id%d", d) }

func counterVar(name string) string { return "c:" + name }

func varName(v string) string {
	if name, ok := strings.CutPrefix(v, "c:"); ok {
		return name
	}
	return (&ast.Special{Kind: ast.GlobalID, Dim: int(v[2] - '0')}).Name()
}

// varRange is the range of a variable of an affine subscript.
func (b *bounds) varRange(v string) span {
	if name, ok := strings.CutPrefix(v, "c:"); ok {
		return b.loops[name]
	}
	return span{0, int64(b.global[v[2]-'0']) - 1}
}

// rangeOf is the least and greatest value of f over its variables'
// ranges, which they take independently.
func (b *bounds) rangeOf(f affine) span {
	r := span{f.c, f.c}
	for v, a := range f.terms {
		vr := b.varRange(v)
		lo, hi := a*vr.lo, a*vr.hi
		if lo > hi {
			lo, hi = hi, lo
		}
		r.lo += lo
		r.hi += hi
	}
	return r
}

// constant evaluates e if it is an affine function without variables.
func (b *bounds) constant(e ast.Expr) (int64, bool) {
	f, ok := b.affine(e)
	if !ok || len(f.vars()) > 0 {
		return 0, false
	}
	return f.c, true
}

// bigCoef bounds the constants and coefficients affine follows: times a
// range of at most 2^32 values, a few of them still add up within int64 in
// rangeOf.
const bigCoef = 1 << 30

// affine writes e as constant plus coefficients of global ids and loop
// counters with known ranges; ok is false for anything else.
func (b *bounds) affine(e ast.Expr) (f affine, ok bool) {
	switch e := e.(type) {
	case *ast.IntLit:
		return affine{c: e.Value}, e.Value > -bigCoef && e.Value < bigCoef
	case *ast.Ident:
		if _, ok := b.loops[e.Name]; ok {
			return affine{terms: map[string]int64{counterVar(e.Name): 1}}, true
		}
		if p := b.k.Param(e.Name); p != nil && p.Rank == 0 && p.Type == ast.Int && !b.assigned[e.Name] {
			if v, ok := b.ints[e.Name]; ok {
				return affine{c: int64(v)}, true
			}
		}
	case *ast.Special:
		if e.Dim < len(b.global) {
			switch e.Kind {
			case ast.GlobalID:
				return affine{terms: map[string]int64{idVar(e.Dim): 1}}, true
			case ast.GlobalSize:
				return affine{c: int64(b.global[e.Dim])}, true
			}
		}
	case *ast.Unary:
		if e.Op == ast.Neg {
			if x, ok := b.affine(e.X); ok {
				return x.scale(-1), true
			}
		}
	case *ast.Cast:
		if e.Type == ast.Int {
			return b.affine(e.X)
		}
	case *ast.Binary:
		x, okx := b.affine(e.X)
		y, oky := b.affine(e.Y)
		if !okx || !oky {
			break
		}
		switch e.Op {
		case ast.Add:
			f = x.add(y, 1)
			return f, f.small()
		case ast.Sub:
			f = x.add(y, -1)
			return f, f.small()
		case ast.Mul:
			switch {
			case len(x.vars()) == 0:
				f = y.scale(x.c)
				return f, f.small()
			case len(y.vars()) == 0:
				f = x.scale(y.c)
				return f, f.small()
			}
		}
	}
	return affine{}, false
}

// small reports that f's constant and coefficients are far from
// overflowing.
func (f affine) small() bool {
	if f.c <= -bigCoef || f.c >= bigCoef {
		return false
	}
	for _, a := range f.terms {
		if a <= -bigCoef || a >= bigCoef {
			return false
		}
	}
	return true
}

// vars returns f's variables with a coefficient other than 0 in a fixed
// order: ids, then counters by name.
func (f affine) vars() []string {
	var out []string
	for v, a := range f.terms {
		if a != 0 {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}
