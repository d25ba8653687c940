package delinear

import (
	"math"
	"sort"
	"strings"

	"github.com/hplopt/hplopt/ast"
)

// A poly is a polynomial with integer coefficients over atoms: int scalar
// arguments and predefined sizes (taken to be positive constants), global,
// local and group ids and loop counters (index atoms, with ranges), and
// opaque subexpressions (index atoms without a range). It maps each
// monomial, the sorted atom keys joined by sep ("" for the constant term),
// to its coefficient; zero coefficients are not stored.
type poly map[string]int64

const sep = "\x00"

func constant(c int64) poly {
	if c == 0 {
		return poly{}
	}
	return poly{"": c}
}

func atomPoly(key string) poly { return poly{key: 1} }

// factors splits a monomial into its atom keys.
func factors(m string) []string {
	if m == "" {
		return nil
	}
	return strings.Split(m, sep)
}

func monomial(keys []string) string {
	sort.Strings(keys)
	return strings.Join(keys, sep)
}

// overflow bounds the coefficients: larger ones make the polynomial
// unusable (nil).
const overflow = 1 << 40

func (p poly) add(q poly, sign int64) poly {
	if p == nil || q == nil {
		return nil
	}
	out := poly{}
	for m, c := range p {
		out[m] = c
	}
	for m, c := range q {
		out[m] += sign * c
		if out[m] == 0 {
			delete(out, m)
		} else if abs(out[m]) > overflow {
			return nil
		}
	}
	return out
}

func (p poly) mul(q poly) poly {
	if p == nil || q == nil {
		return nil
	}
	out := poly{}
	for m1, c1 := range p {
		for m2, c2 := range q {
			if abs(c1) > overflow/max(abs(c2), 1) {
				return nil
			}
			m := monomial(append(factors(m1), factors(m2)...))
			out[m] += c1 * c2
			if out[m] == 0 {
				delete(out, m)
			}
		}
	}
	return out
}

func (p poly) scale(k int64) poly { return p.mul(constant(k)) }

func (p poly) equal(q poly) bool {
	if p == nil || q == nil || len(p) != len(q) {
		return false
	}
	for m, c := range p {
		if q[m] != c {
			return false
		}
	}
	return true
}

// isConst reports whether p is a constant, and which.
func (p poly) isConst() (int64, bool) {
	switch len(p) {
	case 0:
		return 0, true
	case 1:
		c, ok := p[""]
		return c, ok
	}
	return 0, false
}

// monomials lists p's monomials in a fixed order: by degree, then by key.
func (p poly) monomials() []string {
	ms := make([]string, 0, len(p))
	for m := range p {
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool {
		di, dj := len(factors(ms[i])), len(factors(ms[j]))
		if di != dj {
			return di < dj
		}
		return ms[i] < ms[j]
	})
	return ms
}

func abs(x int64) int64 {
	if x < 0 {
		if x == math.MinInt64 {
			return math.MaxInt64
		}
		return -x
	}
	return x
}

// divides reports whether monomial m contains every factor of d (as a
// multiset), and returns m with them removed.
func divides(d, m string) (string, bool) {
	rest := factors(m)
	for _, f := range factors(d) {
		i := indexOf(rest, f)
		if i < 0 {
			return "", false
		}
		rest = append(rest[:i:i], rest[i+1:]...)
	}
	return monomial(rest), true
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// expr rebuilds p as a kernel expression: terms in a fixed order (the
// highest degree first, the constant last), with atom() giving each atom's
// expression.
func (p poly) expr(atom func(key string) ast.Expr) ast.Expr {
	ms := p.monomials()
	var out ast.Expr
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		c := p[m]
		var t ast.Expr
		if abs(c) != 1 || m == "" {
			t = ast.IntConst(abs(c))
		}
		for _, f := range factors(m) {
			if t == nil {
				t = atom(f)
			} else {
				t = ast.Product(t, atom(f))
			}
		}
		switch {
		case out == nil && c < 0:
			if l, ok := t.(*ast.IntLit); ok {
				out = ast.IntConst(-l.Value)
			} else {
				out = &ast.Unary{Op: ast.Neg, X: t}
			}
		case out == nil:
			out = t
		case c < 0:
			out = ast.Bin(ast.Sub, out, t)
		default:
			out = ast.Sum(out, t)
		}
	}
	if out == nil {
		return ast.IntConst(0)
	}
	return out
}
