package transforms_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/patterns"
	"github.com/hplopt/hplopt/transforms"
)

// TestAnalyzeOnce checks that Apply reads the pattern table Analyze stored
// instead of analysing the kernel again: given a table that says no array
// can be staged, staging is illegal; given the true one, it is not. Apply
// leaves the table as it found it.
func TestAnalyzeOnce(t *testing.T) {
	prob := matmulProblem(32, 32, 32)
	var p transforms.Params
	if err := transforms.ParseParams("szx=32,szy=32,lszx=8,lszy=8,bszx=1,bszy=1,tw0=8,lmem=1", &p); err != nil {
		t.Fatal(err)
	}
	if err := prob.Analyze(); err != nil {
		t.Fatal(err)
	}
	info := prob.Info
	for i := 0; i < 3; i++ {
		if _, err := transforms.Apply(prob, p); err != nil {
			t.Fatal(err)
		}
	}
	if prob.Info != info {
		t.Fatal("Apply replaced Problem.Info")
	}
	// The same table, but for c alone: a and b are not there to stage.
	only := *info
	only.Arrays = []*patterns.Array{info.Array("c")}
	prob.Info = &only
	_, err := transforms.Apply(prob, p)
	if !errors.Is(err, transforms.ErrIllegal) || !strings.Contains(err.Error(), "no array of the loop body can be staged") {
		t.Fatalf("Apply with a table of c alone: %v, want lmem=1 illegal (the table given is the one used)", err)
	}
	// Without a table, Apply analyses the kernel itself and stores nothing.
	prob.Info = nil
	if _, err := transforms.Apply(prob, p); err != nil {
		t.Fatal(err)
	}
	if prob.Info != nil {
		t.Error("Apply set Problem.Info: it must not write to a problem shared by goroutines")
	}
}

// TestStaleInfo checks that a pattern table of another kernel is refused.
func TestStaleInfo(t *testing.T) {
	prob := matmulProblem(32, 32, 32)
	other := matmulProblem(32, 32, 32) // the same source, other nodes
	if err := other.Analyze(); err != nil {
		t.Fatal(err)
	}
	prob.Info = other.Info
	_, err := transforms.Apply(prob, transforms.Baseline(prob))
	if err == nil || !strings.Contains(err.Error(), "Problem.Info is not the pattern table of Problem.Kernel") {
		t.Fatalf("Apply with another kernel's table: %v", err)
	}
}

// TestAnalyzedSameCode checks that a problem analysed once gives the same
// code, or the same error, as one analysed per setting, for random settings
// of every benchmark; and that checking the invariants after every pass
// (ApplyChecked, which assembles the parts early) changes nothing either.
func TestAnalyzedSameCode(t *testing.T) {
	const settings = 50
	for _, b := range kernels.All() {
		size := b.Sizes["tiny"]
		fresh := benchProblem(t, b, size)
		analysed := benchProblem(t, b, size)
		if err := analysed.Analyze(); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(len(b.Name)), 3))
		legal := 0
		for i := 0; i < settings; i++ {
			p := randomParams(r, size)
			want, err1 := applySource(fresh, p)
			got, err2 := applySource(analysed, p)
			if got != want || errText(err1) != errText(err2) {
				t.Fatalf("%s %s: analysed once:\n%s%v\nanalysed per setting:\n%s%v", b.Name, p, got, err2, want, err1)
			}
			checked, err3 := applySource(analysed, p, transforms.ApplyChecked)
			if checked != want || errText(err3) != errText(err1) {
				t.Fatalf("%s %s: checked after every pass:\n%s%v\nunchecked:\n%s%v", b.Name, p, checked, err3, want, err1)
			}
			if err1 == nil {
				legal++
			}
		}
		if legal == 0 {
			t.Errorf("%s: no legal setting among %d", b.Name, settings)
		}
	}
}

// applySource is the source of the variant of prob for p that apply makes
// (transforms.Apply if none is given), or the error.
func applySource(prob *transforms.Problem, p transforms.Params, apply ...func(*transforms.Problem, transforms.Params) (*transforms.Variant, error)) (string, error) {
	f := transforms.Apply
	if len(apply) > 0 {
		f = apply[0]
	}
	v, err := f(prob, p)
	if err != nil {
		return "", err
	}
	return codegen.Source(v.Kernel)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// BenchmarkApply measures Apply and code generation for random settings of
// matmul, with the problem analysed once and per setting.
func BenchmarkApply(b *testing.B) {
	bench, _ := kernels.Get("matmul")
	size := bench.Sizes["tiny"]
	for _, once := range []bool{false, true} {
		name := "analysed-per-setting"
		if once {
			name = "analysed-once"
		}
		b.Run(name, func(b *testing.B) {
			prob := benchProblem(b, bench, size)
			if once {
				if err := prob.Analyze(); err != nil {
					b.Fatal(err)
				}
			}
			r := rand.New(rand.NewPCG(1, 2))
			for i := 0; i < b.N; i++ {
				transforms.Apply(prob, randomParams(r, size))
			}
		})
	}
}

// TestBoundIntsSuite checks BoundInts on the benchmarks and the
// suite: the int arguments it leaves out may take other values without
// changing a variant's code, for random legal settings; and on kernels
// whose lists are known.
func TestBoundIntsSuite(t *testing.T) {
	want := map[string]string{
		"matmul":         "limk",
		"mv":             "m",
		"gs-r":           "k n", // q[i][k] is staged, r[k][j] promoted; i < n tiled
		"gs-update":      "k",   // a[idy][j], j = idx + k + 1, is promoted
		"fdtd-ey":        "",    // fict[t] is read as written
		"jacobi2d":       "",    // n is in the guard only
		"saxpy":          "",    // as n
		"covariance-tri": "m n", // the bounds of the outer loop j2 and of the nest i
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, b := range append(kernels.All(), kernels.Suite()...) {
		prob := benchProblem(t, b, b.Sizes["tiny"])
		names, err := transforms.BoundInts(prob)
		if err != nil {
			t.Fatalf("%s: %v", b.Name, err)
		}
		if w, ok := want[b.Name]; ok && strings.Join(names, " ") != w {
			t.Errorf("%s: BoundInts = %q, want %q", b.Name, names, w)
		}
		in := map[string]bool{}
		for _, n := range names {
			in[n] = true
		}
		var others []string
		for name := range prob.Ints {
			if !in[name] {
				others = append(others, name)
			}
		}
		if len(others) == 0 {
			continue
		}
		changed := *prob
		changed.Ints = map[string]int{}
		for name, v := range prob.Ints {
			changed.Ints[name] = v
			if !in[name] {
				changed.Ints[name] = v + 3
			}
		}
		for tries, legal := 0, 0; legal < 10 && tries < 200; tries++ {
			p := randomParams(r, b.Sizes["tiny"])
			src, err := applySource(prob, p)
			if err != nil {
				continue
			}
			legal++
			again, err := applySource(&changed, p)
			if err != nil || again != src {
				t.Fatalf("%s %s: changing %v (not in BoundInts %v) changes the variant: %v\n%s\n%s", b.Name, p, others, names, err, src, again)
			}
		}
	}
}
