package optimizer_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/strategies"
)

// FuzzParseSettings reads command lines (arguments separated by newlines)
// as the paper's OptimizerSettings(argc, argv) does: no input may panic,
// and what is accepted is in range: a budget of 0 (the default) or from
// autotune.MinBudget to MaxBudget (NaN, Inf and 1e10 once became negative
// budgets, 1e-10 the default), a non-negative number of evaluations, a
// registered strategy; the arguments not read come back in order.
//
//	go test ./optimizer -run '^$' -fuzz FuzzParseSettings -fuzztime 2m
func FuzzParseSettings(f *testing.F) {
	for _, seed := range []string{
		"-s\ng\n-t\n3600\n-e\n50\n--seed=4", "-d\nGPU\n-n\n1024,1024", "-t\nNaN", "-t=Inf", "-t\n1e10", "-t\n1e-10",
		"-e\n-1", "--seed\n-1", "-s\nannealing", "-t", "--t=0.001", "-s=", "-e=9999999999999999999", "x\n-t\n5\ny",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\n")
		s, rest, err := optimizer.ParseSettings(args)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "optimizer: ") && !strings.HasPrefix(err.Error(), "strategies: ") {
				t.Errorf("ParseSettings(%q): error %q does not name its package", args, err)
			}
			return
		}
		if s.Time != 0 && (s.Time < autotune.MinBudget || s.Time > autotune.MaxBudget) {
			t.Errorf("ParseSettings(%q): budget %v", args, s.Time)
		}
		if s.Evals < 0 {
			t.Errorf("ParseSettings(%q): %d evaluations", args, s.Evals)
		}
		if s.Strategy != "" {
			if _, err := strategies.Lookup(s.Strategy); err != nil {
				t.Errorf("ParseSettings(%q): strategy %q: %v", args, s.Strategy, err)
			}
		}
		// The rest is a subsequence of the arguments.
		i := 0
		for _, a := range args {
			if i < len(rest) && rest[i] == a {
				i++
			}
		}
		if i != len(rest) || len(rest) > len(args) || slices.Contains(rest, "-t") && !slices.Contains(args, "-t") {
			t.Errorf("ParseSettings(%q): rest %q", args, rest)
		}
	})
}
