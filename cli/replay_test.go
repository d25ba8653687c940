package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
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
		{[]string{"replay"}, 2, "no --table, --tables, --problem or --db"},
		{[]string{"replay", "--table", poclTable, "--problem", "matmul"}, 2, "not both"},
		{[]string{"replay", "--table", poclTable, "--db", "x.db"}, 2, "not both"},
		{[]string{"replay", "--problem", "matmul", "--db", "nosuch.db"}, 1, "no records database at nosuch.db"},
		{[]string{"replay", "--table", poclTable, "-s", "simplex"}, 2, `unknown search strategy "simplex"`},
		{[]string{"replay", "--table", poclTable, "--then", "simplex"}, 2, `--then: the opening's continuation "simplex"`},
		{[]string{"replay", "--table", poclTable, "--stop", "evals>=5 or stal>=3"}, 2, "column 13"},
		{[]string{"replay", "--table", poclTable, "-e", "10", "--at", "20"}, 2, "more than -e 10"},
		{[]string{"replay", "--table", poclTable, "--at", "0.5x"}, 2, "--at 0.5x"},
		{[]string{"replay", "--table", "nosuch.csv"}, 1, "nosuch.csv"},
		{[]string{"replay", "--table", poclTable, "--landscape", "--export-table", "x.csv"}, 2, "--landscape or --export-table, not both"},
		{[]string{"replay", "--table", poclTable, "--landscape", "--plot", "x.png"}, 2, "--landscape replays nothing"},
		{[]string{"replay", "--table", poclTable, "--first-seed", "0"}, 2, "--first-seed"},
	} {
		st, _, errs := hplopt(c.args...)
		if st != c.status || !strings.Contains(errs, c.want) {
			t.Errorf("%v: status %d, stderr %q; want %d and %q", c.args, st, errs, c.status, c.want)
		}
	}
}

// --landscape prints the table's landscape as a line of figures, and
// --json writes them, instead of a replay.
func TestReplayLandscape(t *testing.T) {
	js := filepath.Join(t.TempDir(), "l.json")
	st, out, errs := hplopt("replay", "--table", "../testdata/replay/conv3d128-h100.csv", "--landscape", "--json", js)
	if st != 0 {
		t.Fatalf("status %d, stderr %s", st, errs)
	}
	for _, want := range []string{"\nlandscape near=2 minima=20 near-minima=1 descent=0.304 centrality=", "\nstart fraction=0.578 descent-end=1.000 moves=3 bszx=16,lszx=2,szx=8,lszy=32,lmem=1\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\nopening fraction=") {
		t.Errorf("replayed:\n%s", out)
	}
	failed := filepath.Join(t.TempDir(), "failed.csv")
	if err := os.WriteFile(failed, []byte("x,time_ms\n1,fail\n2,compile\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, out, errs := hplopt("replay", "--table", failed, "--landscape"); st != 1 || out != "" || !strings.Contains(errs, "every recorded point failed: no landscape") {
		t.Errorf("a table of failures: status %d, stdout %q, stderr %q", st, out, errs)
	}
	var l map[string]any
	data, err := os.ReadFile(js)
	if err == nil {
		err = json.Unmarshal(data, &l)
	}
	if err != nil || l["near"] != 2.0 || l["start_moves"] != 3.0 || l["centrality"] == nil || len(l["starts"].([]any)) != 8 {
		t.Errorf("JSON %v: %v", err, l)
	}
}

// A space measured exhaustively on the device (MATMUL tiny, 12 points
// with these pins, the extensions of table2-3 at their neutral values,
// split 1 and ftz 0 on a CPU) replays the same from the records (--problem) as from
// the table they export (--export-table): the same rows, start points and
// results.
func TestReplayRecords(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("tunes on the device")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	pins := "interleave=0,lmem=0,lcopy=0,tw0=0,bszy=1,lszy=1,szy=32,uf=4,lszx=4,fullunroll=1,vec=1,warp=0,gswz=1"
	if st, out, errs := hplopt("tune", "matmul", "--size", "tiny", "-s", "exhaustive", "-t", "300", "-q", "--db", db, "--params", pins); st != 0 || !strings.Contains(out, "stopped: exhausted") {
		t.Fatalf("tune: status %d\n%s%s", st, out, errs)
	}
	table := filepath.Join(dir, "t.csv")
	st, out, errs := hplopt("replay", "--db", db, "--export-table", table) // its only problem
	if st != 0 || !strings.Contains(out, "12 points") {
		t.Fatalf("export: status %d\n%s%s", st, out, errs)
	}
	data, _ := os.ReadFile(table)
	for _, want := range []string{"# kernel: mxm\n", "# start: bszx=1,", "\nbszx,bszy,fullunroll,interleave,vw,vec,lszx,szx,lszy,warp,szy,gswz,tw0,uf,lmem,lcopy,pack,ltrans,prefetch,split,ftz,fission,coff,time_ms,cost_ms\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the exported table lacks %q:\n%s", want, data)
		}
	}
	var results [2]string
	for i, from := range [][]string{{"--db", db, "--problem", "mxm"}, {"--table", table}} {
		js := filepath.Join(dir, fmt.Sprint(i, ".json"))
		st, out, errs := hplopt(append([]string{"replay", "-s", "random,genetic,annealing,model", "-e", "8", "--seeds", "4", "--json", js}, from...)...)
		if st != 0 || !strings.Contains(out, "12 points (0 failed)") || strings.Contains(out, " 0 start points") {
			t.Fatalf("replay %v: status %d\n%s%s", from, st, out, errs)
		}
		b, _ := os.ReadFile(js)
		results[i] = string(b)
	}
	if results[0] != results[1] {
		t.Errorf("replayed from the records:\n%s\nfrom the exported table:\n%s", results[0], results[1])
	}
	// The landscape too, but for the header's name of the space.
	var lands [2]string
	for i, from := range [][]string{{"--db", db, "--problem", "mxm"}, {"--table", table}} {
		st, out, errs := hplopt(append([]string{"replay", "--landscape"}, from...)...)
		if st != 0 || !strings.Contains(out, "\nlandscape near=") {
			t.Fatalf("landscape %v: status %d\n%s%s", from, st, out, errs)
		}
		lands[i] = out[strings.LastIndex(out, "\nlandscape "):]
	}
	if lands[0] != lands[1] {
		t.Errorf("landscape from the records %q, from the exported table %q", lands[0], lands[1])
	}
	if st, _, errs := hplopt("replay", "--db", db, "--problem", "conv2d"); st != 1 || !strings.Contains(errs, `no recorded problem has an ID starting with "conv2d" or kernel "conv2d"`) {
		t.Errorf("replay of a problem not recorded: status %d, %s", st, errs)
	}
}

// TestBatchFlag checks --batch: bayes replayed with rounds of 4 differs
// from bayes with rounds of 1 (the default) on the same seeds, and a batch
// for a strategy other than bayes is refused, in replay and in tune.
func TestBatchFlag(t *testing.T) {
	dir := t.TempDir()
	curves := func(name string, args ...string) string {
		t.Helper()
		js := filepath.Join(dir, name+".json")
		st, _, errs := hplopt(append([]string{"replay", "--table", "../testdata/replay/conv2d256-pocl.csv", "-s", "bayes", "-e", "40", "--seeds", "4", "--json", js}, args...)...)
		if st != 0 {
			t.Fatalf("%v: status %d, stderr %s", args, st, errs)
		}
		data, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	one := curves("one")
	if four := curves("four", "--batch", "4"); one == four {
		t.Errorf("bayes with --batch 4 replays as with a batch of 1:\n%s", one)
	}
	if again := curves("again", "--batch", "1"); one != again {
		t.Errorf("--batch 1 is not the default")
	}
	st, _, errs := hplopt("replay", "--table", poclTable, "-s", "genetic,random", "--batch", "4", "-e", "20", "--seeds", "2")
	if st == 0 || !strings.Contains(errs, "batch of 4 points a round is for strategy bayes") {
		t.Errorf("replay genetic,random --batch 4: status %d, stderr %q", st, errs)
	}
	st, _, errs = hplopt("tune", "matmul", "-n", "32,32", "-k", "32", "-d", "CPU", "-s", "random", "--batch", "4", "-e", "2", "--no-db")
	if st == 0 || !strings.Contains(errs, "batch of 4 points a round is for strategy bayes, not random") {
		t.Errorf("tune -s random --batch 4: status %d, stderr %q", st, errs)
	}
}

// replayOpening replays strategy opening on gs-update 4096 (81
// evaluations, 2 seeds) with args, and returns its output and its one
// JSON result.
func replayOpening(t *testing.T, args ...string) (string, map[string]any) {
	t.Helper()
	js := filepath.Join(t.TempDir(), "r.json")
	st, out, errs := hplopt(append([]string{"replay", "--table", "../testdata/replay/gs-update4096-h200.csv", "-s", "opening", "-e", "81", "--seeds", "2", "--json", js}, args...)...)
	if st != 0 {
		t.Fatalf("%v: status %d, stderr %s", args, st, errs)
	}
	var res []map[string]any
	data, err := os.ReadFile(js)
	if err == nil {
		err = json.Unmarshal(data, &res)
	}
	if err != nil || len(res) != 1 {
		t.Fatalf("%v: JSON: %v", args, err)
	}
	return out, res[0]
}

// --then model replays the default with the model's rounds after its
// opening: the same first evaluations (the opening's third of -e, 27 of
// 81 on gs-update 4096, where the opening stays at 0.930 of the optimum;
// on TRANSPOSE 4096 H100 both searches now reach the same best in the
// opening, and on 3DCONV 128 the optimum), then another search than with
// the genetic algorithm.
func TestReplayThen(t *testing.T) {
	curve := func(args ...string) []any {
		_, res := replayOpening(t, args...)
		return res["curve"].([]any)
	}
	genetic, model := curve(), curve("--then", "model")
	if !reflect.DeepEqual(genetic[:27], model[:27]) {
		t.Errorf("the opening's 27 evaluations differ with --then model:\n%v\n%v", genetic[:27], model[:27])
	}
	if reflect.DeepEqual(genetic, model) {
		t.Error("--then model replayed the same searches as without it")
	}
	// Live, on PoCL: the model takes over after the opening's 4 points
	// (a third of 12) and the search keeps its budget; a continuation
	// that is none of genetic and model is refused.
	js := filepath.Join(t.TempDir(), "t.json")
	st, _, errs := hplopt("tune", "matmul", "-n", "32,32", "-k", "32", "-d", "CPU", "-s", "opening", "--then", "model", "-e", "12", "-t", "600", "--no-db", "-q", "--json", js)
	if st != 0 {
		t.Fatalf("tune --then model: status %d, stderr %s", st, errs)
	}
	if rep := readReport(t, js); rep.Strategy != "opening" || rep.Measured != 12 {
		t.Errorf("tune --then model: %+v", rep)
	}
	st, _, errs = hplopt("tune", "matmul", "-n", "32,32", "-k", "32", "-d", "CPU", "--then", "simplex", "-e", "2", "--no-db")
	if st == 0 || !strings.Contains(errs, `the opening's continuation "simplex" is none of genetic, model`) {
		t.Errorf("tune --then simplex: status %d, stderr %q", st, errs)
	}
	st, _, errs = hplopt("tune", "matmul", "-n", "32,32", "-k", "32", "-d", "CPU", "-s", "random", "--then", "model", "-e", "2", "--no-db")
	if st == 0 || !strings.Contains(errs, "a continuation after the opening (model) is for strategy opening, not random") {
		t.Errorf("tune -s random --then model: status %d, stderr %q", st, errs)
	}
}

// --opening sets the opening's candidates in a replay and live: on
// gs-update 4096 with global-rounds=2 the searches are the default's for
// the first 36 evaluations (the initial points and the two rounds that
// choose a point anywhere) and another search after, and the output and
// the JSON name the settings; a mistake in them, or settings given to
// another strategy, is refused with what is wrong.
func TestReplayOpening(t *testing.T) {
	defOut, def := replayOpening(t)
	out, global := replayOpening(t, "--opening", "global-rounds=2,plateau=0.1")
	a, b := def["curve"].([]any), global["curve"].([]any)
	if !reflect.DeepEqual(a[:36], b[:36]) || reflect.DeepEqual(a, b) {
		t.Errorf("global-rounds=2: the first 36 evaluations should be the default's and the rest not:\n%v\n%v", a, b)
	}
	if strings.Contains(defOut, "settings") || def["settings"] != nil {
		t.Errorf("the default names settings: %q, %v", defOut, def["settings"])
	}
	if !strings.Contains(out, "# strategy opening's settings: global-rounds=2 (the others its defaults)\n") || global["settings"] != "global-rounds=2" {
		t.Errorf("global-rounds=2: output %q, JSON settings %v", out, global["settings"])
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--opening", "global-round=2"}, `invalid value "global-round=2" for flag -opening: opening setting "global-round": unknown`},
		{[]string{"--opening", "share=2"}, `opening setting share: "2" is not a number above 0 and at most 1, or none`},
		{[]string{"--opening", "then=model", "--then", "genetic"}, "the opening's continuation is given twice, genetic (--then) and model (--opening then=)"},
		{[]string{"-s", "random", "--opening", "cover=2"}, "the opening's settings (cover=2) are for strategy opening, not random"},
	} {
		st, _, errs := hplopt(append([]string{"replay", "--table", "../testdata/replay/gs-update4096-h200.csv", "-e", "20", "--seeds", "1"}, c.args...)...)
		if st == 0 || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: status %d, stderr %q, want %q", c.args, st, errs, c.msg)
		}
	}
	// Live, on PoCL: the opening with its settings runs its budget; another
	// strategy given them is refused.
	js := filepath.Join(t.TempDir(), "t.json")
	st, out, errs := hplopt("tune", "matmul", "-n", "32,32", "-k", "32", "-d", "CPU", "-s", "opening", "--opening", "global-rounds=1,isotropic,evaluations=8", "-e", "10", "-t", "600", "--no-db", "-q", "--json", js)
	if st != 0 {
		t.Fatalf("tune --opening: status %d, stderr %s", st, errs)
	}
	const set = "evaluations=8,global-rounds=1,isotropic=true"
	if rep := readReport(t, js); rep.Strategy != "opening" || rep.StrategySettings != set || rep.Measured != 10 || !strings.Contains(out, "strategy      opening ("+set+"), seed 1,") {
		t.Errorf("tune --opening: %+v, stdout %q", rep, out)
	}
	st, _, errs = hplopt("tune", "matmul", "-n", "32,32", "-k", "32", "-d", "CPU", "-s", "genetic", "--opening", "omit-illegal", "-e", "2", "--no-db")
	if st == 0 || !strings.Contains(errs, "the opening's settings (omit-illegal=true) are for strategy opening, not genetic") {
		t.Errorf("tune -s genetic --opening omit-illegal: status %d, stderr %q", st, errs)
	}
}

// --first-seed N replays seeds N to N+--seeds-1: seed 2 alone replays
// another search than seed 1 alone, --first-seed 1 is the default, and the
// header says where the seeds start (replay's TestReplayFirstSeed checks
// the seeds' medians).
func TestReplayFirstSeed(t *testing.T) {
	line := func(args ...string) (string, string) {
		st, out, errs := hplopt(append([]string{"replay", "--table", poclTable, "-s", "random", "-e", "30"}, args...)...)
		if st != 0 {
			t.Fatalf("%v: status %d, stderr %s", args, st, errs)
		}
		head, rest, _ := strings.Cut(out, "\n")
		return head, rest
	}
	h1, one := line("--seeds", "1")
	h2, two := line("--seeds", "1", "--first-seed", "2")
	if one == two {
		t.Errorf("seeds 1 and 2 replayed the same search:\n%s", one)
	}
	if !strings.Contains(h1, " 1 seeds, ") || !strings.Contains(h2, " 1 seeds from 2, ") {
		t.Errorf("headers %q and %q", h1, h2)
	}
	if _, def := line("--seeds", "1", "--first-seed", "1"); def != one {
		t.Errorf("--first-seed 1 replayed another search than the default")
	}
}

// --tables replays the default on every table the globs match, a tenth
// of each (the figures of BenchmarkEveryTable, docs/replay/every/tenth.txt:
// gs-update 4096 at 0.930 after 21 evaluations, syrk 1024 at 1.000), and
// counts those meeting the target, over every table and over --subset's;
// the JSON holds the same, and --against it lists the tables another
// replay moved; mistakes are refused with what is wrong.
func TestReplayTables(t *testing.T) {
	dir := t.TempDir()
	subset := filepath.Join(dir, "subset.txt")
	if err := os.WriteFile(subset, []byte("# one of them\ntestdata/replay/syrk1024-h100.csv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(dir, "r.json")
	st, out, errs := hplopt("replay", "--tables", "../testdata/replay/gs-update4096-h200.csv,../testdata/replay/syrk1024-h1*.csv", "--subset", subset, "--json", js)
	if st != 0 {
		t.Fatalf("status %d, stderr %s", st, errs)
	}
	for _, want := range []string{
		"# opening, seeds 1 to 20, a budget of 0.1 of each table's rows (at least 20 evaluations)",
		"| gs-update4096-h200.csv | 81 | 0.930 (21) | - | yes | - |",
		"| syrk1024-h100.csv | 91 | 1.000 (23) | 6 | yes | - |",
		"every table (2): 1 at 0.95 after 2.5%, 2 beat random search from 20 to the budget;",
		"(1): 1 at 0.95 after 2.5%, 1 beat random search",
		"met the target: 1 of 2 (1 of the 1 of " + subset + "); missed: gs-update4096-h200.csv\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "replayed 2 of 2: ") {
		t.Errorf("no progress on stderr: %q", errs)
	}
	var rep struct {
		Strategy string `json:"strategy"`
		Tables   []struct {
			Table    string  `json:"table"`
			Budget   int     `json:"budget"`
			Fraction float64 `json:"fraction"`
		} `json:"tables"`
		All    struct{ Tables, Met int } `json:"all"`
		Missed []string                  `json:"missed"`
	}
	data, err := os.ReadFile(js)
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err != nil || rep.Strategy != "opening" || len(rep.Tables) != 2 || rep.Tables[0].Budget != 81 || rep.All.Tables != 2 || rep.All.Met != 1 || !reflect.DeepEqual(rep.Missed, []string{"gs-update4096-h200.csv"}) {
		t.Errorf("JSON: %+v, %v", rep, err)
	}
	// Compared with that JSON: without the anchored initial points
	// gs-update 4096 falls to 0.720 and behind random search.
	st, out, errs = hplopt("replay", "--tables", "../testdata/replay/gs-update4096-h200.csv,../testdata/replay/syrk1024-h1*.csv", "--opening", "anchored=none", "--against", js)
	for _, want := range []string{
		"# against " + js + ": opening, seeds 1 to 20, a budget of 0.1;",
		"\ngs-update4096-h200.csv: 0.930 yes -> 0.720 no\n",
		"against " + js + ": of the 2 tables in both, 0 gained the target, 0 lost it\n",
	} {
		if st != 0 || !strings.Contains(out, want) {
			t.Errorf("--against: status %d, output lacks %q:\n%s\nstderr %s", st, want, out, errs)
		}
	}
	if strings.Contains(out, "syrk1024-h100.csv: ") {
		t.Errorf("--against lists syrk 1024, unchanged:\n%s", out)
	}
	// Started from the best of its other sizes (--tuned), as a live
	// search with them in its records: gs-update 4096 meets the target.
	js2 := filepath.Join(dir, "tuned.json")
	st, out, errs = hplopt("replay", "--tables", "../testdata/replay/gs-update4096-h200.csv,../testdata/replay/syrk1024-h1*.csv", "--tuned", "../testdata/replay/gs-update*.csv", "--against", js, "--json", js2)
	for _, want := range []string{
		"# --tuned ../testdata/replay/gs-update*.csv: the searches of 1 of the 2 tables first start from the best of the nearest of those tables of their kernel",
		"\ngs-update4096-h200.csv: 0.930 yes -> 1.000 yes (now meets the target)\n",
		"of the 2 tables in both, 1 gained the target, 0 lost it\n",
	} {
		if st != 0 || !strings.Contains(out, want) {
			t.Errorf("--tuned: status %d, output lacks %q:\n%s\nstderr %s", st, want, out, errs)
		}
	}
	var tuned struct {
		Tuned  string `json:"tuned"`
		Tables []struct {
			Table string   `json:"table"`
			Tuned []string `json:"tuned"`
		} `json:"tables"`
	}
	data, err = os.ReadFile(js2)
	if err == nil {
		err = json.Unmarshal(data, &tuned)
	}
	if err != nil || tuned.Tuned != "../testdata/replay/gs-update*.csv" || len(tuned.Tables) != 2 ||
		!reflect.DeepEqual(tuned.Tables[0].Tuned, []string{"gs-update5120-h200-fdtd.csv", "gs-update3072-h200.csv", "gs-update6144-h200.csv"}) || tuned.Tables[1].Tuned != nil {
		t.Errorf("--tuned JSON: %+v, %v", tuned, err)
	}
	// Only what one cold search of each other size found (--tuned-found):
	// those searches stop in gs-update 4096's slower basin too.
	st, out, errs = hplopt("replay", "--tables", "../testdata/replay/gs-update4096-h200.csv", "--tuned", "../testdata/replay/gs-update*.csv", "--tuned-found")
	for _, want := range []string{"--tuned-found (of each, the rows one search of the default measured, seed 1)", "| gs-update4096-h200.csv | 81 | 0.930 (21) |"} {
		if st != 0 || !strings.Contains(out, want) {
			t.Errorf("--tuned-found: status %d, output lacks %q:\n%s\nstderr %s", st, want, out, errs)
		}
	}
	st, out, errs = hplopt("replay", "--table", "../testdata/replay/gs-update4096-h200.csv", "-s", "random", "--seeds", "1", "--tuned", "../testdata/replay/gs-update*.csv", "--tuned-found", "--tuned-seed", "2")
	if want := "# --tuned --tuned-found (of each, the rows one search of the default measured, seed 2): the searches first start from the best of "; st != 0 || !strings.Contains(out, want) {
		t.Errorf("--tuned-seed 2: status %d, output lacks %q:\n%s\nstderr %s", st, want, out, errs)
	}
	// One table: the line says where its searches start.
	st, out, errs = hplopt("replay", "--table", "../testdata/replay/syrk1024-h100.csv", "-s", "random", "--seeds", "2", "--tuned", "../testdata/replay/syrk*.csv,../testdata/replay/gs-update*.csv")
	if want := "# --tuned: the searches first start from the best of syrk1024-h200.csv, syrk1536-h200.csv, carried to these sizes"; st != 0 || !strings.Contains(out, want) {
		t.Errorf("--table --tuned: status %d, output lacks %q:\n%s\nstderr %s", st, want, out, errs)
	}
	st, out, errs = hplopt("replay", "--table", "../testdata/replay/nbody32768-h100.csv", "-s", "random", "--seeds", "2", "--tuned", "../testdata/replay/nbody*-h100*.csv")
	if want := "# --tuned: no table of this kernel's family or kin"; st != 0 || !strings.Contains(out, want) {
		t.Errorf("--table --tuned, none: status %d, output lacks %q:\n%s\nstderr %s", st, want, out, errs)
	}
	// Another strategy, share and settings: named in the first line.
	st, out, errs = hplopt("replay", "--tables", "../testdata/replay/syrk1024-h100.csv", "--opening", "global-rounds=2", "--share", "0.05", "--seeds", "3")
	if st != 0 || !strings.HasPrefix(out, "# opening (global-rounds=2), seeds 1 to 3, a budget of 0.05 of each table's rows") || !strings.Contains(out, "| syrk1024-h100.csv | 45 |") {
		t.Errorf("--opening global-rounds=2 --share 0.05: status %d, %q, stderr %s", st, out, errs)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--tables", "../testdata/replay/syrk1024-h100.csv", "-e", "30"}, "-e is for one table; --tables replays each table with --share of its rows"},
		{[]string{"--tables", "../testdata/replay/syrk1024-h100.csv", "-s", "opening,random"}, "--tables replays one strategy, not 2 (-s opening,random)"},
		{[]string{"--table", "../testdata/replay/syrk1024-h100.csv", "--share", "0.2"}, "--share is for --tables"},
		{[]string{"--tables", "../testdata/replay/nothing*.csv"}, "--tables ../testdata/replay/nothing*.csv: no file matches"},
		{[]string{"--tables", "../testdata/replay/syrk1024-h100.csv", "--tuned", "../testdata/replay/nothing*.csv"}, "--tuned ../testdata/replay/nothing*.csv: no file matches"},
		{[]string{"--table", "../testdata/replay/syrk1024-h100.csv", "--tuned", "../testdata/replay/nothing*.csv"}, "--tuned ../testdata/replay/nothing*.csv: no file matches"},
		{[]string{"--table", "../testdata/replay/syrk1024-h100.csv", "--tuned", "../testdata/replay/syrk*.csv", "--landscape"}, "--tuned starts the searches of a replay; --landscape and --export-table replay nothing"},
		{[]string{"--table", "../testdata/replay/syrk1024-h100.csv", "--tuned-found"}, "--tuned-found is for --tuned"},
		{[]string{"--table", "../testdata/replay/syrk1024-h100.csv", "--tuned", "../testdata/replay/syrk*.csv", "--tuned-seed", "2"}, "--tuned-seed is for --tuned-found"},
		{[]string{"--tables", "../testdata/replay/syrk1024-h100.csv", "-s", "random", "--opening", "cover=2"}, "hplopt replay: the opening's settings (cover=2) are for strategy opening, not random\nusage:"},
		{[]string{"--tables", "../testdata/replay/syrk1024-h100.csv", "--subset", filepath.Join(dir, "none.txt")}, "--subset: open "},
		{[]string{"--tables", "../testdata/replay/syrk1024-h100.csv", "--against", subset}, "--against " + subset + ": not a replay --tables --json output"},
		{[]string{"--table", "../testdata/replay/syrk1024-h100.csv", "--against", js}, "--against is for --tables"},
	} {
		st, _, errs := hplopt(append([]string{"replay"}, c.args...)...)
		if st == 0 || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: status %d, stderr %q, want %q", c.args, st, errs, c.msg)
		}
	}
}

// --noise replays with measurement noise and says so (TestNoise, package
// replay, checks what it does); a spread out of range is refused.
func TestReplayNoise(t *testing.T) {
	run := func(args ...string) string {
		st, out, errs := hplopt(append([]string{"replay", "--table", "../testdata/replay/syrk2048-h200.csv", "-s", "opening", "-e", "25", "--seeds", "3", "--json", filepath.Join(t.TempDir(), "r.json")}, args...)...)
		if st != 0 {
			t.Fatalf("%v: status %d, stderr %s", args, st, errs)
		}
		return out
	}
	quiet, noisy := run(), run("--noise", "0.05")
	if want := "# --noise 0.05: each evaluation measures its row's time times exp(0.05*Z)"; !strings.Contains(noisy, want) || strings.Contains(quiet, "--noise") {
		t.Errorf("output lacks %q (or the plain one has it):\n%s", want, noisy)
	}
	if st, _, errs := hplopt("replay", "--table", "../testdata/replay/syrk2048-h200.csv", "--noise", "2"); st != 2 || !strings.Contains(errs, "-noise") {
		t.Errorf("--noise 2: status %d, stderr %s", st, errs)
	}
}
