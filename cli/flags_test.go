package cli

import (
	"flag"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/optimizer"
)

// helpEntries splits a verb's help into its usage line (up to the first
// blank line) and the text of each flag's entry, by every name its first
// line gives (-d, --device).
func helpEntries(help string) (usageLine string, entries map[string]string) {
	usageLine, _, _ = strings.Cut(help, "\n\n")
	entries = map[string]string{}
	_, list, _ := strings.Cut(help, "\nflags:\n")
	var names []string
	for _, line := range strings.Split(list, "\n") {
		if strings.HasPrefix(line, "  -") {
			names = names[:0]
			for _, n := range strings.Split(strings.TrimSpace(line), ", ") {
				names = append(names, strings.Fields(n)[0])
			}
		}
		for _, n := range names {
			entries[n] += line + "\n"
		}
	}
	return usageLine, entries
}

// TestVerbHelp runs VERB -h for every registered verb: it exits 0 and its
// help on stdout has the usage line and an entry for every flag the verb
// defines, with the flag's default; hplopt help VERB prints the same.
func TestVerbHelp(t *testing.T) {
	var names []string
	for name := range verbs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v := verbs[name]
		if v.flags == nil {
			t.Errorf("verb %s has no flags function", name)
			continue
		}
		st, out, errs := hplopt(name, "-h")
		if st != 0 || errs != "" || !strings.HasPrefix(out, "usage: hplopt "+name) {
			t.Errorf("hplopt %s -h: status %d, stderr %q, stdout:\n%s", name, st, errs, out)
			continue
		}
		if _, again, _ := hplopt("help", name); again != out {
			t.Errorf("hplopt help %s differs from hplopt %s -h:\n%s\n%s", name, name, again, out)
		}
		usageLine, entries := helpEntries(out)
		n := 0
		v.flags().VisitAll(func(f *flag.Flag) {
			n++
			flagName := dashed(f.Name)
			entry, ok := entries[flagName]
			switch {
			case !ok:
				t.Errorf("hplopt %s -h does not list %s:\n%s", name, flagName, out)
			case strings.TrimSpace(f.Usage) == "":
				t.Errorf("hplopt %s: %s has no help text", name, flagName)
			case f.DefValue != "" && !strings.Contains(entry, "default "+f.DefValue):
				t.Errorf("hplopt %s -h: %s does not give its default %s:\n%s", name, flagName, f.DefValue, entry)
			case !strings.Contains(usageLine, "["+flagName) && !strings.HasPrefix(f.Usage, "same as "):
				t.Errorf("hplopt %s: the usage line lacks %s:\n%s", name, flagName, usageLine)
			}
		})
		if n != len(entries) {
			t.Errorf("hplopt %s -h lists %d flag names, the verb defines %d:\n%s", name, len(entries), n, out)
		}
	}
	// The paper's form is tune's.
	if _, out, _ := hplopt("matmul", "-h"); !strings.HasPrefix(out, "usage: hplopt tune KERNEL") {
		t.Errorf("hplopt matmul -h:\n%s", out)
	}
}

func TestHelpVerb(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		st, out, _ := hplopt(args...)
		if st != 0 || !strings.Contains(out, "hplopt help VERB") {
			t.Errorf("hplopt %s: status %d, stdout %q", args[0], st, out)
		}
		for name := range verbs {
			if !strings.Contains(out, "\n  "+name+" ") {
				t.Errorf("hplopt %s does not list %s:\n%s", args[0], name, out)
			}
		}
	}
	for _, args := range [][]string{{"help", "nosuch"}, {"help", "tune", "run"}} {
		if st, _, errs := hplopt(args...); st != 2 || !strings.Contains(errs, "usage: hplopt VERB") {
			t.Errorf("hplopt %s: status %d, stderr %q", strings.Join(args, " "), st, errs)
		}
	}
}

// TestFlagValidation gives every verb's numeric flags values out of their
// range (and --params bad pins): each is a usage error that names the flag
// and the values it takes, before any device work.
func TestFlagValidation(t *testing.T) {
	const (
		budget  = "want a number of seconds from 0.001 to 1e+06"
		timeout = "want 0 (10 s) or a number of seconds from 0.001 to 1e+06"
		sizes   = "want integers from 1 to 2^31-1"
		slow    = "want 0 (no limit) or a number from 1 to 1e+06"
	)
	for _, tc := range []struct {
		args []string
		want string
	}{
		// Budgets: NaN, Inf and 1e10 s once became negative durations (a
		// search that never ends), 1e-10 s the 60 s default.
		{[]string{"tune", "matmul", "-t", "NaN"}, "flag -t: " + budget},
		{[]string{"tune", "matmul", "-t", "Inf"}, "flag -t: " + budget},
		{[]string{"tune", "matmul", "-t", "-Inf"}, "flag -t: " + budget},
		{[]string{"matmul", "-t", "1e10"}, "flag -t: " + budget},
		{[]string{"matmul", "-t", "1e-10"}, "flag -t: " + budget},
		{[]string{"matmul", "-t", "0"}, "flag -t: " + budget},
		{[]string{"bench", "-t", "NaN"}, "flag -t: " + budget},
		{[]string{"bench", "-t", "S=5,M=1e10"}, `flag -t: "M=1e10": ` + budget},
		{[]string{"bench", "-t", "tiny=1e-10"}, "flag -t: " + budget},
		{[]string{"tune", "matmul", "--timeout", "-1"}, "flag -timeout: " + timeout},
		{[]string{"tune", "matmul", "--timeout", "NaN"}, "flag -timeout: " + timeout},
		{[]string{"tune", "matmul", "--timeout", "1e-10"}, "flag -timeout: " + timeout},
		{[]string{"bench", "--timeout", "Inf"}, "flag -timeout: " + timeout},
		{[]string{"tune", "matmul", "--slow-limit", "0.5"}, "flag -slow-limit: " + slow},
		{[]string{"tune", "matmul", "--slow-limit", "-1"}, "flag -slow-limit: " + slow},
		{[]string{"tune", "matmul", "--slow-limit", "NaN"}, "flag -slow-limit: " + slow},
		{[]string{"bench", "--slow-limit", "1e7"}, "flag -slow-limit: " + slow},
		// Counts.
		{[]string{"matmul", "--runs", "0"}, "flag -runs: want an integer from 1 to 1000"},
		{[]string{"tune", "matmul", "--runs", "-3"}, "flag -runs: want an integer from 1 to 1000"},
		{[]string{"bench", "--runs", "0"}, "flag -runs: want an integer from 1 to 1000"},
		{[]string{"tune", "matmul", "-e", "-1"}, "flag -e: want an integer from 0 to 2^63-1"},
		{[]string{"bench", "-e", "-1"}, "flag -e: want an integer from 0 to 2^63-1"},
		{[]string{"tune", "matmul", "--builds", "-1"}, "flag -builds: want an integer from 0 to 4096"},
		{[]string{"bench", "--builds", "-1"}, "flag -builds: want an integer from 0 to 4096"},
		{[]string{"tune", "matmul", "--builders", "-2"}, "flag -builders: want an integer from -1 to 1024"},
		{[]string{"tune", "matmul", "--cache-max", "1T"}, "flag -cache-max: want a number of bytes, with K, M or G"},
		{[]string{"cache", "stats", "--max", "-1"}, "flag -max: want a number of bytes"},
		{[]string{"tune", "matmul", "--seed", "-1"}, "flag -seed: want an integer from 1 to 2^64-1"},
		{[]string{"tune", "matmul", "--seed", "0"}, "flag -seed: want an integer from 1 to 2^64-1"},
		{[]string{"bench", "--seed", "-2"}, "flag -seed: want an integer from 1 to 2^64-1"},
		{[]string{"tune", "matmul", "--data-seed", "-1"}, "flag -data-seed: want an integer from 0 to 2^63-1"},
		{[]string{"run", "matmul", "--seed", "-4"}, "flag -seed: want an integer from 0 to 2^63-1"},
		{[]string{"run", "matmul", "--sample", "-5"}, "flag -sample: want an integer from -1 to 2^31-1"},
		{[]string{"run", "matmul", "--reps", "0"}, "flag -reps: want an integer from 1 to 1000000"},
		{[]string{"bench", "--peak-tflops", "NaN", "--bandwidth-tbs", "1"}, "flag -peak-tflops: want a number from 0 to 1e+06"},
		{[]string{"bench", "--bandwidth-tbs", "-1"}, "flag -bandwidth-tbs: want a number from 0 to 1e+06"},
		// Sizes, in every verb that takes them.
		{[]string{"tune", "matmul", "-n", "0"}, "flag -n: " + sizes},
		{[]string{"run", "matmul", "-n", "64", "-k", "-1"}, "flag -k: " + sizes},
		{[]string{"gen", "matmul", "-n", "64,0", "-k", "4"}, `flag -n: "0": ` + sizes},
		{[]string{"run", "conv3d", "-n", "4294967296", "-k", "1"}, "flag -n: " + sizes},
		// Pins: strict, and usage errors.
		{[]string{"tune", "matmul", "--params", ","}, `flag -params: transforms: parameters ",": empty entry`},
		{[]string{"run", "matmul", "--params", ","}, `flag -params: transforms: parameters ",": empty entry`},
		{[]string{"gen", "matmul", "--params", ","}, `flag -params: transforms: parameters ",": empty entry`},
		{[]string{"tune", "matmul", "--params", "lszx=8,lszx=4"}, "flag -params: transforms: parameter lszx given twice"},
		{[]string{"gen", "matmul", "--params", "uf=2,uf=2"}, "flag -params: transforms: parameter uf given twice"},
		// Words.
		{[]string{"tune", "matmul", "-s", "simplex"}, `flag -s: strategies: unknown search strategy "simplex"`},
		{[]string{"bench", "-s", "random,simplex"}, `flag -s: strategies: unknown search strategy "simplex"`},
		{[]string{"tune", "matmul", "-s", "random,genetic"}, "flag -s: want one strategy, not 2"},
		{[]string{"tune", "matmul", "--order", "sideways"}, "flag -order: want ready or proposed"},
	} {
		verb := tc.args[0]
		if verb == "matmul" {
			verb = "tune"
		}
		st, out, errs := hplopt(tc.args...)
		if st != 2 || out != "" || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "usage: hplopt "+verb) {
			t.Errorf("hplopt %s: status %d, stdout %q, stderr %q; want 2 and %q", strings.Join(tc.args, " "), st, out, errs, tc.want)
		}
	}
}

// TestParseTune reads the paper's command form (tune without the verb) and
// the bounds of the budget and the timeout.
func TestParseTune(t *testing.T) {
	cfg, _, err := parseTune(builtins, []string{"matmul", "-d", "GPU", "-n", "1024,1024", "-k", "1024", "-s", "g", "-t", "3600", "--timeout", "0.5", "--params", "uf=4"})
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Settings
	if cfg.Bench.Name != "matmul" || cfg.Device != "GPU" || cfg.Size.String() != "n=1024x1024 k=1024" || s.Strategy != "genetic" ||
		s.Time != time.Hour || s.Timeout != 500*time.Millisecond || s.Fixed["uf"] != 4 || s.Seed != 1 || s.Runs != 5 || s.Builds != 0 ||
		s.Builders != 0 || s.Order != optimizer.OrderReady || s.Cache != "" || s.CacheMax != 1<<30 {
		t.Errorf("%+v", cfg)
	}
	for _, tc := range []struct {
		args          []string
		time, timeout time.Duration
	}{
		{[]string{"-t", "0.001"}, time.Millisecond, 0},
		{[]string{"-t", "1e6", "--timeout", "0"}, 1e6 * time.Second, 0},
		// Without -t or -e, no budget: a shape never tuned may then take
		// the nearest recorded shape's best; a search takes 60 s.
		{[]string{"--timeout", "1e-3"}, 0, time.Millisecond},
		{[]string{"-e", "5"}, 60 * time.Second, 0},
	} {
		cfg, _, err := parseTune(builtins, append([]string{"conv1d"}, tc.args...))
		if err != nil || cfg.Settings.Time != tc.time || cfg.Settings.Timeout != tc.timeout {
			t.Errorf("%v: time %s, timeout %s, %v", tc.args, cfg.Settings.Time, cfg.Settings.Timeout, err)
		}
	}
	// --slow-limit: 0 is no limit (a negative SlowLimit), no flag the
	// default (0).
	for arg, want := range map[string]float64{"": 0, "0": -1, "1": 1, "25.5": 25.5} {
		args := []string{"conv1d"}
		if arg != "" {
			args = append(args, "--slow-limit", arg)
		}
		if cfg, _, err := parseTune(builtins, args); err != nil || cfg.Settings.SlowLimit != want {
			t.Errorf("--slow-limit %q: SlowLimit %v (%v), want %v", arg, cfg.Settings.SlowLimit, err, want)
		}
	}
	// Several sizes: each is tuned, with the default budget.
	cfg, _, err = parseTune(builtins, []string{"conv1d", "--sizes", "tiny,S", "-n", "64", "-n", "128", "-k", "3"})
	if err != nil || len(cfg.Sizes) != 4 || cfg.Sizes[2].String() != "n=64 k=3" || cfg.Sizes[3].String() != "n=128 k=3" || cfg.Settings.Time != time.Minute {
		t.Errorf("several sizes: %v, %v, time %s", cfg.Sizes, err, cfg.Settings.Time)
	}
	for _, bad := range [][]string{{"--sizes", "XL"}, {"-n", "64", "-n", "128", "--emit", "x.cl"}, {"-n", "8", "-n", "16", "-n", "32", "-k", "1", "-k", "2"}} {
		if _, _, err := parseTune(builtins, append([]string{"conv1d"}, bad...)); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	// Operands after "--" are operands, not flags.
	if _, _, err := parseTune(builtins, []string{"--", "-t"}); err == nil || !strings.Contains(err.Error(), `no kernel "-t"`) {
		t.Errorf(`-- -t: %v`, err)
	}
}
