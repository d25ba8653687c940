package runner

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/hplopt/hplopt/opencl"
)

// Memory checks, made before anything is allocated, so that a problem too
// large for the device or the host is a clear error instead of a driver's
// assertion after minutes of uploads, or the Go runtime's "fatal error: out
// of memory" with a stack dump.

// ArraySize is the size of one array argument, as the memory checks read
// it.
type ArraySize struct {
	// Name is the argument's name, or words describing the array (a name
	// with a space: "the largest array of matmul").
	Name   string
	Bytes  int64
	Output bool
}

func (a ArraySize) String() string {
	if strings.Contains(a.Name, " ") {
		return a.Name
	}
	return "array " + a.Name
}

// Sizes returns the sizes of the problem's arrays, in argument order.
func (p *Problem) Sizes() []ArraySize {
	var out []ArraySize
	for i := range p.Args {
		a := &p.Args[i]
		if !a.Scalar {
			out = append(out, ArraySize{Name: a.Name, Bytes: int64(a.Len()) * int64(a.Type.Size()), Output: a.Output})
		}
	}
	return out
}

// CheckDevice checks that arrays fit on dev before any of them is
// uploaded: each within the device's largest allocation
// (CL_DEVICE_MAX_MEM_ALLOC_SIZE) and all of them, with outputCopies more
// of each output (a Measurer keeps each output's initial contents on the
// device: 1), within its global memory. Limits the device does not give
// (0) are not checked. Package hpl's Run, the optimizer before it starts a
// worker, and the worker's Measurer all check here.
func CheckDevice(dev *opencl.Device, arrays []ArraySize, outputCopies int) error {
	if dev == nil {
		return nil
	}
	var total int64
	for _, a := range arrays {
		if dev.MaxAllocSize > 0 && a.Bytes > dev.MaxAllocSize {
			return fmt.Errorf("runner: %s takes %s, more than the largest allocation %s allows (%s, CL_DEVICE_MAX_MEM_ALLOC_SIZE)", a, Bytes(a.Bytes), dev.Name, Bytes(dev.MaxAllocSize))
		}
		total = satAdd(total, a.Bytes)
		if a.Output {
			total = satAdd(total, satMul(a.Bytes, int64(outputCopies)))
		}
	}
	if dev.GlobalMemSize > 0 && total > dev.GlobalMemSize {
		what := "the arrays take"
		if outputCopies > 0 {
			what = "the arrays and the initial contents of the outputs take"
		}
		return fmt.Errorf("runner: %s %s, more than the global memory of %s (%s)", what, Bytes(total), dev.Name, Bytes(dev.GlobalMemSize))
	}
	return nil
}

// HostMemory returns how many bytes of memory this process may still
// take, and what bounds it: the machine's available memory (MemAvailable
// of /proc/meminfo), the room left under the cgroup's memory.max, or under
// the address-space limit (RLIMIT_AS, as ulimit -v and prlimit --as set
// it) less the address space the process uses already, whichever is
// smallest. ok is false where none of them can be read.
func HostMemory() (bytes int64, bound string, ok bool) {
	bytes = math.MaxInt64
	take := func(v int64, what string) {
		if v < bytes {
			bytes, bound, ok = max(v, 0), what, true
		}
	}
	if v, found := procValue("/proc/meminfo", "MemAvailable:"); found {
		take(v, "the machine's available memory (MemAvailable)")
	}
	if limit, err := readInt("/sys/fs/cgroup/memory.max"); err == nil {
		used, _ := readInt("/sys/fs/cgroup/memory.current")
		take(limit-used, "the room left under the cgroup's memory.max")
	}
	var rl syscall.Rlimit
	// RLIM_INFINITY is all ones: past math.MaxInt64.
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil && rl.Cur < math.MaxInt64 {
		used, _ := procValue("/proc/self/status", "VmSize:")
		take(int64(rl.Cur)-used, "the room left under the address-space limit (RLIMIT_AS)")
	}
	return bytes, bound, ok
}

// CheckHostMemory returns an error when need bytes of host memory, which
// what needs (an estimate: "matmul at n=46340x46340 k=46340"), exceed what
// HostMemory says is left. Where nothing can be read it returns nil.
func CheckHostMemory(what string, need int64) error {
	avail, bound, ok := HostMemory()
	if !ok || need <= avail {
		return nil
	}
	return fmt.Errorf("runner: %s needs about %s of host memory; %s is %s", what, Bytes(need), bound, Bytes(avail))
}

// procValue reads a "Key: N kB" line of a /proc file, in bytes.
func procValue(path, key string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, found := strings.CutPrefix(sc.Text(), key)
		if !found {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0, false
		}
		v, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, false
		}
		if len(fields) > 1 && fields[1] == "kB" {
			v *= 1024
		}
		return v, true
	}
	return 0, false
}

// readInt reads a file holding one integer ("max" is an error).
func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// Bytes writes a size in bytes as KiB, MiB, GiB or TiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	x, i := float64(n), -1
	for x >= unit && i < 3 {
		x /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", x, "KMGT"[i])
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul(a, b int64) int64 {
	if b != 0 && a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}
