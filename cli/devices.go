package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"unsafe"

	"github.com/hplopt/hplopt/opencl"
)

func init() {
	register(verb{name: "devices", summary: "list the OpenCL platforms and devices", run: devicesVerb, flags: devicesFlags})
	register(verb{name: "check", summary: "run saxpy over 1M floats on a device and compare with the CPU", run: checkVerb,
		flags: func() *flagSet { return checkFlags(new(string)) }})
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

func devicesFlags() *flagSet {
	return newFlagSet("devices", "", "Lists the OpenCL platforms and their devices with their limits; the device -d\nchooses by default is marked.")
}

func devicesVerb(_ *command, args []string, stdout, stderr io.Writer) int {
	fs := devicesFlags()
	if err := fs.noOperands(args); err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	devs, err := opencl.AllDevices()
	if err != nil {
		fmt.Fprintf(stderr, "hplopt devices: %v\n", err)
		return 1
	}
	def, _ := opencl.Choose(devs, "")
	var plat *opencl.Platform
	for _, d := range devs {
		if d.Platform != plat {
			plat = d.Platform
			fmt.Fprintf(stdout, "platform %d: %s (%s, %s)\n", plat.Index, plat.Name, plat.Vendor, plat.Version)
		}
		mark := ""
		if d == def {
			mark = "  [default]"
		}
		fmt.Fprintf(stdout, "  device %s: %s%s\n", d.Spec(), d.Name, mark)
		fmt.Fprintf(stdout, "    vendor %s, type %s, %s, driver %s\n", d.Vendor, d.Type, d.Version, d.DriverVersion)
		fmt.Fprintf(stdout, "    compute units %d, max work-group %d, max work-items %v\n", d.ComputeUnits, d.MaxWorkGroupSize, d.MaxWorkItemSizes)
		fmt.Fprintf(stdout, "    local memory %d KiB, global memory %s, max allocation %s\n", d.LocalMemSize>>10, mib(d.GlobalMemSize), mib(d.MaxAllocSize))
	}
	return 0
}

const saxpySrc = `__kernel void saxpy(__global float *y, __global const float *x, float a, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}`

// saxpy runs y = a*x + y over n floats on the device and returns the
// kernel time in ns and the largest error against the CPU.
func saxpy(s *opencl.Session, n int) (ns int64, maxErr float64, err error) {
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i%1000)/7, float32(i%37)
	}
	const a = 2.5
	bx, err := s.Context.NewBuffer(n * int(unsafe.Sizeof(x[0])))
	if err != nil {
		return 0, 0, err
	}
	defer bx.Close()
	by, err := s.Context.NewBuffer(n * 4)
	if err != nil {
		return 0, 0, err
	}
	defer by.Close()
	if err := errors.Join(opencl.WriteSlice(s.Queue, bx, x), opencl.WriteSlice(s.Queue, by, y)); err != nil {
		return 0, 0, err
	}
	prog, err := s.Context.Build(saxpySrc, "")
	if err != nil {
		return 0, 0, err
	}
	defer prog.Close()
	k, err := prog.Kernel("saxpy")
	if err != nil {
		return 0, 0, err
	}
	defer k.Close()
	if err := errors.Join(k.SetArgBuffer(0, by), k.SetArgBuffer(1, bx), k.SetArgFloat32(2, a), k.SetArgInt32(3, int32(n))); err != nil {
		return 0, 0, err
	}
	ns, err = s.Queue.Run(k, []int{(n + 255) / 256 * 256}, []int{256})
	if err != nil {
		return 0, 0, err
	}
	got := make([]float32, n)
	if err := opencl.ReadSlice(s.Queue, by, got); err != nil {
		return 0, 0, err
	}
	for i := range got {
		want := a*x[i] + y[i]
		maxErr = math.Max(maxErr, math.Abs(float64(got[i]-want)))
	}
	return ns, maxErr, nil
}

// checkFlags defines check's flags: the device, on dev.
func checkFlags(dev *string) *flagSet {
	fs := newFlagSet("check", "", "Runs saxpy over 1M floats on the device and compares the result with the CPU's.")
	deviceVar(fs, dev)
	return fs
}

func checkVerb(_ *command, args []string, stdout, stderr io.Writer) int {
	var dev string
	fs := checkFlags(&dev)
	if err := fs.noOperands(args); err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	s, err := opencl.Open(dev)
	if err != nil {
		fmt.Fprintf(stderr, "hplopt check: %v\n", err)
		return 1
	}
	defer s.Close()
	const n = 1 << 20
	ns, maxErr, err := saxpy(s, n)
	if err != nil {
		fmt.Fprintf(stderr, "hplopt check: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "saxpy over %d floats on %s: %.3f ms, max error %g: ", n, s.Device.Name, float64(ns)/1e6, maxErr)
	if maxErr > 1e-4 {
		fmt.Fprintln(stdout, "WRONG")
		return 1
	}
	fmt.Fprintln(stdout, "ok")
	return 0
}
