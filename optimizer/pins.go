package optimizer

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/transforms"
)

// Pinned values (Table2Spec.Fixed, Settings.Fixed, the command line's
// --params) are checked twice before anything is measured:
//
//   - checkPins, on the spec alone: each value must lie in the range its
//     parameter can take for the kernel's domain, loops and device (the
//     bounds that transforms' checks set, whatever the other parameters
//     are). A zero local or block size once divided the ranges after it
//     by zero, and a local size above the device's work-group emptied the
//     space, which the search then reported as a budget ended before any
//     variant ran.
//   - checkFeasible, on the space with the passes: some setting must be
//     legal. When the space is small enough to try every point and none is
//     legal, the search would only count illegal settings: the error gives
//     the most common reason instead.

// ErrPinned is matched (errors.Is) by the errors of pinned values that no
// setting can take or that leave no legal setting: a mistake in the
// caller's pins (the command line's --params), not a failure of the
// search.
var ErrPinned = errors.New("optimizer: pinned values leave no legal setting")

// pinError is an error of pinned values; it matches ErrPinned.
type pinError struct{ msg string }

func (e *pinError) Error() string        { return e.msg }
func (e *pinError) Is(target error) bool { return target == ErrPinned }

func pinErrorf(format string, args ...any) error {
	return &pinError{fmt.Sprintf(format, args...)}
}

// CheckPins checks pinned values for ps as a search with Settings.Fixed
// = fixed does before measuring anything (see Table2Spec.Fixed): each
// value must lie in the range its parameter takes for the problem's
// domain, compute loops and device limits. The error matches ErrPinned
// and names the pin, the range and what bounds it. Parameters the
// problem does not have are left to transforms.Apply.
func CheckPins(ps *transforms.Problem, fixed map[transforms.Name]int) error {
	loops, err := transforms.LoopLengths(ps)
	if err != nil {
		loops = nil
	}
	spec := Table2Spec{Domain: ps.Domain, Loops: loops, MaxWorkGroup: ps.MaxWorkGroup, MaxWorkItems: ps.MaxWorkItems, Fixed: fixed}
	maxWG := spec.MaxWorkGroup
	if maxWG <= 0 {
		maxWG = maxLocal
	}
	return checkPins(spec, maxWG)
}

// pinRange is the range a pinned value of parameter n may take for spec:
// lo to hi, and what bounds it from above (for the message).
func pinRange(spec Table2Spec, maxWG int, n transforms.Name) (lo, hi int, bound string) {
	for d := range spec.Domain {
		axis := "xyz"[d : d+1]
		switch n {
		case transforms.Block(d):
			return 1, spec.Domain[d], fmt.Sprintf("the %d points along %s", spec.Domain[d], axis)
		case transforms.Local(d):
			items := maxLocal
			if w := spec.MaxWorkItems[d]; w > 0 {
				items = w
			}
			if maxWG < items {
				return 1, maxWG, fmt.Sprintf("the device's largest work-group size %d", maxWG)
			}
			return 1, items, fmt.Sprintf("the device's %d work-items along %s", items, axis)
		case transforms.Global(d):
			// A work-group more than the blocks need is idle work
			// (transforms: "more work-groups than work").
			bsz, lsz := 1, 1
			if v, ok := spec.Fixed[transforms.Block(d)]; ok && v >= 1 {
				bsz = v
			}
			if v, ok := spec.Fixed[transforms.Local(d)]; ok && v >= 1 {
				lsz = v
			}
			blocks := ceilDiv(spec.Domain[d], bsz)
			return 1, ceilDiv(blocks, lsz) * lsz, fmt.Sprintf("the %d block(s) along %s in work-groups of %d", blocks, axis, lsz)
		}
	}
	for i, l := range spec.Loops {
		if n == transforms.Tile(i) {
			if l > 0 {
				return 0, l, fmt.Sprintf("the %d iterations of compute loop %d", l, i)
			}
			return 0, math.MaxInt32, "2^31-1"
		}
	}
	if n == transforms.UF && len(spec.Loops) > 0 {
		last := len(spec.Loops) - 1
		if t, ok := spec.Fixed[transforms.Tile(last)]; ok && t > 0 {
			return 0, t, fmt.Sprintf("the pinned tile %s=%d of the innermost loop", transforms.Tile(last), t)
		}
		if l := spec.Loops[last]; l > 0 {
			return 0, l, fmt.Sprintf("the %d iterations of the innermost compute loop", l)
		}
		return 0, math.MaxInt32, "2^31-1"
	}
	for _, d := range transforms.Defs() {
		if d.Name == n && d.Bool {
			return 0, 1, "1"
		}
	}
	return 0, math.MaxInt32, "2^31-1" // vw: judged by the passes
}

// checkPins rejects pinned values no setting of spec can take: each must
// lie in its parameter's range (pinRange), a pinned global size must be a
// multiple of a pinned local size, and the pinned local sizes together
// must fit in a work-group. maxWG is the device's largest work-group. The
// error names the pin, the values its parameter takes and why.
func checkPins(spec Table2Spec, maxWG int) error {
	names := make([]transforms.Name, 0, len(spec.Fixed))
	for _, d := range transforms.Defs() {
		if _, ok := spec.Fixed[d.Name]; ok {
			names = append(names, d.Name)
		}
	}
	for _, n := range names {
		v := spec.Fixed[n]
		lo, hi, bound := pinRange(spec, maxWG, n)
		switch {
		case v < lo:
			return pinErrorf("optimizer: pinned %s=%d: %s takes %d to %d (%s)", n, v, n, lo, hi, bound)
		case v > hi:
			return pinErrorf("optimizer: pinned %s=%d exceeds %s (%s takes %d to %d)", n, v, bound, n, lo, hi)
		}
	}
	group := 1
	var locals []string
	for d := range spec.Domain {
		l, ok := spec.Fixed[transforms.Local(d)]
		if !ok {
			continue
		}
		group *= l
		locals = append(locals, fmt.Sprintf("%s=%d", transforms.Local(d), l))
		if sz, ok := spec.Fixed[transforms.Global(d)]; ok && sz%l != 0 {
			return pinErrorf("optimizer: pinned %s=%d is not a multiple of the pinned %s=%d", transforms.Global(d), sz, transforms.Local(d), l)
		}
	}
	if group > maxWG {
		return pinErrorf("optimizer: pinned %s make work-groups of %d work-items, above the device's largest work-group size %d", strings.Join(locals, " and "), group, maxWG)
	}
	return nil
}

// probePoints bounds the settings checkFeasible tries: a space of at most
// this many points is tried whole (about 40 µs a setting).
const probePoints = 4096

// checkFeasible looks for a legal setting of a space with pinned values
// before anything is measured: it tries every point of a space of at most
// probePoints points, else that many drawn at random (a fixed seed). It
// returns an error only when it tried the whole space and found nothing
// legal; the error names the pins and the most common reason the passes
// gave.
func checkFeasible(ps *transforms.Problem, space *autotune.Space, toParams func(autotune.Point) transforms.Params, fixed map[transforms.Name]int) error {
	size := space.Size()
	if size.Sign() == 0 {
		return pinErrorf("optimizer: the pinned %s leave no setting to search", formatPins(fixed))
	}
	whole := size.Cmp(big.NewInt(probePoints)) <= 0
	n := probePoints
	if whole {
		n = int(size.Int64())
	}
	r := autotune.NewRand(1)
	reasons := map[string]int{}
	for i := 0; i < n; i++ {
		var p autotune.Point
		if whole {
			p = space.At(big.NewInt(int64(i)))
		} else {
			p = space.Sample(r)
		}
		_, err := transforms.Apply(ps, toParams(p))
		if err == nil {
			return nil
		}
		reasons[reason(err)]++
	}
	if !whole {
		return nil
	}
	why, k := mostCommon(reasons)
	return pinErrorf("optimizer: no legal setting with the pinned %s: all %d settings of the space are illegal, %d of them because %s", formatPins(fixed), n, k, why)
}

// reason is an illegal setting's reason without the package's prefix:
// "bszx=64 exceeds the 32 points along x".
func reason(err error) string {
	s := err.Error()
	if i := strings.Index(s, transforms.ErrIllegal.Error()+": "); i >= 0 {
		return s[i+len(transforms.ErrIllegal.Error())+2:]
	}
	return strings.TrimPrefix(s, "transforms: ")
}

// mostCommon returns the reason counted most often (the first in
// alphabetical order among ties) and its count.
func mostCommon(counts map[string]int) (string, int) {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best, n := "", 0
	for _, k := range keys {
		if counts[k] > n {
			best, n = k, counts[k]
		}
	}
	return best, n
}

// formatPins writes pins as name=value, in transforms' order.
func formatPins(fixed map[transforms.Name]int) string {
	m := map[string]int{}
	for n, v := range fixed {
		m[string(n)] = v
	}
	return transforms.Format(m)
}
