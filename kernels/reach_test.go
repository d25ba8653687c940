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
// analysis sees when it is given the int arguments' values and accepts
// triangular loops, the main loop nest the passes find today, whether the
// search space has tiling, unrolling and local memory and whether a
// setting using each is legal, and which of the analysis' results the
// passes do not use yet. Run go test ./kernels -run Reach -update and read
// the diff after a change to the analysis or the passes.
func TestReach(t *testing.T) {
	if _, err := hpl.Eval(kernels.MV).DeviceInfo(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	var table, details bytes.Buffer
	fmt.Fprintln(&table, "# The optimizer's reach on the suite of user kernels")
	fmt.Fprintln(&table)
	fmt.Fprintln(&table, "Written by `go test ./kernels -run Reach -update` (tiny sizes, the OpenCL device's limits).")
	fmt.Fprintln(&table, "analysis: the patterns of patterns.Settings{Ints, Triangular: true}; nest: the loops of")
	fmt.Fprintln(&table, "transforms.LoopLengths today; tw0/uf/lmem: in the search space today, and whether a setting")
	fmt.Fprintln(&table, "with it (tw0 half the loop, uf=2, lmem=1 with that tile) is legal; needs: for a kernel that")
	fmt.Fprintln(&table, "cannot use local memory today, what the passes must take from the analysis first.")
	fmt.Fprintln(&table)
	fmt.Fprintln(&table, "| kernel | arrays (analysis) | loops (analysis) | nest | tw0 | uf | lmem | needs |")
	fmt.Fprintln(&table, "|---|---|---|---|---|---|---|---|")
	for _, b := range kernels.Suite() {
		r := reach(t, b)
		fmt.Fprintf(&table, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", b.Name, r.arrays, r.loops, r.nest, r.probe["tw0"], r.probe["uf"], r.probe["lmem"], r.needs)
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
	arrays, loops, nest, needs string
	probe, why                 map[string]string // per parameter: in the space and legal, and why not
	info                       *patterns.Info
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
		err := transforms.Validate(prob, set)
		switch {
		case !relevant[p.name] && p.name != "lmem" || p.name == "lmem" && len(nest) == 0:
			r.probe[p.name] = "not in space"
		case err == nil:
			r.probe[p.name] = "yes"
		default:
			r.probe[p.name] = "illegal"
		}
		if err != nil {
			r.why[p.name] = fmt.Sprintf("%s is %v", p.params, err)
		}
	}
	r.needs = "-"
	if r.probe["lmem"] != "yes" {
		r.needs = needs(info, nest)
	}
	return r
}

// needs lists what the analysis found that the passes do not use yet, for
// a kernel they cannot stage in local memory.
func needs(info *patterns.Info, nest []int) string {
	var out []string
	top := 0
	for _, l := range info.Loops {
		if l.Depth == 0 {
			top++
		}
	}
	if info.Guard != nil && len(nest) == 0 && top > 0 {
		out = append(out, "guard")
	}
	for _, l := range info.Loops {
		if l.Triangular() {
			out = append(out, "triangular bounds")
			break
		}
	}
	for _, l := range info.Loops {
		if p := l.Parent; p >= 0 && len(info.Loops[p].For.Body.List) > 1 {
			out = append(out, fmt.Sprintf("a nest inside loop %s, which holds other statements", info.Loops[p].Var))
			break
		}
	}
	scalars := map[string]bool{}
	for _, a := range info.Arrays {
		for _, r := range a.Refs {
			for _, s := range r.Subs {
				for name := range s.Scalars {
					scalars[name] = true
				}
			}
		}
	}
	if len(scalars) > 0 {
		out = append(out, "int arguments as constants")
	}
	for _, a := range info.Arrays {
		if a.Halo != nil && !a.Written {
			what := "halo staging"
			if len(info.Loops) == 0 {
				what += " without a loop"
			}
			out = append(out, what)
			break
		}
	}
	stageable := false
	for _, a := range info.Arrays {
		stageable = stageable || !a.Written && a.Pattern > patterns.SinglePat && a.Pattern < patterns.Unsupported
	}
	if !stageable {
		out = append(out, "nothing to stage (coarsening only)")
	}
	return strings.Join(out, ", ")
}
