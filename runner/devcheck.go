package runner

import (
	"fmt"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/opencl"
)

// The check on the device. Comparing a large output on the host costs a
// read of it over the bus and a pass over it and over the expected output
// (read from the file a worker keeps it in): 34 ms per variant for MATMUL
// L's 16M floats on the H100 host, a fifth of the tuning time. So a
// Measurer that can keeps the expected outputs in device memory too and
// compares there, with kernels that apply Tolerance's rule exactly as the
// host does (in double precision, on the float's exact value, NaN only
// matching NaN, ints exactly), counting the wrong elements and the first
// one's index with atomics: a correct variant costs one small read. Only
// when the device counts a wrong element does the host compare as before
// (reading the output back in chunks), and its result is the one that
// counts and says which element is wrong. The copy is made again from the
// host's after a variant that wrote outside its output (its guard zones)
// or failed at launch, since it may have written anywhere; were it damaged
// unseen (a write far outside an output, past the guard zones), a right
// variant would disagree with the host, which finds nothing wrong, and the
// copy is made again too (after maxDisagreements, the host checks alone).
// A wrong variant passes the device only if its outputs equal the damaged
// copy element for element.
//
// A device without double precision (cl_khr_fp64), an output of 2^31
// elements or more, or one whose second copy does not fit the device's
// memory (beside every array and the copies outputs are reset from, within
// seven eighths of it) is checked on the host. Device memory holds the
// copy; host memory holds nothing more.

// checkSource is the comparison kernels: check_f32, check_f64 and check_i32
// compare got with want (n elements), adding the number of wrong ones to
// res[0] and keeping the least wrong index in res[1]. abs_tol and rel_tol
// are Tolerance.bounds of the scaled tolerance.
const checkSource = `#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

/* The value of float bits b, exactly, subnormals included (a device may
   flush float subnormals; the host does not). */
double widen(uint b) {
	if (((b >> 23) & 0xffu) == 0u) {
		double m = ldexp((double)(b & 0x7fffffu), -149);
		return (b >> 31) != 0u ? -m : m;
	}
	return (double)as_float(b);
}

/* Tolerance.Close on the host: equal values match; NaN matches only NaN,
   an infinity only itself; else |g - w| <= max(abs, rel*|w|). */
bool wrong(double g, double w, double abs_tol, double rel_tol) {
	if (g == w)
		return false;
	ulong gb = as_ulong(g), wb = as_ulong(w);
	bool gs = ((gb >> 52) & 0x7ffUL) == 0x7ffUL, ws = ((wb >> 52) & 0x7ffUL) == 0x7ffUL;
	if (gs || ws) {
		bool gn = gs && (gb & 0xfffffffffffffUL) != 0UL, wn = ws && (wb & 0xfffffffffffffUL) != 0UL;
		return !(gn && wn);
	}
	return !(fabs(g - w) <= fmax(abs_tol, rel_tol * fabs(w)));
}

#define CHECK(NAME, T, WRONG) \
__kernel void NAME(__global const T *got, __global const T *want, uint n, double abs_tol, double rel_tol, __global uint *res) { \
	uint bad = 0u, first = 0xffffffffu; \
	for (uint i = get_global_id(0); i < n; i += get_global_size(0)) { \
		if (WRONG) { \
			if (bad == 0u) \
				first = i; \
			bad++; \
		} \
	} \
	if (bad != 0u) { \
		atomic_add(&res[0], bad); \
		atomic_min(&res[1], first); \
	} \
}

CHECK(check_f32, uint, wrong(widen(got[i]), widen(want[i]), abs_tol, rel_tol))
CHECK(check_f64, double, wrong(got[i], want[i], abs_tol, rel_tol))
CHECK(check_i32, int, got[i] != want[i])
`

// CheckOn says where a Measurer compares a variant's outputs with the
// expected ones.
type CheckOn int

const (
	// CheckOnAuto checks on the device where its memory is not the host's
	// (a device that is not a CPU) and it can (see above), else on the
	// host: on a CPU device a read back is a copy within host memory, and
	// the device's copy of the expected outputs would double what the
	// outputs take of it.
	CheckOnAuto CheckOn = iota
	// CheckOnDevice checks on the device wherever it can.
	CheckOnDevice
	// CheckOnHost checks on the host.
	CheckOnHost
)

// Checks lists the places by name, as the command line's --check takes
// them.
var Checks = map[string]CheckOn{"auto": CheckOnAuto, "device": CheckOnDevice, "host": CheckOnHost}

func (c CheckOn) String() string {
	for name, x := range Checks {
		if x == c {
			return name
		}
	}
	return fmt.Sprintf("CheckOn(%d)", int(c))
}

// devCheck is a Measurer's check on the device.
type devCheck struct {
	prog *Program  // the comparison kernels; being built at first
	want []*Buffer // per argument: an output's expected contents; nil for the others
	res  *Buffer   // the count of wrong elements and the first one's index
	kern []*Kernel // per argument: the output's comparison with its arguments set
	// ready says that want holds the expected outputs; off that the
	// device does not check (the program failed, a copy could not be
	// made, or the device disagreed with the host too often).
	ready, off bool
	// warm says that the comparison kernels have been launched once.
	warm bool
	// stale says that a variant failed after its launch (wrote outside
	// its output, or crashed) and may have written into the copy: it is
	// made again before the next check.
	stale bool
	// disagreed counts the checks the device failed and the host passed.
	disagreed int
}

// maxDisagreements is how many times the device may count wrong elements
// the host does not find before the host checks alone.
const maxDisagreements = 3

// newDevCheck starts the check on the device of a Measurer, or returns nil
// where the host checks (see above).
func (m *Measurer) newDevCheck() *devCheck {
	d := m.sess.Device()
	switch m.set.Check {
	case CheckOnHost:
		return nil
	case CheckOnAuto:
		if d.Type&opencl.CPU != 0 {
			return nil
		}
	}
	if !d.HasExtension("cl_khr_fp64") {
		return nil
	}
	var arrays, outs int64
	for i := range m.prob.Args {
		a := &m.prob.Args[i]
		if a.Scalar {
			continue
		}
		arrays += int64(a.bytes())
		if a.Output {
			if a.Len() >= 1<<31 || d.MaxAllocSize > 0 && int64(a.bytes()) > d.MaxAllocSize {
				return nil
			}
			outs += int64(a.bytes())
		}
	}
	if d.GlobalMemSize > 0 && arrays+2*outs > d.GlobalMemSize/8*7 {
		return nil
	}
	return &devCheck{prog: m.sess.Prepare(checkSource, "", nil), want: make([]*Buffer, len(m.prob.Args)), kern: make([]*Kernel, len(m.prob.Args))}
}

// markStale notes that a variant may have written anywhere.
func (dc *devCheck) markStale() {
	if dc != nil {
		dc.stale = true
	}
}

// usable reports whether the device checks.
func (dc *devCheck) usable() bool { return dc != nil && dc.ready && !dc.off }

// stop makes the host check from now on and frees the device's copies.
func (dc *devCheck) stop() {
	dc.off, dc.ready = true, false
	dc.free()
}

// free releases the copies, the kernels and the program.
func (dc *devCheck) free() {
	for i := range dc.want {
		if dc.kern[i] != nil {
			dc.kern[i].Close()
			dc.kern[i] = nil
		}
		if dc.want[i] != nil {
			dc.want[i].Close()
			dc.want[i] = nil
		}
	}
	if dc.res != nil {
		dc.res.Close()
		dc.res = nil
	}
	if dc.prog != nil {
		dc.prog.Close()
		dc.prog = nil
	}
}

// wantToDevice copies the expected outputs into device memory, from memory
// or from the file in chunks; a failure (the device out of memory) leaves
// the check to the host.
func (m *Measurer) wantToDevice() {
	dc := m.dc
	if dc == nil || dc.off {
		return
	}
	dc.ready, dc.stale = false, false
	for i, k := range dc.kern { // their tolerances may change
		if k != nil {
			k.Close()
			dc.kern[i] = nil
		}
	}
	for _, i := range m.outs {
		a := &m.prob.Args[i]
		if dc.want[i] == nil {
			b, err := m.sess.NewBuffer(a.bytes())
			if err != nil {
				dc.stop()
				return
			}
			dc.want[i] = b
		}
		n, size := a.Len(), a.Type.Size()
		per := chunkBytes / size
		for lo := 0; lo < n; lo += per {
			hi := min(n, lo+per)
			w, err := m.wantChunk(i, lo, hi)
			if err == nil {
				err = dc.want[i].writeAt(lo*size, contents(&w))
			}
			if err != nil {
				dc.stop()
				return
			}
		}
	}
	dc.ready = true
	if !dc.warm {
		// The comparison kernels' first launch, here while the expected
		// outputs are set rather than in a variant's check: a device that
		// compiles at the first launch (PoCL) compiles them now, and a
		// variant's time limit does not count it. The outputs compared
		// are whatever the buffers hold; the answer does not matter.
		dc.warm = true
		for _, i := range m.outs {
			if _, err := m.checkOutput(i); err != nil {
				dc.stop()
				return
			}
		}
	}
}

// checkOnDevice compares every output with its expected contents on the
// device and reports whether all are right.
func (m *Measurer) checkOnDevice() (bool, error) {
	for _, i := range m.outs {
		bad, err := m.checkOutput(i)
		if err != nil || bad != 0 {
			return false, err
		}
	}
	return true, nil
}

// checkOutput compares output i with its expected contents on the device
// and returns the number of wrong elements. An error that is the device's
// (the program, a kernel, a buffer) stops the check on the device.
func (m *Measurer) checkOutput(i int) (bad uint32, err error) {
	dc := m.dc
	if err := dc.prog.Wait(); err != nil {
		dc.stop()
		return 0, err
	}
	if dc.res == nil {
		b, err := m.sess.NewBuffer(8)
		if err != nil {
			dc.stop()
			return 0, err
		}
		dc.res = b
	}
	k, err := m.checkKernel(i)
	if err != nil {
		dc.stop()
		return 0, err
	}
	res := []int32{0, -1} // the count, and the first index (as uint, the largest)
	if err := writeSlice(dc.res, res); err != nil {
		return 0, err
	}
	n := m.prob.Args[i].Len()
	groups := max(1, m.sess.Device().ComputeUnits) * 1024
	if _, err := k.Run([]int{min((n+63)/64*64, groups)}, nil); err != nil {
		return 0, err
	}
	if err := readSlice(dc.res, res); err != nil {
		return 0, err
	}
	return uint32(res[0]), nil
}

// checkKernel returns output i's comparison kernel, made at first use.
func (m *Measurer) checkKernel(i int) (*Kernel, error) {
	dc := m.dc
	if dc.kern[i] != nil {
		return dc.kern[i], nil
	}
	a := &m.prob.Args[i]
	name := map[ast.Type]string{ast.Float: "check_f32", ast.Double: "check_f64", ast.Int: "check_i32"}[a.Type]
	if name == "" {
		return nil, fmt.Errorf("runner: no check on the device for %v", a.Type)
	}
	rel, abs := m.tols[i].bounds()
	k, err := dc.prog.Kernel(name, []KernelArg{
		{Buffer: m.bufs[i]}, {Buffer: dc.want[i]},
		{Type: ast.Int, Value: float64(a.Len())},
		{Type: ast.Double, Value: abs}, {Type: ast.Double, Value: rel},
		{Buffer: dc.res},
	})
	if err != nil {
		return nil, err
	}
	dc.kern[i] = k
	return k, nil
}
