package archtest

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/hplopt/hplopt/"

// readSources reads the module's Go files, so that go test's cache, which
// sees only the files the test process itself reads (not those the go
// command it starts reads), reruns the tests when one changes.
var readSources = sync.OnceFunc(func() {
	filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
		case d.IsDir() && path != "../.." && (d.Name() == "testdata" || d.Name() == "docs" || strings.HasPrefix(d.Name(), ".")):
			return filepath.SkipDir
		case !d.IsDir() && (strings.HasSuffix(path, ".go") || d.Name() == "go.mod"):
			os.ReadFile(path)
		}
		return nil
	})
})

// goCmd runs the go command in the module's root with extra environment
// variables, skipping the test when there is no go command.
func goCmd(t *testing.T, env []string, args ...string) string {
	t.Helper()
	readSources()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	cmd := exec.Command(gobin, args...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// deps returns the module's packages that pkgs depend on (themselves
// included), without the module prefix.
func deps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	var out []string
	for _, p := range strings.Fields(goCmd(t, nil, append([]string{"list", "-deps"}, pkgs...)...)) {
		if rest, ok := strings.CutPrefix(p, module); ok {
			out = append(out, rest)
		}
	}
	slices.Sort(out)
	return out
}

// TestSearchBuildsWithoutCgo: everything that does not run kernels builds
// without cgo, so that searches are used and tested (and recorded
// measurements replayed) on machines without OpenCL.
func TestSearchBuildsWithoutCgo(t *testing.T) {
	goCmd(t, []string{"CGO_ENABLED=0"}, "build", "./ast", "./patterns", "./transforms", "./codegen", "./autotune", "./genetic", "./costmodel", "./strategies")
}

// TestLayering checks what the module's packages may depend on.
func TestLayering(t *testing.T) {
	// The search is itself: autotune and genetic depend on no other
	// package of the module, the cost model on autotune alone, strategies
	// on them alone.
	if got := deps(t, "./autotune", "./genetic"); !slices.Equal(got, []string{"autotune", "genetic"}) {
		t.Errorf("autotune and genetic depend on %v, want only each other", got)
	}
	if got := deps(t, "./costmodel"); !slices.Equal(got, []string{"autotune", "costmodel"}) {
		t.Errorf("costmodel depends on %v, want only autotune", got)
	}
	if got := deps(t, "./strategies"); !slices.Equal(got, []string{"autotune", "costmodel", "genetic", "strategies"}) {
		t.Errorf("strategies depends on %v, want only autotune, costmodel and genetic", got)
	}
	// The runner runs OpenCL C: it knows nothing of how variants are made.
	for _, d := range deps(t, "./runner") {
		if !slices.Contains([]string{"ast", "autotune", "opencl", "runner"}, d) {
			t.Errorf("runner depends on %s", d)
		}
	}
	// The command line is the top: only commands and example programs
	// import package cli, which imports the rest.
	for _, line := range strings.Split(strings.TrimSpace(goCmd(t, nil, "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")), "\n") {
		f := strings.Fields(line)
		pkg, _ := strings.CutPrefix(f[0], module)
		if slices.Contains(f[1:], module+"cli") && !strings.HasPrefix(pkg, "cmd/") && !strings.HasPrefix(pkg, "examples/") {
			t.Errorf("%s imports cli; only commands and examples may", pkg)
		}
	}
	// The DSL reaches the tuner through the optimizer only (patterns is
	// the analysis that Run's bounds check reads).
	for _, d := range strings.Fields(goCmd(t, nil, "list", "-f", `{{join .Imports " "}}`, "./hpl")) {
		if rest, ok := strings.CutPrefix(d, module); ok && !slices.Contains([]string{"ast", "codegen", "opencl", "optimizer", "patterns", "runner"}, rest) {
			t.Errorf("hpl imports %s", rest)
		}
	}
}
