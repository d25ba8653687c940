package replay

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/strategies"
)

// pocl is the table recorded on PoCL (testdata/replay/README.md).
const pocl = "../testdata/replay/matmul128-pocl.csv"

// synthetic writes a table of 3 parameters, one string-valued, with
// dependent ranges (b <= a), holes (a=8 has no c=z) and failures.
func synthetic(t testing.TB) *Table {
	t.Helper()
	var b strings.Builder
	b.WriteString("a, b, c, time_ms, cost_ms\n")
	for _, a := range []int{1, 2, 4, 8, 16} {
		for bb := 1; bb <= a; bb *= 2 {
			for ci, c := range []string{"x", "y", "z"} {
				if a == 8 && c == "z" {
					continue
				}
				ms := fmt.Sprintf("%.4f", 1+math.Abs(math.Log2(float64(a))-3)+math.Abs(math.Log2(float64(bb))-1)/2+float64(ci)/4)
				if (a+bb+ci)%5 == 0 {
					ms = "fail"
				}
				fmt.Fprintf(&b, "%d,%d,%s,%s,%d\n", a, bb, c, ms, 100)
			}
		}
	}
	return tableOf(t, "synthetic", b.String())
}

// tableOf reads and loads the CSV table text, named name.
func tableOf(t testing.TB, name, text string) *Table {
	t.Helper()
	c, err := ReadCSV(strings.NewReader(text), name)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Load(c, name)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestReadCSV(t *testing.T) {
	c, err := ReadCSV(strings.NewReader("# a comment\nwg,layout,time_ms,cost_ms\n64,row,1.5,200\n32,col,fail,10\n64,col,compile,5\n"), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Params(), ","); got != "wg,layout" {
		t.Errorf("params %s", got)
	}
	if c.Labels(0) != nil || strings.Join(c.Labels(1), ",") != "row,col" {
		t.Errorf("labels %v %v", c.Labels(0), c.Labels(1))
	}
	rows, _ := c.Rows()
	want := []Row{
		{Values: []int{64, 0}, Outcome: autotune.OK, Ms: 1.5, Cost: 200 * time.Millisecond},
		{Values: []int{32, 1}, Outcome: autotune.Launch, Cost: 10 * time.Millisecond},
		{Values: []int{64, 1}, Outcome: autotune.Compile, Cost: 5 * time.Millisecond},
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("rows %v, want %v", rows, want)
	}
}

func TestReadCSVErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                            "empty table",
		"a,b\n1,2\n":                  "no time_ms column",
		"time_ms\n1\n":                "no parameter columns",
		"a,time_ms\n":                 "no rows",
		"a,a,time_ms\n1,1,1\n":        `names column "a" twice`,
		"a,time_ms\n1,1\n2,slow\n":    `t.csv:3: time_ms: "slow": want a positive time`,
		"a,time_ms\n1,-1\n":           `t.csv:2: time_ms: "-1"`,
		"a,time_ms\n1,1\n2\n":         "wrong number of fields",
		"a,time_ms,cost_ms\n1,1,x\n":  `t.csv:2: cost_ms "x"`,
		"a,b,time_ms\n1,,1\nz,2,1\n":  "t.csv:2: no value for b",
		"a,time_ms\n1,1\n,2\n,3\n":    "", // empty strings are an error only in string columns
		"a,time_ms\n1,1\n2,1\n1,fail": "row 3 records a=1 again",
	} {
		c, err := ReadCSV(strings.NewReader(in), "t.csv")
		if err == nil {
			_, err = Load(c, "t.csv")
		}
		if want == "" {
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "replay: ") {
			t.Errorf("%q: error %v, want one containing %q", in, err, want)
		}
	}
}

// The space is exactly the set of rows, and the evaluator returns them.
func TestTableSpace(t *testing.T) {
	tab := synthetic(t)
	s := tab.Space()
	if s.Size().Int64() != int64(tab.Len()) || tab.Len() != 3*15-4 {
		t.Fatalf("space of %v points for %d rows, want 41", s.Size(), tab.Len())
	}
	ev := tab.Evaluator()
	failed := 0
	for i := range s.Size().Int64() {
		p := s.At(big.NewInt(i))
		row, ok := tab.Lookup(p)
		if !ok {
			t.Fatalf("point %s of the space is not in the table", tab.Describe(p))
		}
		r := ev.Evaluate(context.Background(), p)
		if r.Outcome != row.Outcome || r.Ms != row.Ms {
			t.Errorf("%s: evaluated %v, recorded %v", tab.Describe(p), r, row)
		}
		if r.Outcome != autotune.OK {
			failed++
		}
	}
	if failed != tab.Failed() || failed == 0 {
		t.Errorf("%d failures evaluated, table has %d", failed, tab.Failed())
	}
	if ev.Clock() != time.Duration(tab.Len())*100*time.Millisecond {
		t.Errorf("simulated clock %v after %d evaluations of 100 ms", ev.Clock(), tab.Len())
	}
	hole, _ := s.FromValues([]int{8, 2, 2}) // a=8 has no c=z
	if s.Contains(hole) {
		t.Errorf("%s is in the space", tab.Describe(hole))
	}
	if r := ev.Evaluate(context.Background(), hole); r.Outcome != autotune.Illegal || r.Err == nil {
		t.Errorf("unrecorded point evaluated to %v, want illegal", r)
	}
	if got := tab.Describe(hole); got != "a=8,b=2,c=z" {
		t.Errorf("Describe = %q", got)
	}
}

// ExpectedRandom is the mean over every subset of n recorded times of its
// smallest.
func TestExpectedRandom(t *testing.T) {
	tab := &Table{valid: []float64{1, 2, 2, 3, 5, 8, 9}}
	m := len(tab.valid)
	for n := 1; n <= m+1; n++ {
		sum, count := 0.0, 0
		for mask := 0; mask < 1<<m; mask++ {
			bits, best := 0, math.Inf(1)
			for i := range m {
				if mask&(1<<i) != 0 {
					bits++
					best = math.Min(best, tab.valid[i])
				}
			}
			if bits == min(n, m) {
				sum += best
				count++
			}
		}
		if got, want := tab.ExpectedRandom(n), sum/float64(count); math.Abs(got-want) > 1e-12 {
			t.Errorf("ExpectedRandom(%d) = %v, want %v", n, got, want)
		}
	}
	if !math.IsInf(tab.ExpectedRandom(0), 1) {
		t.Error("ExpectedRandom(0) is finite")
	}
}

// Every strategy replayed on the synthetic table stays on recorded points,
// and an exhaustive replay of the whole table reaches the optimum.
func TestReplaySynthetic(t *testing.T) {
	tab := synthetic(t)
	res, err := Replay(context.Background(), tab, Config{Strategies: strategies.Names(), Evaluations: tab.Len(), Seeds: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Stopped["exhausted"]+r.Stopped["max-evals"] != 3 {
			t.Errorf("%s: searches stopped by %v", r.Strategy, r.Stopped)
		}
		if last := r.At(tab.Len()); last.MedianFraction != 1 || last.Q1Fraction != 1 {
			t.Errorf("%s: after the whole table, fraction %v (q1 %v), want 1", r.Strategy, last.MedianFraction, last.Q1Fraction)
		}
		for n := 2; n <= tab.Len(); n++ {
			if r.At(n).MedianFraction < r.At(n-1).MedianFraction {
				t.Errorf("%s: median fraction falls from %v to %v at %d evaluations", r.Strategy, r.At(n-1).MedianFraction, r.At(n).MedianFraction, n)
			}
		}
	}
	for _, name := range strategies.Names() {
		s, _ := strategies.New(name, tab.Space(), autotune.NewRand(1), strategies.Options{})
		rep, err := autotune.Tune(context.Background(), autotune.Settings{}, tab.Space(), s, tab.Evaluator())
		if err != nil {
			t.Fatal(err)
		}
		if rep.Failures.Illegal != 0 || rep.Evaluations != tab.Len() {
			t.Errorf("%s: %d illegal points in %d evaluations of %d rows", name, rep.Failures.Illegal, rep.Evaluations, tab.Len())
		}
	}
}

// Random search's score averages to about 0: the closed form matches the
// strategy.
func TestReplayRandomScoresZero(t *testing.T) {
	tab, err := LoadCSV(pocl)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Replay(context.Background(), tab, Config{Strategies: []string{"random"}, Evaluations: 30, Seeds: 400})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{5, 10, 30} {
		if s := res[0].At(n).Score; math.Abs(s) > 0.1 {
			t.Errorf("random search's score after %d evaluations over 400 seeds: %.3f, want about 0", n, s)
		}
	}
}

// The stop condition ends replayed searches, its time on the simulated
// clock (the recorded costs).
func TestReplayStop(t *testing.T) {
	tab := synthetic(t)
	for stop, evals := range map[string]int{"evals>=7": 7, "time>=1s": 10, "space>=50%": 21} {
		res, err := Replay(context.Background(), tab, Config{Strategies: []string{"random"}, Evaluations: 30, Seeds: 2, Stop: autotune.MustParseStop(stop)})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Stopped["stop-condition"] != 2 {
			t.Errorf("%s: stopped %v", stop, res[0].Stopped)
		}
		// After the stop, the best is carried on: the curve is flat.
		if a, b := res[0].At(evals), res[0].At(30); a != (Point{Evaluations: evals, MedianFraction: b.MedianFraction, Q1Fraction: b.Q1Fraction, Q3Fraction: b.Q3Fraction, Score: a.Score}) {
			t.Errorf("%s: figures change after the stop: %+v, then %+v", stop, a, b)
		}
	}
}

// A point rejected as illegal takes no place in a replay's curve, as it
// does not count against -e: on the NBODY table (63 illegal rows), every
// search measures -e rows, and its best after n evaluations is that of
// its first n rows measured.
func TestReplayRejectedNotCounted(t *testing.T) {
	// The curve follows Tune's marks (autotune.Eval.Counted; the rule is
	// autotune's, TestTuneRejectedNotCounted).
	ms := func(o autotune.Outcome, ms float64) autotune.Eval {
		return autotune.Eval{Result: autotune.Result{Outcome: o, Ms: ms}, Counted: o != autotune.Illegal}
	}
	rep := &autotune.Report{History: []autotune.Eval{ms(autotune.Illegal, 0), ms(autotune.OK, 2), ms(autotune.Illegal, 0), ms(autotune.Compile, 0), ms(autotune.OK, 1), ms(autotune.OK, 3)}}
	if got, want := bestSoFar(rep, 4, nil), []float64{2, 2, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("best so far %v, want %v", got, want)
	}
	tab, err := LoadCSV("../testdata/replay/nbody32768-h100.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{strategies.Random, strategies.Default} {
		rejected := 0
		for seed := uint64(1); seed <= 5; seed++ {
			s, _ := strategies.New(name, tab.Space(), autotune.NewRand(seed), strategies.Options{Evaluations: 50, Seeds: tab.Start()})
			rep, err := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: 50}, tab.Space(), s, tab.Evaluator())
			if err != nil {
				t.Fatal(err)
			}
			if rep.Measured != 50 || rep.Evaluations != 50+rep.Rejected {
				t.Errorf("%s, seed %d: %d evaluations, %d measured, %d rejected; want 50 measured", name, seed, rep.Evaluations, rep.Measured, rep.Rejected)
			}
			rejected += rep.Rejected
			curve, best, k := bestSoFar(rep, 50, nil), math.Inf(1), 0
			for _, e := range rep.History {
				if e.Result.Outcome == autotune.Illegal {
					continue
				}
				best = math.Min(best, e.Result.Fitness())
				if curve[k] != best {
					t.Errorf("%s, seed %d: best after %d evaluations %v, want %v (the best of the first rows measured)", name, seed, k+1, curve[k], best)
					break
				}
				k++
			}
		}
		if rejected == 0 {
			t.Errorf("%s: no illegal row proposed in 5 searches of 50", name)
		}
	}
}

func TestReplayErrors(t *testing.T) {
	tab := synthetic(t)
	for _, c := range []Config{{Evaluations: 5}, {Strategies: []string{"random"}}, {Strategies: []string{"simplex"}, Evaluations: 5},
		{Strategies: []string{"opening"}, Evaluations: 5, Opening: strategies.OpeningSettings{Then: "simplex"}},
		{Strategies: []string{"genetic", "random"}, Evaluations: 5, Opening: strategies.OpeningSettings{Then: "model"}}} {
		if _, err := Replay(context.Background(), tab, c); err == nil || !strings.HasPrefix(err.Error(), "replay: ") {
			t.Errorf("%+v: error %v", c, err)
		}
	}
}

func TestWritePlot(t *testing.T) {
	tab := synthetic(t)
	res, err := Replay(context.Background(), tab, Config{Strategies: []string{"random", "genetic"}, Evaluations: 20, Seeds: 3})
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "p.png")
	if err := WritePlot(f, tab, res); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(f)
	if err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("plot: %d bytes, %v", len(b), err)
	}
}

// Every strategy replayed on the recorded 2DCONV table (with failures)
// evaluates only recorded points.
func TestReplayRecordedWithFailures(t *testing.T) {
	tab, err := LoadCSV("../testdata/replay/conv2d256-pocl.csv")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 693 || tab.Failed() != 16 {
		t.Fatalf("%d rows, %d failed; want 693, 16", tab.Len(), tab.Failed())
	}
	for _, name := range strategies.Names() {
		s, _ := strategies.New(name, tab.Space(), autotune.NewRand(2), strategies.Options{Evaluations: 60})
		rep, err := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: 60}, tab.Space(), s, tab.Evaluator())
		if err != nil {
			t.Fatal(err)
		}
		if rep.Failures.Illegal != 0 || rep.Evaluations != 60 || !rep.Found {
			t.Errorf("%s: %d evaluations, %d of unrecorded points, found %v", name, rep.Evaluations, rep.Failures.Illegal, rep.Found)
		}
	}
}

// Every committed table loads, and its start points (repaired into its
// space, without repeats) are rows of it: tables recorded with an older space (table2-2) keep loading
// after the space grows, their rows and start points naming the
// parameters they were recorded with.
// Each table's rows, failures and optimum are those its recording printed
// (testdata/replay/README.md), the PoCL tables' after their fastest rows were
// measured again; a table committed later gets its line here.
func TestCommittedTables(t *testing.T) {
	want := map[string]struct {
		rows, failed int
		optimum      float64 // ms
	}{
		"matmul128-pocl.csv":          {895, 0, 0.103785},
		"conv2d256-pocl.csv":          {693, 16, 0.143729},
		"mv1024-pocl.csv":             {945, 0, 0.335639},
		"matmul1024-h100.csv":         {1295, 99, 0.08512},
		"conv2d1024-h100.csv":         {885, 68, 0.012608},
		"matmul128-pocl-xeon.csv":     {1875, 375, 0.0423905},
		"conv2d256-pocl-xeon.csv":     {894, 180, 0.0493025},
		"mv1024-pocl-xeon.csv":        {1070, 0, 0.05844149999999999},
		"conv2d1024-h100-quiet.csv":   {885, 68, 0.012256},
		"syrk1024-h100.csv":           {912, 200, 0.085504},
		"nbody32768-h100.csv":         {504, 63, 1.895808},
		"mv8192-h100.csv":             {523, 0, 0.33728},
		"nbody32768-h100-wide.csv":    {2480, 310, 1.018592},
		"mv8192-h100-wide.csv":        {2200, 0, 0.300128},
		"conv2d1024-h100-wide.csv":    {2890, 1155, 0.012416},
		"matmul1024-h100-wide.csv":    {4608, 1712, 0.082432},
		"transpose4096-h100.csv":      {2256, 0, 0.069408},
		"syr2k1024-h100.csv":          {2360, 1402, 0.157984},
		"dcs3d64-h100.csv":            {4384, 548, 0.358336},
		"matmul512-pocl.csv":          {510, 0, 1.1904335},
		"mv4096-pocl.csv":             {570, 0, 2.1592114999999996},
		"conv2d2048-pocl.csv":         {570, 0, 1.8864545},
		"conv3d128-h100.csv":          {1626, 65, 0.045728},
		"jacobi2d4096-h100.csv":       {4272, 0, 0.056384},
		"covariance1024-h100.csv":     {2790, 132, 0.092832},
		"sepfilter4096-h100.csv":      {3552, 159, 0.078912},
		"stencil3d256-h100.csv":       {3480, 89, 0.06048},
		"conv1d32768-h100.csv":        {3100, 10, 0.372224},
		"matmul-guard2000-h100.csv":   {2592, 496, 2.31456},
		"mvt8192-h100.csv":            {2750, 325, 0.28016},
		"boxfilter4096-h100.csv":      {1620, 78, 0.050624},
		"fdtd-ey4096-h100.csv":        {2112, 24, 0.075552},
		"conv3d128-h200.csv":          {1626, 65, 0.045632},
		"boxfilter4096-h200.csv":      {1620, 78, 0.044064},
		"transpose4096-h200.csv":      {2256, 0, 0.061024},
		"mvt8192-h200.csv":            {2750, 325, 0.291264},
		"sepfilter4096-h200.csv":      {3552, 159, 0.07568},
		"conv3d128k3-h200.csv":        {1626, 25, 0.015328},
		"conv3d128k7-h200.csv":        {1626, 90, 0.096096},
		"bicg8192-h200.csv":           {2750, 475, 0.319488},
		"gs-r4096-h200.csv":           {2510, 230, 0.149088},
		"stencil2d4096-h200.csv":      {1620, 78, 0.038784},
		"gs-update4096-h200.csv":      {810, 0, 0.033408},
		"fdtd-hz4096-h200.csv":        {2112, 84, 0.066752},
		"gs-update8192-h200.csv":      {870, 0, 0.126048},
		"gs-update2048-h200.csv":      {720, 0, 0.01088},
		"jacobi2d4096-h200-box.csv":   {1620, 78, 0.044416},
		"transpose4096-h200-box.csv":  {810, 0, 0.251776},
		"fdtd-ey4096-h200-box.csv":    {1620, 78, 0.050432},
		"gs-r8192-h200.csv":           {2750, 325, 0.295168},
		"gs-update4096-h200-fdtd.csv": {1056, 0, 0.041664},
		"gs-update8192-h200-fdtd.csv": {1074, 0, 0.156896},
		"gs-update6144-h200.csv":      {870, 0, 0.07584},
		"fdtd-hz4096-h200-box.csv":    {1620, 168, 0.066816},
		"transpose8192-h200-box.csv":  {870, 0, 0.991168},
		"stencil2d4096-h200-fdtd.csv": {2112, 24, 0.040512},
		"boxfilter4096-h200-fdtd.csv": {2112, 24, 0.04256},
		"jacobi2d4096-h200-fdtd.csv":  {2112, 24, 0.044064},
		"transpose4096-h200-fdtd.csv": {1056, 0, 0.238592},
		"mv8192-h200-mvt.csv":         {2750, 325, 0.305408},
		"bicg4096-h200.csv":           {2510, 355, 0.147936},
		"mvt4096-h200.csv":            {2510, 230, 0.14096},
		"stencil2d8192-h200.csv":      {1740, 96, 0.137952},
		"jacobi2d8192-h200-fdtd.csv":  {2148, 30, 0.156768},
		"boxfilter8192-h200.csv":      {1740, 96, 0.15408},
		"fdtd-ey8192-h200.csv":        {2148, 30, 0.22448},
		"stencil2d8192-h200-fdtd.csv": {2148, 30, 0.146944},
		"fdtd-hz8192-h200.csv":        {2148, 102, 0.24928},
		"boxfilter8192-h200-fdtd.csv": {2148, 30, 0.153856},
		"jacobi2d8192-h200-box.csv":   {1740, 96, 0.152128},
		"transpose8192-h200-fdtd.csv": {1074, 0, 0.938368},
		"fdtd-ey8192-h200-box.csv":    {1740, 96, 0.188416},
		"mvt16384-h200.csv":           {2950, 425, 0.5984},
		"bicg16384-h200.csv":          {2950, 580, 0.752128},
		"conv2d2048-h200.csv":         {1002, 120, 0.035968},
		"stencil2d6144-h200-fdtd.csv": {2148, 30, 0.085536},
		"jacobi2d6144-h200-box.csv":   {1740, 96, 0.091232},
		"boxfilter6144-h200-fdtd.csv": {2148, 30, 0.088576},
		"fdtd-hz6144-h200-box.csv":    {1740, 198, 0.143136},
		"transpose6144-h200-fdtd.csv": {1074, 0, 0.546112},
		"fdtd-ey6144-h200.csv":        {2148, 30, 0.129696},
		"conv3d256k3-h200.csv":        {2180, 205, 0.091392},
		"sepfilter8192-h200.csv":      {3710, 165, 0.276256},
		"gs-update6144-h200-fdtd.csv": {1074, 0, 0.09024},
		"transpose8192-h200.csv":      {2328, 0, 0.226208},
		"jacobi2d8192-h200.csv":       {4512, 0, 0.160128},
		"syrk2048-h200.csv":           {992, 280, 0.676608},
		"gs-r16384-h200.csv":          {2950, 425, 0.589568},
		"conv1d65536-h200.csv":        {3200, 15, 0.902368},
		"covariance2048-h200.csv":     {3410, 240, 0.650304},
		"stencil3d512-h200.csv":       {3840, 342, 0.372064},
		"gs-update3072-h200.csv":      {810, 0, 0.018592},
		"syrk1536-h200.csv":           {992, 280, 1.319424},
		"bicg6144-h200.csv":           {2750, 475, 0.235264},
		"gs-update5120-h200-fdtd.csv": {1074, 0, 0.060224},
		"jacobi2d6144-h200-fdtd.csv":  {2148, 30, 0.094016},
		"boxfilter5120-h200-fdtd.csv": {2148, 30, 0.06384},
		"fdtd-ey5120-h200.csv":        {2148, 30, 0.0912},
		"bicg5120-h200.csv":           {2750, 475, 0.190976},
		"fdtd-ey7168-h200.csv":        {2148, 30, 0.170912},
		"boxfilter7168-h200-fdtd.csv": {2148, 30, 0.11872},
		"jacobi2d5120-h200-fdtd.csv":  {2148, 30, 0.066624},
		"gs-update7168-h200-fdtd.csv": {1074, 0, 0.120192},
		"nbody32768-h200.csv":         {504, 63, 1.894048},
		"mv8192-h200.csv":             {523, 0, 0.345664},
		"conv2d1024-h200.csv":         {885, 68, 0.012256},
		"syrk1024-h200.csv":           {912, 200, 0.084992},
		"matmul1024-h200.csv":         {1295, 99, 0.082752},
		"boxfilter3072-h200-fdtd.csv": {2112, 24, 0.026144},
		"syr2k1024-h200.csv":          {2360, 1402, 0.157664},
		"nbody32768-h200-wide.csv":    {2480, 310, 1.017376},
		"mv8192-h200-wide.csv":        {2200, 0, 0.305376},
		"bicg8192-h100.csv":           {2750, 475, 0.333312},
	}
	files, err := filepath.Glob("../testdata/replay/*.csv")
	if err != nil || len(files) != len(want) {
		t.Fatalf("%d tables, want %d: %v", len(files), len(want), err)
	}
	for _, f := range files {
		tab, err := LoadCSV(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		w, ok := want[filepath.Base(f)]
		if !ok {
			t.Errorf("%s: no counts to check", f)
		} else if tab.Len() != w.rows || tab.Failed() != w.failed || tab.Optimum() != w.optimum {
			t.Errorf("%s: %d rows, %d failed, optimum %v ms; want %d, %d, %v", f, tab.Len(), tab.Failed(), tab.Optimum(), w.rows, w.failed, w.optimum)
		}
		c, err := OpenCSV(f)
		if err != nil {
			t.Fatal(err)
		}
		if tab.Len() < 500 || len(tab.Start()) == 0 || len(tab.Start()) > len(c.Start()) {
			t.Errorf("%s: %d rows, %d of %d start points in the space", f, tab.Len(), len(tab.Start()), len(c.Start()))
		}
		for _, p := range tab.Start() {
			// A start point may be a row recorded as illegal (the
			// transforms refused it), as it is live with these pins.
			if _, ok := tab.Lookup(p); !ok {
				t.Errorf("%s: start point %v is not a row", f, p)
			}
		}
	}
}

// The H100 tables (MATMUL 1024, 2DCONV 1024 k=7x7, the same recorded
// again with no builder beside the measurements, and SYRK 1024): the best
// start point is 0.925, 0.860, 0.948 and 1 of the optimum, which every
// strategy that takes start points has within its first 5 (10, 8)
// evaluations (docs/replay.md). With -e a tenth of the table, annealing
// then walks to the optimum in seeds 1 to 5 (within 67, 49, 76 and 82
// evaluations), and bayes with a budget of 2.5% of
// MATMUL's table (33 evaluations) finds it in seeds 1 to 3 (within 17).
// Replay is deterministic given the seed: these are the replays' figures.
func TestH100Tables(t *testing.T) {
	for _, c := range []struct {
		file      string
		start     float64 // best start point's fraction of the optimum
		evals     int     // -e, a tenth of the table as in docs/replay.md
		annealing int     // evaluations within which seeds 1..5 of annealing reach the optimum
		bayes     int     // the same for seeds 1..3 of bayes with -e 33 (2.5% of MATMUL); 0: not checked
	}{
		{"matmul1024-h100.csv", 0.925, 130, 67, 17},
		{"conv2d1024-h100.csv", 0.860, 89, 49, 0},
		{"conv2d1024-h100-quiet.csv", 0.948, 89, 76, 0},
		{"syrk1024-h100.csv", 1, 91, 82, 0},
	} {
		tab, err := LoadCSV("../testdata/replay/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		best := 0.0
		for _, p := range tab.Start() {
			if r, ok := tab.Lookup(p); ok && r.Outcome == autotune.OK {
				best = max(best, tab.Optimum()/r.Ms)
			}
		}
		if math.Abs(best-c.start) > 0.0005 {
			t.Errorf("%s: best start point %.4f of the optimum, want %.3f", c.file, best, c.start)
		}
		optimal := func(strategy string, evals, seeds, within int) {
			t.Helper()
			for seed := range uint64(seeds) {
				s, err := strategies.New(strategy, tab.Space(), autotune.NewRand(seed+1), strategies.Options{Seeds: tab.Start(), Evaluations: evals})
				if err != nil {
					t.Fatal(err)
				}
				rep, err := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: evals, Seed: seed + 1}, tab.Space(), s, tab.Evaluator())
				if err != nil {
					t.Fatal(err)
				}
				curve := bestSoFar(rep, evals, nil)
				if n := slices.Index(curve, tab.Optimum()) + 1; n == 0 || n > within {
					t.Errorf("%s: %s, -e %d, seed %d: the optimum at evaluation %d (0: never), want within %d", c.file, strategy, evals, seed+1, n, within)
				}
			}
		}
		optimal("annealing", c.evals, 5, c.annealing)
		if c.bayes > 0 {
			optimal("bayes", 33, 3, c.bayes)
		}
	}
}

// TestReplayLookahead: with Config.Lookahead the genetic search, whose
// local points come after the points it offered, searches in another
// order than without, the same for the same seeds.
func TestReplayLookahead(t *testing.T) {
	tab, err := LoadCSV("../testdata/replay/conv2d1024-h100.csv")
	if err != nil {
		t.Fatal(err)
	}
	curve := func(lookahead int) []Point {
		rs, err := Replay(context.Background(), tab, Config{Strategies: []string{"genetic"}, Evaluations: 60, Seeds: 4, Lookahead: lookahead})
		if err != nil {
			t.Fatal(err)
		}
		return rs[0].Curve
	}
	a, b, none := curve(30), curve(30), curve(0)
	if !slices.Equal(a, b) {
		t.Error("lookahead 30: same seeds, different curves")
	}
	if slices.Equal(a, none) {
		t.Error("the same curves with a lookahead of 30 and without")
	}
}

// repeatingTables returns the tables whose 10 fastest rows, measured
// again, took within 5% of their table times, as
// testdata/replay/repeating.txt lists them (docs/replay/summary.py reads
// the same list): the tables that can tell 0.95 of the optimum from the
// optimum. Each must be a committed table.
func repeatingTables(t testing.TB) []string {
	t.Helper()
	out, err := ReadNames("../testdata/replay/repeating.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range out {
		if _, err := os.Stat("../testdata/replay/" + name); err != nil {
			t.Fatalf("repeating.txt: %v", err)
		}
	}
	if len(out) == 0 {
		t.Fatal("repeating.txt lists no table")
	}
	return out
}

// misses are the repeating tables on which the default does not meet the
// issue's target (docs/replay.md, "The target"): it does not reach
// 0.95 of the optimum after 2.5% of the table, or, where beats is false,
// does not beat random search at every budget from 20 evaluations. Each
// holds the median fraction the default reaches there now, which it must
// not fall below, and why it misses. Which change took a table out of
// misses or brought it in, session by session, is in docs/replay.md's
// "The target" (its list of earlier counts) and in the sections
// of the changes.
var misses = map[string]struct {
	median float64
	beats  bool
	why    string
}{
	"gs-update4096-h200.csv":     {0.930, true, "held out on 2026-12-02: its optimum is the only row within 5% of itself (810 rows, 2.5% is 21 evaluations), three moves from its slowest start point; with the start points' anchored moves among the opening's initial points it reaches 0.930 (the fourth row) at its fifth evaluation in every seed, the anchored move of the start point bszx=bszy=8 (bszy 8 to 4, szy kept at its top), where it was 0.720 without them"},
	"jacobi2d4096-h200-fdtd.csv": {0.970, false, "held out in the twenty-second session (jacobi2d 4096 with FDTD-EY's pins): the default meets 0.95 at 2.5% (53 evaluations; 0.984 before Plateau became the default, 0.957 with it) but loses to random search at 20 (0.863 against its expected 0.893); 0.958 with a length scale per parameter; 0.960 with one plateau round, its score at 20 -0.088; 0.970 with Exploit (the point anywhere the model's best guess from the third round, the default since the thirty-seventh session), still behind random search at 20"},
	"fdtd-ey8192-h200.csv":       {0.998, false, "held out in the twenty-fourth session (fdtd-ey 8192 with its own pins; its first pass re-checked in the twenty-sixth): a flat table (407 rows within 5% of its optimum, random search expecting 0.987 of it at 20); the default meets 0.95 at 2.5% (54 evaluations, 0.998) but loses to random search at 20 (0.980, score -0.481); 0.997 with a length scale per parameter and one plateau round, behind random search at 23 only (score -0.007); 0.998 with Exploit, behind random search at 20 to 23 still"},
	"bicg4096-h200.csv":          {0.910, true, "held out in the twenty-third session (bicg 4096 with MVT's pins): five rows within 5% of its optimum (2510 rows, 2.5% is 63 evaluations), two moves (lszx 64 to 32, local memory) from the plain start point, its only successful one (0.189); 0.822 with one length scale, 1.000 with a length scale per parameter and three plateau rounds, 0.911 with one round (the default since the thirty-first session; 1.000 on seeds 21 to 40); 0.910 with Exploit"},
	"jacobi2d5120-h200-fdtd.csv": {0.923, false, "held out in the thirty-second session (jacobi2d 5120 with FDTD-EY's pins, for the candidate GlobalRounds 2): six rows within 5% of its optimum (2148 rows, 2.5% is 54 evaluations), five moves from its best start point (0.795), whose steepest descent ends at 0.946; the default is at 0.923 after 54 evaluations, the optimum by 108, and behind random search at 20 (0.856 against its expected 0.856, score -0.007); 0.946 with GlobalRounds 2"},
	"syrk2048-h200.csv":          {0.870, true, "held out in the twenty-eighth session (SYRK 2048 with its own pins): its optimum (lszx=16, lszy=4, tw0=64, local memory) is the only row within 5% of itself, the next at 0.940 and six of its eight start points' steepest descents ending at 0.878 (992 rows, 280 of them illegal; 2.5% is 25 evaluations), two moves from the start point lszx=16, lszy=8, tw0=32 (0.837); the default beats random search from 20 and is at 0.878 from 20 to 50 evaluations in the median seed, at the optimum by 99; 0.870 with a length scale per parameter, the default since the thirty-first session"},
	"jacobi2d6144-h200-fdtd.csv": {0.946, true, "held out in the thirty-first session (jacobi2d 6144 with FDTD-EY's pins; 2148 rows, 2.5% is 54 evaluations): the default of the thirty-first session met the target there (0.973; 0.982 on seeds 21 to 40); with Exploit, the default since the thirty-seventh session, it is at 0.946 after 54 evaluations on both seed sets, beating random search from 20"},
	"jacobi2d8192-h200-box.csv":  {0.944, true, "held out in the twenty-fifth session (jacobi2d 8192 with BOXFILTER's pins): twelve rows within 5% (1740 rows, 2.5% is 44 evaluations), two moves from the best start point (0.836); the default beats random search from 20 but is at 0.948 after 44 evaluations (0.944 before Plateau became the default), 0.985 after 87; 0.944 with a length scale per parameter"},
}

// TestDefaultOnRepeatingTables: the default strategy, replayed as
// docs/replay.md's commands do (the table's start points, 20 seeds, a
// budget of a tenth of the table), meets the target on every table
// whose rows repeat: the median fraction of the optimum after 2.5% of the
// table's rows (rounded up) is at least 0.95, and its score beats random
// search's expected best at every budget from 20 evaluations, but for the
// tables in misses, where it must not fall below what it reaches now. Most
// of the tables were recorded after the default of their day was chosen,
// and replayed with it before any change to it was judged on them
// (docs/replay.md, "Which tables repeat" and "The target").
func TestDefaultOnRepeatingTables(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the tables of repeating.txt, 20 seeds each (about four minutes on 2 cores)")
	}
	repeating := repeatingTables(t)
	for file := range misses {
		if !slices.Contains(repeating, file) {
			t.Errorf("%s is in misses but not in repeating.txt", file)
		}
	}
	for _, file := range repeating {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			tab, err := LoadCSV("../testdata/replay/" + file)
			if err != nil {
				t.Fatal(err)
			}
			at := int(math.Ceil(0.025 * float64(tab.Len())))
			tenth := tab.Len() / 10
			// A search that found the optimum keeps it for the rest of
			// the budget, so ending it there changes none of the figures
			// asserted, and saves the model fits of the evaluations after.
			rs, err := Replay(context.Background(), tab, Config{Strategies: []string{strategies.Default}, Evaluations: tenth, Seeds: 20, Stop: optimumFound(tab.Optimum())})
			if err != nil {
				t.Fatal(err)
			}
			r := rs[0]
			got := r.At(at).MedianFraction
			m, miss := misses[file]
			switch {
			case miss && got >= 0.95 && (m.beats || r.BeatsRandom):
				t.Errorf("%s after %d evaluations: median fraction %.3f of the optimum, beating random search from 20: %v; the target is met now: take the table out of misses", strategies.Default, at, got, r.BeatsRandom)
			case miss && got < m.median-5e-4:
				t.Errorf("%s after %d evaluations: median fraction %.3f of the optimum, below the %.3f it reached (%s)", strategies.Default, at, got, m.median, m.why)
			case miss:
				t.Logf("a known miss: %s", m.why)
			case got < 0.95:
				t.Errorf("%s after %d evaluations: median fraction %.3f of the optimum, want at least 0.95", strategies.Default, at, got)
			}
			if !r.BeatsRandom && !(miss && !m.beats) {
				t.Errorf("%s does not beat random search from 20 to %d evaluations", strategies.Default, tenth)
			}
		})
	}
}

// TestRecordsOnRepeatingTables: the default, each search first started
// from the best of the nearest committed tables of its kernel (Nearest:
// hplopt replay --tables --tuned 'testdata/replay/*.csv', as a live search
// starts from its tuning records when the kernel was tuned at other
// sizes), meets the target on every table that repeats, the
// misses of TestDefaultOnRepeatingTables included.
func TestRecordsOnRepeatingTables(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the tables of repeating.txt, 20 seeds each")
	}
	_, all := committedTables(t, "*.csv")
	byName := map[string]*Table{}
	for _, tab := range all {
		byName[filepath.Base(tab.Name())] = tab
	}
	for _, file := range repeatingTables(t) {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			tab := byName[file]
			recs, from := Nearest(tab, all)
			at := int(math.Ceil(0.025 * float64(tab.Len())))
			rs, err := Replay(context.Background(), tab, Config{Strategies: []string{strategies.Default}, Evaluations: tab.Len() / 10, Records: recs, Stop: optimumFound(tab.Optimum())})
			if err != nil {
				t.Fatal(err)
			}
			if got := rs[0].At(at).MedianFraction; got < 0.95 || !rs[0].BeatsRandom {
				t.Errorf("started from the best of %v: median fraction %.3f of the optimum after %d evaluations, beating random search from 20: %v; want at least 0.95, and yes", from, got, at, rs[0].BeatsRandom)
			}
		})
	}
}

// optimumFound is a stop condition that holds once a search found a time
// of at most opt, the table's optimum: from there its best-so-far curve,
// and so every figure of its replay, is the same whether it goes on or not.
type optimumFound float64

func (o optimumFound) Done(s autotune.StopState) bool { return s.Found && s.BestMs <= float64(o) }
func (o optimumFound) String() string                 { return fmt.Sprintf("best<=%gms", float64(o)) }

// TestOptimumFoundChangesNothing: a replay that ends each search once it
// found the optimum (as TestDefaultOnRepeatingTables does, to save time)
// has the same curve, median and quartiles after every evaluation, the
// same score and the same verdict against random search as one that
// runs every search to its budget, on a table where some seeds find the
// optimum early and some never do within it.
func TestOptimumFoundChangesNothing(t *testing.T) {
	tab, err := LoadCSV("../testdata/replay/syrk2048-h200.csv")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Strategies: []string{strategies.Default}, Evaluations: 60, Seeds: 6}
	full, err := Replay(context.Background(), tab, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Stop = optimumFound(tab.Optimum())
	cut, err := Replay(context.Background(), tab, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cut[0].Stopped[autotune.StopCondition.String()] == 0 {
		t.Fatalf("no search found the optimum within 60 evaluations (%v): the test shows nothing", cut[0].Stopped)
	}
	if !reflect.DeepEqual(full[0].Curve, cut[0].Curve) || full[0].BeatsRandom != cut[0].BeatsRandom {
		t.Errorf("ending each search at the optimum changed the replay:\n%+v\n%+v", full[0], cut[0])
	}
}

// replayOpening replays the default on the committed table file with
// the opening's settings, 20 seeds and the given budget, each search ended
// once it found the optimum (optimumFound), and returns the table and the
// default's result.
func replayOpening(t *testing.T, file string, evals int, set strategies.OpeningSettings) (*Table, *Result) {
	t.Helper()
	if testing.Short() {
		t.Skip("replays a table, 20 seeds a setting")
	}
	tab, err := LoadCSV("../testdata/replay/" + file)
	if err != nil {
		t.Fatal(err)
	}
	if evals == 0 {
		evals = tab.Len() / 10
	}
	rs, err := Replay(context.Background(), tab, Config{Strategies: []string{strategies.Default}, Evaluations: evals, Seeds: 20, Stop: optimumFound(tab.Optimum()), Opening: set})
	if err != nil {
		t.Fatal(err)
	}
	return tab, rs[0]
}

// at25 is the budget of 2.5% of tab's rows, rounded up.
func at25(tab *Table) int { return int(math.Ceil(0.025 * float64(tab.Len()))) }

// wantAt25 replays the opening as replayOpening does and reports an error,
// the setting named by label, when its median fraction of the optimum
// after 2.5% of the table is not within lo to hi.
func wantAt25(t *testing.T, label, file string, evals int, set strategies.OpeningSettings, lo, hi float64) {
	t.Helper()
	tab, r := replayOpening(t, file, evals, set)
	if got := r.At(at25(tab)).MedianFraction; got < lo || got > hi {
		t.Errorf("%s: median fraction %.3f after %d evaluations, want %.2f to %.2f", label, got, at25(tab), lo, hi)
	}
}

// wantBeats replays the opening as replayOpening does (a tenth of the
// table) and reports an error, the setting named by label, unless it beats
// random search at every budget from 20 evaluations exactly when want.
func wantBeats(t *testing.T, label, file string, set strategies.OpeningSettings, want bool) {
	t.Helper()
	_, r := replayOpening(t, file, 0, set)
	if r.BeatsRandom != want {
		t.Errorf("%s: beats random search from 20 evaluations: %v (first budget behind: %d), want %v", label, r.BeatsRandom, r.firstLoss, want)
	}
}

// TestOmitIllegal: on bicg 4096, whose start points and their anchored
// moves with local memory are all over the device's limits, the opening
// that takes those illegal points for the slowest time writes local
// memory off and stays at 0.822 of the optimum after 2.5% of the table
// (a known miss of the opening with one length scale; here with 2.5% as
// the budget, 20 seeds); with OmitIllegal, leaving them out of its model,
// it reaches at least 0.95 (docs/replay.md, "Illegal points left out of
// the model").
func TestOmitIllegal(t *testing.T) {
	for _, c := range []struct {
		omit   bool
		lo, hi float64
	}{{false, 0.82, 0.83}, {true, 0.95, 1}} {
		// 2.5% of bicg 4096's 2510 rows as the budget.
		wantAt25(t, fmt.Sprintf("OmitIllegal %v", c.omit), "bicg4096-h200.csv", 63, strategies.OpeningSettings{OmitIllegal: c.omit, Isotropic: true, PlateauRounds: 3, Exploit: -1}, c.lo, c.hi)
	}
}

// TestARD: on bicg 4096 the opening whose model has one length scale
// stays at 0.822 of the optimum after 2.5% of the table (63 evaluations;
// 20 seeds, a tenth of the table as the budget, as docs/replay.md's
// commands); with a length scale per parameter it reaches at least 0.95
// there (docs/replay.md, "A length scale per parameter"; both with the
// three plateau rounds of that day's default: with one, the default since
// "One round on a plateau", bicg 4096 is at 0.911).
func TestARD(t *testing.T) {
	for _, c := range []struct {
		iso    bool
		lo, hi float64
	}{{true, 0.82, 0.83}, {false, 0.95, 1}} {
		wantAt25(t, fmt.Sprintf("Isotropic %v", c.iso), "bicg4096-h200.csv", 0, strategies.OpeningSettings{Isotropic: c.iso, PlateauRounds: 3, Exploit: -1}, c.lo, c.hi)
	}
}

// TestPlateau: on stencil2d 8192, whose start points without local memory
// lie within 10% of each other and whose optimum has it, the opening of
// one length scale and three plateau rounds (Isotropic, PlateauRounds 3:
// the default before the thirty-first session; with a length scale per
// parameter it beats random search there either way) without Plateau (negative) falls behind random search at 21 evaluations
// (a miss of the default before Plateau); with the default's Plateau
// (strategies.OpeningPlateau, 0.1: the flags flipped at the plateau's
// points first) it beats random search at every budget from 20 to a tenth
// of the table (docs/replay.md, "A plateau of start points").
func TestPlateau(t *testing.T) {
	for _, plateau := range []float64{-1, 0} {
		wantBeats(t, fmt.Sprintf("Plateau %v", plateau), "stencil2d8192-h200.csv", strategies.OpeningSettings{Plateau: plateau, Isotropic: true, PlateauRounds: 3, Exploit: -1}, plateau == 0)
	}
}

// TestPlateauRounds: on jacobi2d 6144 with FDTD-EY's pins, a flat table
// held out in the thirty-first session, the opening with Plateau's three
// rounds (the default until then) falls behind random search at 20
// evaluations; with the default's one round (OpeningPlateauRounds) it
// beats random search at every budget from 20 to a tenth of the table
// (docs/replay.md, "One round on a plateau").
func TestPlateauRounds(t *testing.T) {
	for _, rounds := range []int{3, 0} {
		wantBeats(t, fmt.Sprintf("PlateauRounds %d", rounds), "jacobi2d6144-h200-fdtd.csv", strategies.OpeningSettings{PlateauRounds: rounds, Exploit: -1}, rounds == 0)
	}
}

// TestGlobalRounds: on bicg 4096, whose optimum is two moves from its only
// successful start point, the default opening (a point anywhere in every
// round) is at 0.911 of the optimum after 2.5% of the table (63
// evaluations, a known miss); with GlobalRounds 2, every point local after
// the first two rounds, it reaches at least 0.95 there (docs/replay.md,
// "Local rounds after two": a candidate the held-out tables did not make
// the default).
func TestGlobalRounds(t *testing.T) {
	for _, c := range []struct {
		rounds int
		lo, hi float64
	}{{0, 0.91, 0.92}, {2, 0.95, 1}} {
		wantAt25(t, fmt.Sprintf("GlobalRounds %d", c.rounds), "bicg4096-h200.csv", 0, strategies.OpeningSettings{GlobalRounds: c.rounds, Exploit: -1}, c.lo, c.hi)
	}
}

// TestExploit: on gs-update 6144 with FDTD-EY's pins, whose optimum only
// the plain start point's steepest descent reaches, the opening whose
// every round chooses its point anywhere by expected improvement (Exploit
// none, the default until the thirty-seventh session) is at 0.914 of the
// optimum after 2.5% of the table (27 evaluations, a known miss then);
// with the default's Exploit (strategies.OpeningExploit: from the third
// round on, the model's best guess while it predicts a gain) it reaches
// the optimum there (docs/replay.md, "The round's point anywhere by the
// predicted time"). The tests of the settings before it (TestARD,
// TestPlateau, ...) turn it off, as their defaults had it.
func TestExploit(t *testing.T) {
	for _, c := range []struct {
		exploit int
		lo, hi  float64
	}{{-1, 0.91, 0.92}, {0, 0.95, 1}} {
		wantAt25(t, fmt.Sprintf("Exploit %d", c.exploit), "gs-update6144-h200-fdtd.csv", 0, strategies.OpeningSettings{Exploit: c.exploit}, c.lo, c.hi)
	}
}

// A budget at which random search's expected best is the optimum (as many
// evaluations as the table has successful rows) is a tie for a search that
// found the optimum, not a loss; a search that did not find it loses there.
func TestBeatsRandomWhereRandomFindsTheOptimum(t *testing.T) {
	// Four successful rows of six; the start point a=6 is the optimum,
	// which bayes measures first, and exhaustive's last.
	const table = "# start: a=6\na,time_ms\n1,3\n2,fail\n3,2\n4,fail\n5,4\n6,1\n"
	tab := tableOf(t, "tie", table)
	if tab.ExpectedRandom(3) <= tab.Optimum() || tab.ExpectedRandom(4) != tab.Optimum() {
		t.Fatalf("random search's expected best after 3 and 4 evaluations: %v, %v; optimum %v", tab.ExpectedRandom(3), tab.ExpectedRandom(4), tab.Optimum())
	}
	rs, err := Replay(context.Background(), tab, Config{Strategies: []string{strategies.Bayes}, Evaluations: 6, Seeds: 3, From: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	if r.At(1).MedianFraction != 1 || r.At(4).Score != 0 || !r.BeatsRandom {
		t.Errorf("a search at the optimum from its first evaluation: fraction %v, score after 4 %v, beats random %v; want 1, 0 and true", r.At(1).MedianFraction, r.At(4).Score, r.BeatsRandom)
	}
	// Exhaustive search has not found the optimum after 4 evaluations,
	// where random search's expectation is it.
	rs, err = Replay(context.Background(), tab, Config{Strategies: []string{strategies.Exhaustive}, Evaluations: 6, Seeds: 1, From: 4, NoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := rs[0]; r.At(4).MedianFraction == 1 || r.BeatsRandom {
		t.Errorf("exhaustive (a=1, 2, ...): curve %+v, beats random %v, want false", r.Curve, r.BeatsRandom)
	}
}

// Config.FirstSeed: the searches have seeds FirstSeed to
// FirstSeed+Seeds-1, so three single-seed replays from seeds 1, 2 and 3
// make the three-seed replay's median after every evaluation; 0 is 1.
func TestReplayFirstSeed(t *testing.T) {
	tab, err := LoadCSV("../testdata/replay/matmul512-pocl.csv")
	if err != nil {
		t.Fatal(err)
	}
	const n = 30
	run := func(first, seeds int) *Result {
		rs, err := Replay(context.Background(), tab, Config{Strategies: []string{strategies.Random}, Evaluations: n, Seeds: seeds, FirstSeed: first})
		if err != nil {
			t.Fatal(err)
		}
		return rs[0]
	}
	three := run(0, 3)
	one := []*Result{run(1, 1), run(2, 1), run(3, 1)}
	differ := false
	for k := 1; k <= n; k++ {
		f := []float64{one[0].At(k).MedianFraction, one[1].At(k).MedianFraction, one[2].At(k).MedianFraction}
		differ = differ || f[0] != f[1] || f[1] != f[2]
		slices.Sort(f)
		if got := three.At(k).MedianFraction; got != f[1] {
			t.Errorf("after %d evaluations: seeds 1 to 3 have median %v; seeds 1, 2 and 3 alone %v", k, got, f)
		}
	}
	if !differ {
		t.Error("seeds 1, 2 and 3 alone replayed the same search")
	}
	if a, b := run(0, 1).At(n), one[0].At(n); a != b {
		t.Errorf("FirstSeed 0 gave %+v, FirstSeed 1 %+v", a, b)
	}
}

// TestNoise replays with measurement noise: the strategies see times that
// differ from the rows' (so the searches take other paths than without),
// the same again with the same seed, and a search's best after each
// evaluation is still a recorded time, of the point it measured fastest.
func TestNoise(t *testing.T) {
	tab, err := LoadCSV("../testdata/replay/syrk2048-h200.csv")
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[float64]bool{}
	for _, r := range tab.rows {
		if r.Outcome == autotune.OK {
			recorded[r.Ms] = true
		}
	}
	cfg := Config{Evaluations: 25, Noise: 0.05}
	quiet, err := tab.Search(context.Background(), Config{Evaluations: 25}, "opening", 1)
	if err != nil {
		t.Fatal(err)
	}
	noisy, err := tab.Search(context.Background(), cfg, "opening", 1)
	if err != nil {
		t.Fatal(err)
	}
	again, err := tab.Search(context.Background(), cfg, "opening", 1)
	if err != nil {
		t.Fatal(err)
	}
	off, same := 0, true
	for i, e := range noisy.History {
		if e.Result.Outcome == autotune.OK && !recorded[e.Result.Ms] {
			off++
		}
		if i >= len(again.History) || again.History[i].Result.Ms != e.Result.Ms || !again.History[i].Point.Equal(e.Point) {
			same = false
		}
	}
	if off == 0 {
		t.Errorf("with noise 0.05 every time measured is a row's: no noise")
	}
	if !same || len(again.History) != len(noisy.History) {
		t.Errorf("two noisy searches of seed 1 differ: the noise is not seeded")
	}
	for _, e := range quiet.History {
		if e.Result.Outcome == autotune.OK && !recorded[e.Result.Ms] {
			t.Fatalf("without noise a search measured %v, no row's time", e.Result.Ms)
		}
	}
	best := bestSoFar(noisy, 25, tab.recorded)
	for n, b := range best {
		if !math.IsInf(b, 1) && !recorded[b] {
			t.Fatalf("best after %d evaluations %v: not a recorded time", n+1, b)
		}
	}
	// The best is the recorded time of the point measured fastest, not
	// the fastest recorded time among the points measured.
	fastest, at := math.Inf(1), autotune.Eval{}
	for _, e := range noisy.History {
		if f := e.Result.Fitness(); f < fastest {
			fastest, at = f, e
		}
	}
	if r, _ := tab.Lookup(at.Point); best[len(best)-1] != r.Ms {
		t.Errorf("best after 25: %v, want the recorded time of the point measured fastest, %v", best[len(best)-1], r.Ms)
	}
	rs, err := Replay(context.Background(), tab, Config{Strategies: []string{"opening"}, Evaluations: 25, Noise: 0.05, Seeds: 5})
	if err != nil || rs[0].MedianFraction <= 0 || rs[0].MedianFraction > 1 {
		t.Errorf("a noisy replay: %v, median fraction %v", err, rs[0].MedianFraction)
	}
}

// TestSmallBudget replays searches given 2.5% of a table as their budget
// (-e, as hplopt tune -e N or --stop "evals>=N" plans them): the opening
// spends it all (autotune.Opening.Share bounds only a budget estimated
// from a time budget), and the default reaches 0.95 of the optimum where,
// with the opening cut to a third of the budget before 2026-12-05, it
// reached 0.791 (bicg 5120), 0.692 (NBODY 32768) and 0.791 (3DCONV 256
// k=3) (docs/replay.md, "A budget of evaluations is not shared").
func TestSmallBudget(t *testing.T) {
	for _, file := range []string{"bicg5120-h200.csv", "nbody32768-h100.csv", "conv3d256k3-h200.csv"} {
		tab, err := LoadCSV("../testdata/replay/" + file)
		if err != nil {
			t.Fatal(err)
		}
		n := EveryBudget(tab.Len(), TargetShare)
		rs, err := Replay(context.Background(), tab, Config{Strategies: []string{strategies.Default}, Evaluations: n})
		if err != nil {
			t.Fatal(err)
		}
		if rs[0].MedianFraction < TargetFraction {
			t.Errorf("%s, -e %d: median %.3f, want at least %.2f", file, n, rs[0].MedianFraction, TargetFraction)
		}
	}
}
