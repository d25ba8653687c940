package kernels_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/patterns"
	"github.com/hplopt/hplopt/transforms"
)

var update = flag.Bool("update", false, "rewrite testdata/suite/reach.md")

const reachGolden = "../testdata/suite/reach.md"

// TestReach pins the optimizer's reach on the suite: for each kernel at its
// tiny size, specialized for the device (PoCL here), what the access-pattern
// analysis sees (given the int arguments' values, accepting triangular
// loops, as the passes analyse), the main loop nest the passes tile, whether
// the search space has tiling, unrolling and local memory and whether a
// setting using each is legal, the arrays local memory holds, the int
// arguments whose values the variants' code depends on, and what the passes
// cannot take. Run go test ./kernels -run Reach -update and read the diff
// after a change to the analysis or the passes.
func TestReach(t *testing.T) {
	if _, err := hpl.Eval(kernels.MV).DeviceInfo(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	var table, details bytes.Buffer
	fmt.Fprintln(&table, "# The optimizer's reach on the suite of user kernels")
	fmt.Fprintln(&table)
	fmt.Fprintln(&table, "Written by `go test ./kernels -run Reach -update` (tiny sizes, the OpenCL device's limits).")
	fmt.Fprintln(&table, "analysis: the patterns of patterns.Settings{Ints, Triangular: true}, as the passes analyse;")
	fmt.Fprintln(&table, "nest: the loops of transforms.LoopLengths (the largest trip count of a triangular loop; a loop")
	fmt.Fprintln(&table, "holding other statements around the nest runs around it, sequentially: covariance-tri's j2);")
	fmt.Fprintln(&table, "tw0/uf/lmem: in the search space, and whether a setting with it (tw0 half the loop, uf=2,")
	fmt.Fprintln(&table, "lmem=1 with that tile) is legal; staged: the arrays that setting holds in local memory;")
	fmt.Fprintln(&table, "ints: the int arguments the variants' code depends on (transforms.BoundInts);")
	fmt.Fprintln(&table, "limits: what the passes do not take.")
	fmt.Fprintln(&table)
	fmt.Fprintln(&table, "| kernel | arrays (analysis) | loops (analysis) | nest | tw0 | uf | lmem | staged | ints | limits |")
	fmt.Fprintln(&table, "|---|---|---|---|---|---|---|---|---|---|")
	for _, b := range kernels.Suite() {
		r := reach(t, b)
		fmt.Fprintf(&table, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", b.Name, r.arrays, r.loops, r.nest, r.probe["tw0"], r.probe["uf"], r.probe["lmem"], r.staged, r.ints, r.limits)
		fmt.Fprintf(&details, "\n## %s\n\n%s\n\n```\n%s```\n", b.Name, b.Doc, r.info)
		for _, p := range []string{"tw0", "uf", "lmem"} {
			if why := r.why[p]; why != "" {
				fmt.Fprintf(&details, "\n%s: %s\n", p, why)
			}
		}
	}
	got := append(table.Bytes(), details.Bytes()...)
	if *update {
		if err := os.MkdirAll("../testdata/suite", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(reachGolden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(reachGolden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the reach differs from %s (run with -update and read the diff):\n%s", reachGolden, table.String())
	}
}

type reachRow struct {
	arrays, loops, nest, staged, ints, limits string
	probe, why                                map[string]string // per parameter: in the space and legal, and why not
	info                                      *patterns.Info
}

func reach(t *testing.T, b *kernels.Benchmark) reachRow {
	t.Helper()
	in, err := b.Instance(b.Sizes["tiny"], 1)
	if err != nil {
		t.Fatal(err)
	}
	op, err := hpl.Eval(b.Kernel).Global(in.Global...).OptimizerProblem(in.Args...)
	if err != nil {
		t.Fatal(err)
	}
	prob := op.Passes
	info, err := patterns.Settings{Ints: prob.Ints, Triangular: true}.Analyze(prob.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	r := reachRow{info: info, probe: map[string]string{}, why: map[string]string{}}
	var arrays []string
	for _, a := range info.Arrays {
		arrays = append(arrays, a.Name+" "+a.Pattern.String())
	}
	r.arrays = strings.Join(arrays, ", ")
	var loops []string
	for _, l := range info.Loops {
		s := l.Var
		if l.Triangular() {
			s += " (triangular)"
		}
		loops = append(loops, s)
	}
	if info.Guard != nil {
		loops = append(loops, "guard")
	}
	r.loops = strings.Join(loops, ", ")
	if r.loops == "" {
		r.loops = "none"
	}
	if !info.Supported() {
		r.loops += "; unsupported: " + strings.Join(info.Unsupported, "; ")
	}

	nest, err := transforms.LoopLengths(prob)
	if err != nil {
		t.Fatal(err)
	}
	halos, err := transforms.Halos(prob)
	if err != nil {
		t.Fatal(err)
	}
	ints, err := transforms.BoundInts(prob)
	if err != nil {
		t.Fatal(err)
	}
	r.ints = strings.Join(ints, ", ")
	if r.ints == "" {
		r.ints = "-"
	}
	r.nest = fmt.Sprint(nest)
	relevant := map[string]bool{}
	for _, n := range transforms.Relevant(len(prob.Domain), len(nest)) {
		relevant[string(n)] = true
	}
	// The probes: the single-point setting with one parameter changed.
	tile := 0
	if len(nest) > 0 {
		tile = max(1, nest[0]/2)
	}
	r.staged = "-"
	for _, p := range []struct{ name, params string }{
		{"tw0", fmt.Sprintf("tw0=%d", tile)},
		{"uf", "uf=2"},
		{"lmem", fmt.Sprintf("lmem=1,tw0=%d", tile)},
	} {
		if len(nest) == 0 {
			p.params = strings.TrimSuffix(p.params, ",tw0=0")
		}
		set := transforms.Baseline(prob)
		if err := transforms.ParseParams(p.params, &set); err != nil {
			t.Fatal(err)
		}
		v, err := transforms.Apply(prob, set)
		switch {
		case !relevant[p.name] && p.name != "lmem" || p.name == "lmem" && len(nest) == 0 && len(halos) == 0:
			r.probe[p.name] = "not in space"
		case err == nil:
			r.probe[p.name] = "yes"
		default:
			r.probe[p.name] = "illegal"
		}
		if err != nil {
			r.why[p.name] = fmt.Sprintf("%s is %v", p.params, err)
		} else if p.name == "lmem" {
			var names []string
			for _, a := range v.Staged {
				names = append(names, strings.TrimPrefix(a, "l_"))
			}
			r.staged = strings.Join(names, ", ")
		}
	}
	r.limits = limits(info)
	return r
}

// limits lists what the passes do not take of what the analysis found.
func limits(info *patterns.Info) string {
	var out []string
	stageable := false
	for _, a := range info.Arrays {
		stageable = stageable || !a.Written && a.Pattern > patterns.SinglePat && a.Pattern < patterns.Unsupported
	}
	if !stageable {
		out = append(out, "nothing to stage (coarsening only)")
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, "; ")
}
