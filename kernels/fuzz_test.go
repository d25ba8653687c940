package kernels_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/kernels"
)

// FuzzParseSize reads sizes as the command line's --size, -n and -k give
// them, for every benchmark and suite kernel: no input may panic; an error
// names the package; an accepted size is valid (Validate), has the
// benchmark's dimensions and loops, and its largest array has at most
// 2^31-1 elements (Largest). The lists are integers separated by commas,
// "-" for a list not given.
//
//	go test ./kernels -run '^$' -fuzz FuzzParseSize -fuzztime 2m
func FuzzParseSize(f *testing.F) {
	f.Add(uint8(0), "tiny", "-", "-")
	f.Add(uint8(3), "", "46340,46340", "46340")
	f.Add(uint8(4), "", "65536", "-")
	f.Add(uint8(6), "S", "2147483647", "1")
	f.Add(uint8(9), "", "0,5", "3")
	f.Add(uint8(12), "L", "-", "9,9,9")
	f.Add(uint8(20), "M", "3,3,3", "-")
	f.Add(uint8(1), "XL", "1,2,3,4", "0")
	all := append(kernels.All(), kernels.Suite()...)
	f.Fuzz(func(t *testing.T, which uint8, class, n, k string) {
		b := all[int(which)%len(all)]
		list := func(s string) []int {
			if s == "-" {
				return nil
			}
			var out []int
			for _, part := range strings.Split(s, ",") {
				v, err := strconv.Atoi(part)
				if err != nil {
					v = -1
				}
				out = append(out, v)
			}
			return out
		}
		size, err := b.ParseSize(class, list(n), list(k))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "kernels: ") {
				t.Errorf("%s ParseSize(%q, %s, %s): error %q does not name its package", b.Name, class, n, k, err)
			}
			return
		}
		if err := b.Validate(size); err != nil {
			t.Errorf("%s: ParseSize(%q, %s, %s) = %s, which Validate rejects: %v", b.Name, class, n, k, size, err)
		}
		if len(size.N) != b.Dims || len(size.K) != b.Loops {
			t.Errorf("%s: ParseSize(%q, %s, %s) = %s", b.Name, class, n, k, size)
		}
		largest, err := b.Largest(size)
		if err != nil || largest < 1 || largest > math.MaxInt32 {
			t.Errorf("%s at %s: Largest() = %d, %v", b.Name, size, largest, err)
		}
	})
}
