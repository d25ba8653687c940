package transforms_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/transforms"
)

func TestParsePins(t *testing.T) {
	got, err := transforms.ParsePins(" lszx=16, lmem=true,vw=1")
	if err != nil {
		t.Fatal(err)
	}
	if got[transforms.LszX] != 16 || got[transforms.LMem] != 1 || got[transforms.VW] != 1 || len(got) != 3 {
		t.Errorf("ParsePins = %v", got)
	}
	for _, tc := range []struct{ in, want string }{
		{",", "empty entry"},
		{"lszx=1,,uf=2", "empty entry"},
		{"lszx=1,lszx=2", "given twice"},
		{"foo=1", `unknown parameter "foo"`},
		{"lszx", "want name=value"},
		{"uf=x", "not a number"},
		{"lmem=2", "must be 0 or 1"},
		{"bszx=-1", "must not be negative"},
	} {
		if _, err := transforms.ParsePins(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParsePins(%q) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
	if m, err := transforms.ParsePins(""); err != nil || len(m) != 0 {
		t.Errorf("ParsePins(\"\") = %v, %v", m, err)
	}
}

func TestVocabulary(t *testing.T) {
	seen := map[transforms.Name]bool{}
	for _, d := range transforms.Defs() {
		if seen[d.Name] || d.Doc == "" {
			t.Errorf("parameter %q: repeated or undocumented", d.Name)
		}
		seen[d.Name] = true
		if n, err := transforms.Lookup(string(d.Name)); err != nil || n != d.Name {
			t.Errorf("Lookup(%q) = %q, %v", d.Name, n, err)
		}
		var p transforms.Params
		if err := p.Set(d.Name, 1); err != nil {
			t.Errorf("Set(%s, 1): %v", d.Name, err)
		}
		if v, err := p.Get(d.Name); err != nil || v != 1 {
			t.Errorf("Get(%s) = %d, %v after Set 1", d.Name, v, err)
		}
	}
	for d := 0; d < 3; d++ {
		for _, n := range []transforms.Name{transforms.Global(d), transforms.Local(d), transforms.Block(d), transforms.Tile(d)} {
			if !seen[n] {
				t.Errorf("%q is not a defined parameter", n)
			}
		}
	}
	// 2 dimensions and 1 loop: sz, lsz and bsz along x and y, fullunroll,
	// interleave, vw, tw0, uf, lmem, lcopy, vec, pack, ltrans, prefetch,
	// warp, gswz, split, ftz, fission, coff; 1 dimension and no loop:
	// szx, lszx, bszx, fullunroll, interleave, vw, lmem, lcopy (0 without
	// loops), vec, ftz, coff.
	if got := len(transforms.Relevant(2, 1)); got != 23 {
		t.Errorf("Relevant(2, 1) has %d names, want 23", got)
	}
	if got := len(transforms.Relevant(1, 0)); got != 11 {
		t.Errorf("Relevant(1, 0) has %d names, want 11: %v", got, transforms.Relevant(1, 0))
	}
}

func TestCompleteRejectsZeroSizes(t *testing.T) {
	prob := &transforms.Problem{Domain: []int{64, 64}}
	for _, pins := range []string{"lszx=0", "bszy=0"} {
		given, err := transforms.ParsePins(pins)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := transforms.Complete(prob, given); !errors.Is(err, transforms.ErrIllegal) {
			t.Errorf("Complete(%s) = %v, want an illegal-setting error", pins, err)
		}
	}
	p, err := transforms.Complete(prob, map[transforms.Name]int{transforms.BszX: 4, transforms.LszX: 8})
	if err != nil {
		t.Fatal(err)
	}
	if p.Global[0] != 16 || p.Global[1] != 64 {
		t.Errorf("Complete: global %v, want [16 64 ...]", p.Global)
	}
}

// FuzzParsePins reads --params values: no input may panic; an error names
// the package; what is accepted pins known parameters to values they can
// take (non-negative, 0 or 1 for a flag) and prints (Format) as a list
// that reads back the same.
//
//	go test ./transforms -run '^$' -fuzz FuzzParsePins -fuzztime 2m
func FuzzParsePins(f *testing.F) {
	for _, seed := range []string{"lszx=16,lmem=true,vw=1", ",", "lszx=1,,uf=2", "lszx=1,lszx=2", "foo=1", "lszx", "uf=x", "lmem=2",
		"bszx=-1", " tw0 = 8 ", "uf=99999999999999999999", "lmem=TRUE,lcopy=f", "=", "szx=0x10"} {
		f.Add(seed)
	}
	defs := map[transforms.Name]transforms.Def{}
	for _, d := range transforms.Defs() {
		defs[d.Name] = d
	}
	f.Fuzz(func(t *testing.T, s string) {
		pins, err := transforms.ParsePins(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "transforms: ") {
				t.Errorf("ParsePins(%q): error %q does not name its package", s, err)
			}
			return
		}
		m := map[string]int{}
		for n, v := range pins {
			d, ok := defs[n]
			if !ok || v < 0 || d.Bool && v > 1 {
				t.Errorf("ParsePins(%q) pins %s=%d", s, n, v)
			}
			m[string(n)] = v
		}
		back, err := transforms.ParsePins(transforms.Format(m))
		if err != nil || len(back) != len(pins) {
			t.Fatalf("ParsePins(%q) = %v; Format reads back as %v, %v", s, pins, back, err)
		}
		for n, v := range pins {
			if back[n] != v {
				t.Errorf("ParsePins(%q): %s=%d reads back as %d", s, n, v, back[n])
			}
		}
	})
}
