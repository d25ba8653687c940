package autotune

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Stop is a stop condition, ATF's abort condition: Tune evaluates it after
// each evaluation and ends the search (StopCondition) when it holds. Make
// one with ParseStop; the budget it sets holds for every strategy, since the
// loop enforces it, not the strategy.
type Stop interface {
	// Done reports whether the search should end in state s.
	Done(s StopState) bool
	// String returns the condition in ParseStop's syntax.
	String() string
}

// StopState is what a stop condition sees after an evaluation.
type StopState struct {
	// Evaluations counts the search's evaluations but the points
	// rejected before anything was built or run (Report.Rejected) that
	// RejectedPerEval leaves uncounted, as Settings.MaxEvals does.
	Evaluations int
	// Elapsed is the time the search has taken: the wall time since it
	// started, or Settings.Clock's when set (a replay's simulated time).
	Elapsed time.Duration
	// SpaceSize is the number of points of the space.
	SpaceSize *big.Int
	// Found says whether an evaluation succeeded; BestMs is then the best
	// time.
	Found  bool
	BestMs float64
	// Stalled is the number of evaluations (counted as Evaluations) since
	// the best time last improved (since the start when none succeeded);
	// StalledFor the time.
	Stalled    int
	StalledFor time.Duration
}

// ParseStop parses a stop condition: conditions combined with "and" and
// "or" ("and" binds tighter) and parentheses. The conditions are
//
//	evals>=N       N evaluations were made (N >= 1)
//	time>=D        the search took D (a Go duration: 90s, 1m30s, 500ms)
//	space>=P%      P percent of the space was evaluated (or a fraction:
//	               space>=0.025)
//	stall>=N       the best did not improve in the last N evaluations
//	stalltime>=D   the best did not improve for D
//	best<=D        a time of at most D was found (best<=1.5ms)
//
// for example "evals>=500 or stall>=100" or "space>=2.5% and (best<=1ms
// or time>=60s)". Failed evaluations count as evaluations, but points
// rejected as Illegal before anything was built or run do not, up to
// RejectedPerEval per evaluation of the search's bound (as with
// Settings.MaxEvals). Errors give the column (from 1) of the mistake.
func ParseStop(s string) (Stop, error) {
	p := &stopParser{src: s}
	p.next()
	e, err := p.expr()
	if err == nil && p.tok.kind != tokEOF {
		err = p.errorf("want \"and\", \"or\" or the end, found %q", p.tok.text)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// MustParseStop is ParseStop for conditions written in code; it panics on
// an error.
func MustParseStop(s string) Stop {
	c, err := ParseStop(s)
	if err != nil {
		panic(err)
	}
	return c
}

// Held returns the part of stop that holds in state s, in ParseStop's
// syntax: the condition that ended a search ("stall>=100" of "evals>=500
// or stall>=100"), every side of an "and", the sides of an "or" that hold.
// It returns "" when stop does not hold (or is nil); a Stop made outside
// this package is returned whole.
func Held(stop Stop, s StopState) string {
	if stop == nil || !stop.Done(s) {
		return ""
	}
	o, ok := stop.(*stopOp)
	if !ok {
		return stop.String()
	}
	l, r := Held(o.l, s), Held(o.r, s)
	if o.and {
		return o.side(o.l, l) + " and " + o.side(o.r, r)
	}
	switch {
	case l == "":
		return r
	case r == "":
		return l
	}
	return l + " or " + r
}

// MaxEvals returns the most evaluations a search stopped by stop makes in
// a space of size points, and whether stop bounds them at all: evals>=N
// bounds them by N and space>=P by P of the space; an "or" by the smaller
// bound of its sides, an "and" by the larger (when both sides bound them).
// Time, stall and best conditions bound nothing.
func MaxEvals(stop Stop, size *big.Int) (int, bool) {
	switch c := stop.(type) {
	case *stopCond:
		switch c.kind {
		case stopEvals:
			return c.n, true
		case stopSpace:
			if size == nil {
				return 0, false
			}
			f, _ := new(big.Float).SetInt(size).Float64()
			if n := math.Ceil(c.frac * f); n < math.MaxInt32 {
				return max(1, int(n)), true
			}
		}
	case *stopOp:
		l, lok := MaxEvals(c.l, size)
		r, rok := MaxEvals(c.r, size)
		switch {
		case c.and && lok && rok:
			return max(l, r), true
		case !c.and && lok && rok:
			return min(l, r), true
		case !c.and && lok:
			return l, true
		case !c.and && rok:
			return r, true
		}
	}
	return 0, false
}

// stopWatch follows a search for its stop condition.
type stopWatch struct {
	size      *big.Int
	found     bool
	best      float64
	bestEval  int
	bestSince time.Duration
}

// after returns the state after rep's last evaluation, elapsed into the
// search.
func (w *stopWatch) after(rep *Report, elapsed time.Duration) StopState {
	n := rep.Evaluations - rep.Uncounted(rep.Bound)
	if rep.Found && (!w.found || rep.BestMs < w.best) {
		w.found, w.best, w.bestEval, w.bestSince = true, rep.BestMs, n, elapsed
	}
	return StopState{
		Evaluations: n,
		Elapsed:     elapsed,
		SpaceSize:   w.size,
		Found:       rep.Found,
		BestMs:      rep.BestMs,
		Stalled:     n - w.bestEval,
		StalledFor:  elapsed - w.bestSince,
	}
}

// The conditions.

type stopKind int

const (
	stopEvals stopKind = iota
	stopTime
	stopSpace
	stopStall
	stopStallTime
	stopBest
)

var stopNames = map[string]stopKind{
	"evals": stopEvals, "time": stopTime, "space": stopSpace,
	"stall": stopStall, "stalltime": stopStallTime, "best": stopBest,
}

type stopCond struct {
	kind stopKind
	n    int           // evals, stall
	frac float64       // space
	d    time.Duration // time, stalltime, best
	text string        // the value as written
}

func (c *stopCond) Done(s StopState) bool {
	switch c.kind {
	case stopEvals:
		return s.Evaluations >= c.n
	case stopTime:
		return s.Elapsed >= c.d
	case stopSpace:
		if s.SpaceSize == nil || s.SpaceSize.Sign() == 0 {
			return true
		}
		size, _ := new(big.Float).SetInt(s.SpaceSize).Float64()
		return float64(s.Evaluations) >= c.frac*size
	case stopStall:
		return s.Stalled >= c.n
	case stopStallTime:
		return s.StalledFor >= c.d
	case stopBest:
		return s.Found && s.BestMs <= float64(c.d)/float64(time.Millisecond)
	}
	return false
}

func (c *stopCond) String() string {
	for name, k := range stopNames {
		if k == c.kind {
			op := ">="
			if k == stopBest {
				op = "<="
			}
			return name + op + c.text
		}
	}
	return "?"
}

type stopOp struct {
	and  bool
	l, r Stop
}

func (o *stopOp) Done(s StopState) bool {
	if o.and {
		return o.l.Done(s) && o.r.Done(s)
	}
	return o.l.Done(s) || o.r.Done(s)
}

func (o *stopOp) String() string {
	op := " or "
	if o.and {
		op = " and "
	}
	return o.side(o.l, o.l.String()) + op + o.side(o.r, o.r.String())
}

// side parenthesizes text, the form of operand c, when c is an "or" inside
// an "and".
func (o *stopOp) side(c Stop, text string) string {
	if x, ok := c.(*stopOp); ok && o.and && !x.and && strings.Contains(text, " or ") {
		return "(" + text + ")"
	}
	return text
}

// The parser: expr = term {"or" term}; term = factor {"and" factor};
// factor = "(" expr ")" | NAME OP VALUE.

type tokKind int

const (
	tokEOF tokKind = iota
	tokWord
	tokOp
	tokLParen
	tokRParen
)

type stopToken struct {
	kind tokKind
	text string
	pos  int // byte offset
}

type stopParser struct {
	src string
	off int
	tok stopToken
}

func (p *stopParser) errorf(format string, args ...any) error {
	return fmt.Errorf("autotune: stop condition %q: column %d: %s", p.src, p.tok.pos+1, fmt.Sprintf(format, args...))
}

func (p *stopParser) next() {
	for p.off < len(p.src) && (p.src[p.off] == ' ' || p.src[p.off] == '\t') {
		p.off++
	}
	start := p.off
	if p.off == len(p.src) {
		p.tok = stopToken{tokEOF, "end", start}
		return
	}
	switch c := p.src[p.off]; {
	case c == '(':
		p.off++
		p.tok = stopToken{tokLParen, "(", start}
	case c == ')':
		p.off++
		p.tok = stopToken{tokRParen, ")", start}
	case strings.ContainsRune("<>=!", rune(c)):
		for p.off < len(p.src) && strings.ContainsRune("<>=!", rune(p.src[p.off])) {
			p.off++
		}
		p.tok = stopToken{tokOp, p.src[start:p.off], start}
	default:
		for p.off < len(p.src) && !strings.ContainsRune(" \t()<>=!", rune(p.src[p.off])) {
			p.off++
		}
		p.tok = stopToken{tokWord, p.src[start:p.off], start}
	}
}

func (p *stopParser) expr() (Stop, error) { return p.binary("or", p.term) }

func (p *stopParser) term() (Stop, error) { return p.binary("and", p.factor) }

// binary parses operands joined by the keyword op, left to right.
func (p *stopParser) binary(op string, operand func() (Stop, error)) (Stop, error) {
	l, err := operand()
	for err == nil && p.tok.kind == tokWord && strings.EqualFold(p.tok.text, op) {
		p.next()
		var r Stop
		if r, err = operand(); err == nil {
			l = &stopOp{and: op == "and", l: l, r: r}
		}
	}
	return l, err
}

func (p *stopParser) factor() (Stop, error) {
	switch p.tok.kind {
	case tokLParen:
		p.next()
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tokRParen {
			return nil, p.errorf("want \")\", found %q", p.tok.text)
		}
		p.next()
		return e, nil
	case tokWord:
		return p.cond()
	}
	return nil, p.errorf("want a condition (evals, time, space, stall, stalltime or best) or \"(\", found %q", p.tok.text)
}

func (p *stopParser) cond() (Stop, error) {
	name := strings.ToLower(p.tok.text)
	kind, ok := stopNames[name]
	if !ok {
		return nil, p.errorf("unknown condition %q (known: evals, time, space, stall, stalltime, best)", p.tok.text)
	}
	p.next()
	want := ">="
	if kind == stopBest {
		want = "<="
	}
	if p.tok.kind != tokOp || p.tok.text != want {
		return nil, p.errorf("want %s after %s, found %q", want, name, p.tok.text)
	}
	p.next()
	if p.tok.kind != tokWord {
		return nil, p.errorf("want a value after %s%s, found %q", name, want, p.tok.text)
	}
	c := &stopCond{kind: kind, text: p.tok.text}
	var err error
	switch kind {
	case stopEvals, stopStall:
		c.n, err = strconv.Atoi(c.text)
		if err != nil || c.n < 1 {
			err = fmt.Errorf("want a whole number of evaluations (at least 1), found %q", c.text)
		}
	case stopTime, stopStallTime, stopBest:
		c.d, err = time.ParseDuration(c.text)
		if err != nil || c.d <= 0 {
			err = fmt.Errorf("want a positive duration with its unit (500ms, 1.5ms, 60s, 2m), found %q", c.text)
		}
	case stopSpace:
		c.frac, err = parseFraction(c.text)
	}
	if err != nil {
		return nil, p.errorf("%v", err)
	}
	p.next()
	return c, nil
}

// parseFraction reads "2.5%" or "0.025" as a fraction in (0, 1].
func parseFraction(s string) (float64, error) {
	num, pct := strings.CutSuffix(s, "%")
	f, err := strconv.ParseFloat(num, 64)
	if err == nil && pct {
		f /= 100
	}
	switch {
	case err != nil || math.IsNaN(f) || f <= 0:
		return 0, fmt.Errorf("want a percentage (2.5%%) or a fraction (0.025) of the space, found %q", s)
	case f > 1:
		return 0, fmt.Errorf("%q is more than the whole space (a percentage needs %%: %s%%)", s, num)
	}
	return f, nil
}
