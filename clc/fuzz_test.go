package clc_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/clc"
	"github.com/hplopt/hplopt/codegen"
)

// FuzzLoad checks that no source makes Load fail inside (a panic turned
// into an "internal error"), and that what it accepts prints as OpenCL.
// The golden kernels are the seeds: go test ./clc -fuzz FuzzLoad explores.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	for _, file := range files {
		if ar, err := txtar.ParseFile(file); err == nil {
			for _, fl := range ar.Files {
				if fl.Name == "kernel.cl" {
					f.Add(fl.Data)
				}
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(goldenDir, "matmul.txtar")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		opts := clc.Options{Global: []int{8, 4, 2}}
		k, err := clc.Load("f.cl", src, opts)
		if err != nil {
			var list clc.ErrorList
			if errors.As(err, &list) {
				for _, e := range list {
					if strings.HasPrefix(e.Msg, "internal error") {
						t.Fatalf("%v\n%s", err, src)
					}
				}
			} else if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("%v\n%s", err, src)
			}
			return
		}
		for _, p := range k.AST.Params {
			if p.Rank > 0 {
				p.Extents = make([]int, p.Rank)
				for i := range p.Extents {
					p.Extents[i] = 4
				}
			}
		}
		if _, err := codegen.Source(k.AST); err != nil {
			t.Fatalf("%v\n%s\n%s", err, src, ast.String(k.AST))
		}
	})
}
