package cli

import (
	"math"
	"strings"
	"testing"
)

// FuzzSizeList reads -n and -k values: no input may panic; what is
// accepted holds sizes from 1 to 2^31-1 and prints as a list that reads
// back the same.
//
//	go test ./cli -run '^$' -fuzz FuzzSizeList -fuzztime 2m
func FuzzSizeList(f *testing.F) {
	for _, seed := range []string{"1024,1024", "1024x512", "0", "-1", "4294967296", "2147483647", "1x", "x", ",", " 7 , 8 ", "1e3", "0x10", "9x9x9x9"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var l intList
		if err := l.Set(s); err != nil {
			return
		}
		for _, v := range l {
			if v < 1 || v > math.MaxInt32 {
				t.Errorf("Set(%q) accepted %d", s, v)
			}
		}
		var back intList
		if err := back.Set(l.String()); err != nil || back.String() != l.String() {
			t.Errorf("Set(%q) = %s, which reads back as %s, %v", s, l.String(), back.String(), err)
		}
	})
}

// noDeviceWork lists the verbs that read no device, file or database: the
// CLI fuzzer runs them whatever the arguments.
var noDeviceWork = map[string]bool{"help": true, "kernels": true, "analyze": true, "-h": true, "--help": true, "-help": true}

// FuzzArgs runs the command on arguments (separated by newlines): no input
// may panic ("internal error") or exit other than 0, 1 or 2, and a usage
// error (2) prints the usage. The verbs that do device, file or database
// work (tune, run, gen, bench, db, parse, devices, check) run only when
// their flags are refused, so that what reaches the device is stubbed by
// the validation errors; the others always run.
//
//	go test ./cli -run '^$' -fuzz FuzzArgs -fuzztime 2m
func FuzzArgs(f *testing.F) {
	for _, seed := range []string{
		"tune\nmatmul\n-t\nNaN", "matmul\n-t\n1e-10", "tune\nmatmul\n--params\n,", "run\nmatmul\n--runs\n0", "tune\nmatmul\n--timeout\n-1",
		"run\nmatmul\n--sample\n-5", "gen\nmatmul\n--params\nuf=2,uf=2", "bench\n-t\nS=5,M=1e10", "kernels", "kernels\nextra", "help\ntune",
		"help\nnosuch", "analyze\nmatmul", "analyze\nconv2d\n-x", "", "-h", "bogus", "db\n--bogus", "parse\n--shape", "devices\n-z",
		"tune\n-n\n0\nmatmul", "run\nsyrk\n-n\n4,5\n-k\n3\n--reps\n-1", "check\n-d", "matmul\n--order\nsideways",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\n")
		if line == "" {
			args = nil
		}
		if len(args) > 0 && !noDeviceWork[args[0]] {
			name := args[0]
			v, ok := verbs[name]
			rest := args[1:]
			if b, err := builtins.lookup(name); b != nil && err == nil && !ok {
				v, ok, rest = verbs["tune"], true, args
			}
			if ok {
				if _, err := v.flags().parse(rest); err == nil {
					return // the verb would run: device work
				}
			}
		}
		st, out, errs := hplopt(args...)
		if strings.Contains(errs, "internal error") || st < 0 || st > 2 {
			t.Fatalf("hplopt %q: status %d\nstdout: %s\nstderr: %s", args, st, out, errs)
		}
		if st == 2 && !strings.Contains(errs, "usage") {
			t.Errorf("hplopt %q: status 2 without the usage: %s", args, errs)
		}
	})
}
