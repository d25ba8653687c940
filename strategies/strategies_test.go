package strategies_test

import (
	"strings"
	"testing"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/strategies"
)

func TestLookup(t *testing.T) {
	for in, want := range map[string]string{"": strategies.Default, "g": "genetic", "GEN": "genetic", "r": "random", "exhaustive": "exhaustive"} {
		s, err := strategies.Lookup(in)
		if err != nil || s.Name != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", in, s.Name, err, want)
		}
	}
	if _, err := strategies.Lookup("simplex"); err == nil || !strings.Contains(err.Error(), "known: genetic") {
		t.Errorf("Lookup(simplex) = %v, want an error listing the strategies", err)
	}
}

// Every registered strategy proposes points of the space and names itself
// as registered.
func TestRegistryMakesWorkingStrategies(t *testing.T) {
	space, err := autotune.NewSpace(
		autotune.Param{Name: "a", Range: func(autotune.Point) []int { return []int{1, 2, 4, 8} }},
		autotune.Param{Name: "b", Range: func(autotune.Point) []int { return []int{0, 1} }},
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range strategies.All() {
		if info.Doc == "" {
			t.Errorf("%s: no description", info.Name)
		}
		s, err := strategies.New(info.Name, space, autotune.NewRand(1), strategies.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Name() != info.Name {
			t.Errorf("strategy registered as %q names itself %q", info.Name, s.Name())
		}
		for i := 0; i < 5; i++ {
			p, ok := s.Next()
			if !ok {
				break
			}
			if !space.Contains(p) {
				t.Errorf("%s proposed %v, not in the space", info.Name, p)
			}
			s.Tell(p, autotune.Result{Outcome: autotune.OK, Ms: float64(p.Get("a"))})
		}
	}
}
