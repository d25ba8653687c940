package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const poclTable = "../testdata/replay/matmul128-pocl.csv"

func TestReplayVerb(t *testing.T) {
	dir := t.TempDir()
	js, png := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.png")
	st, out, errs := hplopt("replay", "--table", poclTable, "-s", "g,random,annealing", "-e", "30", "--seeds", "5",
		"--at", "10,1%", "--stop", "stall>=200", "--json", js, "--plot", png)
	if st != 0 {
		t.Fatalf("status %d, stderr %s", st, errs)
	}
	for _, want := range []string{"\ngenetic fraction=", "\nrandom fraction=", "\nannealing fraction=", " q1=", " q3=", " score=", "\ngenetic@9 fraction=", "\nrandom@10 fraction=", "895 points"} {
		if !strings.Contains("\n"+out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var res []map[string]any
	data, err := os.ReadFile(js)
	if err == nil {
		err = json.Unmarshal(data, &res)
	}
	if err != nil || len(res) != 3 {
		t.Fatalf("JSON: %v, %d results", err, len(res))
	}
	for _, r := range res {
		for _, k := range []string{"strategy", "evaluations", "median_fraction", "q1_fraction", "q3_fraction", "score", "curve"} {
			if _, ok := r[k]; !ok {
				t.Errorf("JSON result lacks %q", k)
			}
		}
		if r["evaluations"] != 30.0 || len(r["curve"].([]any)) != 30 {
			t.Errorf("%v: evaluations %v, curve of %d", r["strategy"], r["evaluations"], len(r["curve"].([]any)))
		}
	}
	if b, err := os.ReadFile(png); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("plot: %v", err)
	}
}

func TestReplayVerbErrors(t *testing.T) {
	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"replay"}, 2, "no --table"},
		{[]string{"replay", "--table", poclTable, "-s", "simplex"}, 2, `unknown search strategy "simplex"`},
		{[]string{"replay", "--table", poclTable, "--stop", "evals>=5 or stal>=3"}, 2, "column 13"},
		{[]string{"replay", "--table", poclTable, "-e", "10", "--at", "20"}, 2, "more than -e 10"},
		{[]string{"replay", "--table", poclTable, "--at", "0.5x"}, 2, "--at 0.5x"},
		{[]string{"replay", "--table", "nosuch.csv"}, 1, "nosuch.csv"},
	} {
		st, _, errs := hplopt(c.args...)
		if st != c.status || !strings.Contains(errs, c.want) {
			t.Errorf("%v: status %d, stderr %q; want %d and %q", c.args, st, errs, c.status, c.want)
		}
	}
}
