package optimizer_test

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/optimizer"
)

// spaceGolden is the golden file of TestSpaceVersion.
var spaceGolden = filepath.Join("testdata", "space.txt")

// spaceDump describes the Table 2 space of a few kernels and devices: the
// parameters in order, the number of points, and the range of every
// parameter at points spread over the space. Any change of the space's
// parameters, order or ranges changes it.
func spaceDump(t *testing.T) string {
	var b strings.Builder
	fmt.Fprintf(&b, "version %s\n", optimizer.SpaceVersion)
	for _, spec := range []optimizer.Table2Spec{
		{Domain: []int{960}, Loops: []int{15}},                                                             // 1DCONV tiny
		{Domain: []int{32, 32}, Loops: []int{16}, MaxWorkGroup: 256, Transposable: true},                   // MATMUL tiny on a GPU
		{Domain: []int{32, 32}, Loops: []int{16}, MaxWorkGroup: 256, Transposable: true, Fission: true},    // SYR2K tiny on a GPU
		{Domain: []int{1024, 1024}, Loops: []int{1024}, MaxWorkGroup: 4096, CPU: true, Transposable: true}, // MATMUL S on PoCL
		{Domain: []int{48, 32}, Loops: []int{5, 3}, MaxWorkItems: [3]int{64, 64, 64}},                      // 2DCONV tiny
		{Domain: []int{16, 8, 8}, Loops: []int{2, 3, 4}},                                                   // 3DCONV tiny
		{Domain: []int{100}, Loops: []int{0}},                                                              // a loop of unknown length
		{Domain: []int{7, 5}},                                                                              // no compute loop
		{Domain: []int{7, 5}, Halo: true},                                                                  // no compute loop, a stencil's halo to stage
	} {
		space, _, err := optimizer.Table2(spec)
		if err != nil {
			t.Fatal(err)
		}
		size := space.Size()
		fmt.Fprintf(&b, "\nspec %+v\nparams %s\npoints %s\n", spec, strings.Join(space.Names(), ","), size)
		const samples = 8
		for i := range samples {
			at := new(big.Int).Div(new(big.Int).Mul(size, big.NewInt(int64(i))), big.NewInt(samples))
			p := space.At(at)
			fmt.Fprintf(&b, "at %s: %s\n", at, p)
			for k, n := range space.Names() {
				fmt.Fprintf(&b, "  %s %v\n", n, space.Range(k, p))
			}
		}
	}
	return b.String()
}

// TestSpaceVersion keeps optimizer.SpaceVersion honest: records are keyed
// by it, so a change of the Table 2 space (a parameter added, a range
// changed) must come with a new version, or records of the old space would
// be applied to the new one. The test fails when the space of a few
// kernels differs from testdata/space.txt while the version is the one
// written there; bump SpaceVersion, then run go test -run TestSpaceVersion
// -update.
func TestSpaceVersion(t *testing.T) {
	got := spaceDump(t)
	data, err := os.ReadFile(spaceGolden)
	want := string(data)
	if err == nil && got == want {
		return
	}
	recorded, _, _ := strings.Cut(strings.TrimPrefix(want, "version "), "\n")
	if *update {
		if err == nil && recorded == optimizer.SpaceVersion {
			t.Fatalf("the Table 2 space changed, but SpaceVersion is still %q: bump it before rewriting %s", recorded, spaceGolden)
		}
		if err := os.WriteFile(spaceGolden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	switch {
	case err != nil:
		t.Fatalf("%v (run go test -run TestSpaceVersion -update to write it)", err)
	case recorded == optimizer.SpaceVersion:
		g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
		line := 0
		for line < min(len(g), len(w)) && g[line] == w[line] {
			line++
		}
		t.Fatalf("the Table 2 space changed (%s line %d: %q, now %q), but SpaceVersion is still %q: bump it, so that records of the old space are not applied to the new one, then run go test -run TestSpaceVersion -update",
			spaceGolden, line+1, at(w, line), at(g, line), recorded)
	default:
		t.Fatalf("SpaceVersion is %q, %s was written for %q: run go test -run TestSpaceVersion -update", optimizer.SpaceVersion, spaceGolden, recorded)
	}
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end)"
}
