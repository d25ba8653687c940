package transforms

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
)

// validatePipeline checks a pipeline the way go/analysis's Validate checks a set of
// analyzers: every pass is named, documented and runnable, names are unique
// lower-case words, every pass a pass requires is in the pipeline and
// earlier, and the Requires graph has no cycle.
func validatePipeline(passes []*Pass) error {
	at := map[*Pass]int{}
	names := map[string]bool{}
	for i, p := range passes {
		switch {
		case p.Name == "" || strings.IndexFunc(p.Name, func(r rune) bool { return !unicode.IsLower(r) }) >= 0:
			return fmt.Errorf("pass %d: name %q is not a lower-case word", i, p.Name)
		case names[p.Name]:
			return fmt.Errorf("pass %s: the name is used twice", p.Name)
		case strings.TrimSpace(p.Doc) == "":
			return fmt.Errorf("pass %s: no Doc", p.Name)
		case p.Run == nil:
			return fmt.Errorf("pass %s: no Run", p.Name)
		}
		names[p.Name] = true
		at[p] = i
	}
	// Cycles first, with the three colours of a depth-first search, so that
	// a cycle is reported as one and not as a pass out of order.
	const (
		white = iota
		grey
		black
	)
	colour := map[*Pass]int{}
	var visit func(p *Pass, path []string) error
	visit = func(p *Pass, path []string) error {
		path = append(path, p.Name)
		switch colour[p] {
		case grey:
			return fmt.Errorf("passes require each other in a cycle: %s", strings.Join(path, " -> "))
		case black:
			return nil
		}
		colour[p] = grey
		for _, q := range p.Requires {
			if err := visit(q, path); err != nil {
				return err
			}
		}
		colour[p] = black
		return nil
	}
	for _, p := range passes {
		if err := visit(p, nil); err != nil {
			return err
		}
	}
	for i, p := range passes {
		for _, q := range p.Requires {
			j, ok := at[q]
			switch {
			case !ok:
				return fmt.Errorf("pass %s requires %s, which is not in the pipeline", p.Name, q.Name)
			case j > i:
				return fmt.Errorf("pass %s requires %s, which runs after it", p.Name, q.Name)
			}
		}
	}
	return nil
}

func TestPipeline(t *testing.T) {
	if err := validatePipeline(Pipeline); err != nil {
		t.Fatal(err)
	}
}

// TestValidatePipeline shows that validatePipeline catches what it claims to.
func TestValidatePipeline(t *testing.T) {
	run := func(*state) error { return nil }
	pass := func(name string, requires ...*Pass) *Pass {
		return &Pass{Name: name, Doc: "Does " + name + ".", Requires: requires, Run: run}
	}
	a := pass("a")
	b := pass("b", a)
	c1, c2 := pass("cyclea"), pass("cycleb")
	c1.Requires = []*Pass{c2}
	c2.Requires = []*Pass{c1}
	for _, tc := range []struct {
		passes []*Pass
		want   string // in the error; "" for none
	}{
		{[]*Pass{a, b}, ""},
		{[]*Pass{b, a}, "pass b requires a, which runs after it"},
		{[]*Pass{b}, "pass b requires a, which is not in the pipeline"},
		{[]*Pass{a, pass("a")}, "pass a: the name is used twice"},
		{[]*Pass{{Name: "nodoc", Run: run}}, "pass nodoc: no Doc"},
		{[]*Pass{{Name: "norun", Doc: "Does nothing."}}, "pass norun: no Run"},
		{[]*Pass{pass("Local memory")}, `name "Local memory" is not a lower-case word`},
		{[]*Pass{c1, c2}, "passes require each other in a cycle: cyclea -> cycleb -> cyclea"},
	} {
		err := validatePipeline(tc.passes)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", names(tc.passes), err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: got error %v, want %q", names(tc.passes), err, tc.want)
		}
	}
}

func names(passes []*Pass) []string {
	var out []string
	for _, p := range passes {
		out = append(out, p.Name)
	}
	return out
}
