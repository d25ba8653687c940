// Package opencl is hplopt's thin, typed cgo binding over the OpenCL 1.2
// API: platforms and devices with the properties the optimizer needs,
// contexts, profiling command queues, buffers, programs built from source
// or from the binaries of earlier builds, and kernels. Every OpenCL error
// becomes an Error naming the call and the symbolic code. Resources are
// released by Close, deterministically.
package opencl

// #cgo LDFLAGS: -lOpenCL
// #define CL_TARGET_OPENCL_VERSION 120
// #include <stdlib.h>
// #include <CL/cl.h>
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"
)

// DeviceType is the kind of a device.
type DeviceType uint64

// Device types.
const (
	CPU         DeviceType = C.CL_DEVICE_TYPE_CPU
	GPU         DeviceType = C.CL_DEVICE_TYPE_GPU
	Accelerator DeviceType = C.CL_DEVICE_TYPE_ACCELERATOR
)

func (t DeviceType) String() string {
	var parts []string
	if t&GPU != 0 {
		parts = append(parts, "GPU")
	}
	if t&CPU != 0 {
		parts = append(parts, "CPU")
	}
	if t&Accelerator != 0 {
		parts = append(parts, "ACCELERATOR")
	}
	if len(parts) == 0 {
		return "OTHER"
	}
	return strings.Join(parts, "|")
}

// Platform is an OpenCL implementation.
type Platform struct {
	Index                 int
	Name, Vendor, Version string
	id                    C.cl_platform_id
}

// Device is one OpenCL device with the properties read at discovery.
type Device struct {
	Platform      *Platform
	Index         int // within its platform
	Name, Vendor  string
	Type          DeviceType
	Version       string // OpenCL version, e.g. "OpenCL 3.0 CUDA"
	DriverVersion string
	ComputeUnits  int
	// MaxWorkGroupSize is the largest product of local sizes; MaxWorkItemSizes
	// the largest local size per dimension.
	MaxWorkGroupSize int
	MaxWorkItemSizes []int
	LocalMemSize     int64
	GlobalMemSize    int64
	MaxAllocSize     int64
	// MemBaseAddrAlign is the alignment in bytes that the origin of a
	// sub-buffer needs (CL_DEVICE_MEM_BASE_ADDR_ALIGN, given in bits).
	MemBaseAddrAlign int
	// Extensions lists the device's OpenCL extensions (CL_DEVICE_EXTENSIONS),
	// separated by spaces.
	Extensions string
	id         C.cl_device_id
}

// HasExtension reports whether the device supports the OpenCL extension
// name (such as cl_khr_fp64).
func (d *Device) HasExtension(name string) bool {
	for _, e := range strings.Fields(d.Extensions) {
		if e == name {
			return true
		}
	}
	return false
}

// Spec returns the "P:D" selection string of the device.
func (d *Device) Spec() string {
	p := 0
	if d.Platform != nil {
		p = d.Platform.Index
	}
	return fmt.Sprintf("%d:%d", p, d.Index)
}

func (d *Device) String() string {
	pn := ""
	if d.Platform != nil {
		pn = d.Platform.Name
	}
	return fmt.Sprintf("%s %s (%s, %s)", d.Spec(), d.Name, d.Type, pn)
}

func platformString(id C.cl_platform_id, param C.cl_platform_info) string {
	var n C.size_t
	if C.clGetPlatformInfo(id, param, 0, nil, &n) != C.CL_SUCCESS || n == 0 {
		return ""
	}
	buf := make([]byte, n)
	C.clGetPlatformInfo(id, param, n, unsafe.Pointer(&buf[0]), nil)
	return strings.TrimRight(string(buf), "\x00 ")
}

func deviceString(id C.cl_device_id, param C.cl_device_info) string {
	var n C.size_t
	if C.clGetDeviceInfo(id, param, 0, nil, &n) != C.CL_SUCCESS || n == 0 {
		return ""
	}
	buf := make([]byte, n)
	C.clGetDeviceInfo(id, param, n, unsafe.Pointer(&buf[0]), nil)
	return strings.TrimRight(string(buf), "\x00 ")
}

func deviceUint(id C.cl_device_id, param C.cl_device_info, size uintptr) uint64 {
	var v C.cl_ulong
	C.clGetDeviceInfo(id, param, C.size_t(size), unsafe.Pointer(&v), nil)
	switch size {
	case 4:
		return uint64(*(*C.cl_uint)(unsafe.Pointer(&v)))
	}
	return uint64(v)
}

// discovery serializes the queries of platforms and devices. The ICD
// loader (ocl-icd) and implementations such as PoCL set themselves up on a
// process's first clGetPlatformIDs, and that setup is not safe for
// concurrent callers: goroutines enumerating at once at program start
// crashed the process (SIGSEGV) or found no platform. Every path to a
// platform or device (Platforms, Platform.Devices, and so AllDevices,
// Select and Open) holds it.
var discovery sync.Mutex

// Platforms lists the installed platforms; ErrNoPlatform when there are none.
// It is safe for concurrent use.
func Platforms() ([]*Platform, error) {
	discovery.Lock()
	defer discovery.Unlock()
	var n C.cl_uint
	st := C.clGetPlatformIDs(0, nil, &n)
	if st == -1001 || (st == C.CL_SUCCESS && n == 0) {
		return nil, ErrNoPlatform
	}
	if err := check("clGetPlatformIDs", st); err != nil {
		return nil, err
	}
	ids := make([]C.cl_platform_id, n)
	if err := check("clGetPlatformIDs", C.clGetPlatformIDs(n, &ids[0], nil)); err != nil {
		return nil, err
	}
	out := make([]*Platform, n)
	for i, id := range ids {
		out[i] = &Platform{
			Index: i, id: id,
			Name:    platformString(id, C.CL_PLATFORM_NAME),
			Vendor:  platformString(id, C.CL_PLATFORM_VENDOR),
			Version: platformString(id, C.CL_PLATFORM_VERSION),
		}
	}
	return out, nil
}

// Devices lists the platform's devices. It is safe for concurrent use.
func (p *Platform) Devices() ([]*Device, error) {
	discovery.Lock()
	defer discovery.Unlock()
	var n C.cl_uint
	st := C.clGetDeviceIDs(p.id, C.CL_DEVICE_TYPE_ALL, 0, nil, &n)
	if st == C.CL_DEVICE_NOT_FOUND || n == 0 {
		return nil, nil
	}
	if err := check("clGetDeviceIDs", st); err != nil {
		return nil, err
	}
	ids := make([]C.cl_device_id, n)
	if err := check("clGetDeviceIDs", C.clGetDeviceIDs(p.id, C.CL_DEVICE_TYPE_ALL, n, &ids[0], nil)); err != nil {
		return nil, err
	}
	out := make([]*Device, n)
	for i, id := range ids {
		d := &Device{
			Platform: p, Index: i, id: id,
			Name:             deviceString(id, C.CL_DEVICE_NAME),
			Vendor:           deviceString(id, C.CL_DEVICE_VENDOR),
			Version:          deviceString(id, C.CL_DEVICE_VERSION),
			DriverVersion:    deviceString(id, C.CL_DRIVER_VERSION),
			Type:             DeviceType(deviceUint(id, C.CL_DEVICE_TYPE, 8)),
			ComputeUnits:     int(deviceUint(id, C.CL_DEVICE_MAX_COMPUTE_UNITS, 4)),
			MaxWorkGroupSize: int(deviceUint(id, C.CL_DEVICE_MAX_WORK_GROUP_SIZE, unsafe.Sizeof(C.size_t(0)))),
			LocalMemSize:     int64(deviceUint(id, C.CL_DEVICE_LOCAL_MEM_SIZE, 8)),
			GlobalMemSize:    int64(deviceUint(id, C.CL_DEVICE_GLOBAL_MEM_SIZE, 8)),
			MaxAllocSize:     int64(deviceUint(id, C.CL_DEVICE_MAX_MEM_ALLOC_SIZE, 8)),
			MemBaseAddrAlign: int(deviceUint(id, C.CL_DEVICE_MEM_BASE_ADDR_ALIGN, 4)) / 8,
			Extensions:       deviceString(id, C.CL_DEVICE_EXTENSIONS),
		}
		dims := int(deviceUint(id, C.CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, 4))
		if dims > 0 {
			sizes := make([]C.size_t, dims)
			C.clGetDeviceInfo(id, C.CL_DEVICE_MAX_WORK_ITEM_SIZES, C.size_t(dims)*C.size_t(unsafe.Sizeof(C.size_t(0))), unsafe.Pointer(&sizes[0]), nil)
			for _, s := range sizes {
				d.MaxWorkItemSizes = append(d.MaxWorkItemSizes, int(s))
			}
		}
		out[i] = d
	}
	return out, nil
}

// AllDevices lists the devices of every platform, platform by platform.
func AllDevices() ([]*Device, error) {
	ps, err := Platforms()
	if err != nil {
		return nil, err
	}
	var out []*Device
	for _, p := range ps {
		ds, err := p.Devices()
		if err != nil {
			return nil, err
		}
		out = append(out, ds...)
	}
	if len(out) == 0 {
		return nil, ErrNoPlatform
	}
	return out, nil
}

// Select chooses a device: "" the default (the first GPU, else the first
// CPU, else the first device), "GPU", "CPU" or "ACCELERATOR" the first of
// that type, "P:D" platform P's device D, and anything else the first device
// whose name or platform name contains it (case-insensitive). An unknown
// choice is an error that lists the devices found.
func Select(spec string) (*Device, error) {
	devs, err := AllDevices()
	if err != nil {
		return nil, err
	}
	return Choose(devs, spec)
}

// Choose applies Select's rules to a list of devices.
func Choose(devs []*Device, spec string) (*Device, error) {
	spec = strings.TrimSpace(spec)
	firstOf := func(t DeviceType) *Device {
		for _, d := range devs {
			if d.Type&t != 0 {
				return d
			}
		}
		return nil
	}
	switch strings.ToUpper(spec) {
	case "":
		for _, t := range []DeviceType{GPU, CPU} {
			if d := firstOf(t); d != nil {
				return d, nil
			}
		}
		if len(devs) > 0 {
			return devs[0], nil
		}
	case "GPU", "CPU", "ACCELERATOR":
		t := map[string]DeviceType{"GPU": GPU, "CPU": CPU, "ACCELERATOR": Accelerator}[strings.ToUpper(spec)]
		if d := firstOf(t); d != nil {
			return d, nil
		}
	default:
		var p, i int
		if n, _ := fmt.Sscanf(spec, "%d:%d", &p, &i); n == 2 && fmt.Sprintf("%d:%d", p, i) == spec {
			for _, d := range devs {
				if d.Spec() == spec {
					return d, nil
				}
			}
			break
		}
		low := strings.ToLower(spec)
		for _, d := range devs {
			if strings.Contains(strings.ToLower(d.Name), low) {
				return d, nil
			}
		}
		for _, d := range devs {
			if d.Platform != nil && strings.Contains(strings.ToLower(d.Platform.Name), low) {
				return d, nil
			}
		}
	}
	var lines []string
	for _, d := range devs {
		lines = append(lines, "  "+d.String())
	}
	return nil, fmt.Errorf("opencl: no device matches %q; the devices found are:\n%s\n(choose with GPU, CPU, ACCELERATOR, P:D or part of a name)", spec, strings.Join(lines, "\n"))
}

// Context is an OpenCL context on one device.
type Context struct {
	Device *Device
	ctx    C.cl_context
}

// NewContext creates a context for d.
func NewContext(d *Device) (*Context, error) {
	var st C.cl_int
	ctx := C.clCreateContext(nil, 1, &d.id, nil, nil, &st)
	if err := check("clCreateContext", st); err != nil {
		return nil, err
	}
	return &Context{Device: d, ctx: ctx}, nil
}

// Close releases the context.
func (c *Context) Close() error {
	if c == nil || c.ctx == nil {
		return nil
	}
	err := check("clReleaseContext", C.clReleaseContext(c.ctx))
	c.ctx = nil
	return err
}

// Buffer is a device buffer in global memory.
type Buffer struct {
	Size int
	mem  C.cl_mem
}

// NewBuffer allocates a read-write buffer of size bytes.
func (c *Context) NewBuffer(size int) (*Buffer, error) {
	if size <= 0 {
		size = 4
	}
	var st C.cl_int
	mem := C.clCreateBuffer(c.ctx, C.CL_MEM_READ_WRITE, C.size_t(size), nil, &st)
	if err := check("clCreateBuffer", st); err != nil {
		return nil, err
	}
	return &Buffer{Size: size, mem: mem}, nil
}

// Sub creates a buffer of size bytes inside b, from byte origin on
// (clCreateSubBuffer): a kernel given it sees those bytes alone. origin
// must be a multiple of the device's MemBaseAddrAlign. Close it before b.
func (b *Buffer) Sub(origin, size int) (*Buffer, error) {
	if origin < 0 || size <= 0 || origin+size > b.Size {
		return nil, fmt.Errorf("opencl: a sub-buffer of %d bytes at %d in a buffer of %d", size, origin, b.Size)
	}
	region := C.cl_buffer_region{origin: C.size_t(origin), size: C.size_t(size)}
	var st C.cl_int
	mem := C.clCreateSubBuffer(b.mem, C.CL_MEM_READ_WRITE, C.CL_BUFFER_CREATE_TYPE_REGION, unsafe.Pointer(&region), &st)
	if err := check("clCreateSubBuffer", st); err != nil {
		return nil, err
	}
	return &Buffer{Size: size, mem: mem}, nil
}

// Close releases the buffer.
func (b *Buffer) Close() error {
	if b == nil || b.mem == nil {
		return nil
	}
	err := check("clReleaseMemObject", C.clReleaseMemObject(b.mem))
	b.mem = nil
	return err
}

// BuildError is a program that failed to build, with the compiler's log.
type BuildError struct {
	Err Error
	Log string
}

func (e *BuildError) Error() string { return fmt.Sprintf("%v\n%s", e.Err, strings.TrimSpace(e.Log)) }

// Unwrap returns the OpenCL error.
func (e *BuildError) Unwrap() error { return e.Err }

// Program is a program built for its context's device.
type Program struct {
	prog C.cl_program
	ctx  *Context
}

// Build creates a program from OpenCL C source and builds it with options.
// A failed build returns a *BuildError holding the compiler's log.
func (c *Context) Build(src, options string) (*Program, error) {
	csrc := C.CString(src)
	defer C.free(unsafe.Pointer(csrc))
	var st C.cl_int
	prog := C.clCreateProgramWithSource(c.ctx, 1, &csrc, nil, &st)
	if err := check("clCreateProgramWithSource", st); err != nil {
		return nil, err
	}
	return c.build(prog, options)
}

// build builds prog, created in c, with options; a failed build releases
// it and returns a *BuildError with the compiler's log.
func (c *Context) build(prog C.cl_program, options string) (*Program, error) {
	copt := C.CString(options)
	defer C.free(unsafe.Pointer(copt))
	st := C.clBuildProgram(prog, 1, &c.Device.id, copt, nil, nil)
	if st != C.CL_SUCCESS {
		log := buildLog(prog, c.Device.id)
		C.clReleaseProgram(prog)
		return nil, &BuildError{Err: Error{Call: "clBuildProgram", Code: int32(st)}, Log: log}
	}
	return &Program{prog: prog, ctx: c}, nil
}

// BuildBinary creates a program from bin, a binary that Program.Binary
// returned for a device of the same kind and driver, and builds it with
// options (clCreateProgramWithBinary, clBuildProgram). A binary the device
// does not take is an Error of clCreateProgramWithBinary
// (CL_INVALID_BINARY); a failed build a *BuildError, as for Build.
func (c *Context) BuildBinary(bin []byte, options string) (*Program, error) {
	if len(bin) == 0 {
		return nil, errors.New("opencl: BuildBinary: an empty binary")
	}
	cbin := C.CBytes(bin)
	defer C.free(cbin)
	n := C.size_t(len(bin))
	ptr := (*C.uchar)(cbin)
	var st, binSt C.cl_int
	prog := C.clCreateProgramWithBinary(c.ctx, 1, &c.Device.id, &n, &ptr, &binSt, &st)
	if err := check("clCreateProgramWithBinary", st); err != nil {
		return nil, err
	}
	if err := check("clCreateProgramWithBinary", binSt); err != nil {
		C.clReleaseProgram(prog)
		return nil, err
	}
	return c.build(prog, options)
}

// Binary returns the program's binary for its device (CL_PROGRAM_BINARIES):
// what the implementation made of the source, which Context.BuildBinary
// turns back into a program without compiling the source again. Its form
// is the implementation's: PTX for NVIDIA; for PoCL, an archive of its
// kernel cache directory, with the machine code of the work-group sizes
// launched so far.
func (p *Program) Binary() ([]byte, error) {
	var n C.size_t
	if err := check("clGetProgramInfo", C.clGetProgramInfo(p.prog, C.CL_PROGRAM_BINARY_SIZES, C.size_t(unsafe.Sizeof(n)), unsafe.Pointer(&n), nil)); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("opencl: the program has no binary for its device")
	}
	buf := C.malloc(n)
	defer C.free(buf)
	ptr := (*C.uchar)(buf)
	if err := check("clGetProgramInfo", C.clGetProgramInfo(p.prog, C.CL_PROGRAM_BINARIES, C.size_t(unsafe.Sizeof(ptr)), unsafe.Pointer(&ptr), nil)); err != nil {
		return nil, err
	}
	return C.GoBytes(buf, C.int(n)), nil
}

// Log returns the compiler's log of the successful build: warnings, and
// with NVIDIA's -cl-nv-verbose option the registers each kernel uses.
func (p *Program) Log() string { return buildLog(p.prog, p.ctx.Device.id) }

func buildLog(prog C.cl_program, dev C.cl_device_id) string {
	var n C.size_t
	if C.clGetProgramBuildInfo(prog, dev, C.CL_PROGRAM_BUILD_LOG, 0, nil, &n) != C.CL_SUCCESS || n == 0 {
		return ""
	}
	buf := make([]byte, n)
	C.clGetProgramBuildInfo(prog, dev, C.CL_PROGRAM_BUILD_LOG, n, unsafe.Pointer(&buf[0]), nil)
	return strings.TrimRight(string(buf), "\x00")
}

// Close releases the program.
func (p *Program) Close() error {
	if p == nil || p.prog == nil {
		return nil
	}
	err := check("clReleaseProgram", C.clReleaseProgram(p.prog))
	p.prog = nil
	return err
}

// Kernel is one kernel of a program, with its arguments.
type Kernel struct {
	Name string
	k    C.cl_kernel
}

// Kernel creates the kernel called name.
func (p *Program) Kernel(name string) (*Kernel, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var st C.cl_int
	k := C.clCreateKernel(p.prog, cname, &st)
	if err := check("clCreateKernel", st); err != nil {
		return nil, fmt.Errorf("%w (kernel %q)", err, name)
	}
	return &Kernel{Name: name, k: k}, nil
}

// Close releases the kernel.
func (k *Kernel) Close() error {
	if k == nil || k.k == nil {
		return nil
	}
	err := check("clReleaseKernel", C.clReleaseKernel(k.k))
	k.k = nil
	return err
}

func (k *Kernel) setArg(i int, size uintptr, p unsafe.Pointer) error {
	if err := check("clSetKernelArg", C.clSetKernelArg(k.k, C.cl_uint(i), C.size_t(size), p)); err != nil {
		return fmt.Errorf("%w (kernel %s, argument %d)", err, k.Name, i)
	}
	return nil
}

// SetArgBuffer sets argument i to a buffer.
func (k *Kernel) SetArgBuffer(i int, b *Buffer) error {
	mem := b.mem
	return k.setArg(i, unsafe.Sizeof(mem), unsafe.Pointer(&mem))
}

// SetArgInt32 sets argument i to an int.
func (k *Kernel) SetArgInt32(i int, v int32) error {
	x := C.cl_int(v)
	return k.setArg(i, unsafe.Sizeof(x), unsafe.Pointer(&x))
}

// SetArgFloat32 sets argument i to a float.
func (k *Kernel) SetArgFloat32(i int, v float32) error {
	x := C.cl_float(v)
	return k.setArg(i, unsafe.Sizeof(x), unsafe.Pointer(&x))
}

// SetArgFloat64 sets argument i to a double.
func (k *Kernel) SetArgFloat64(i int, v float64) error {
	x := C.cl_double(v)
	return k.setArg(i, unsafe.Sizeof(x), unsafe.Pointer(&x))
}

// SetArgLocal sets argument i to a __local buffer of size bytes.
func (k *Kernel) SetArgLocal(i int, size int) error {
	return k.setArg(i, uintptr(size), nil)
}

// Queue is an in-order command queue with profiling enabled.
type Queue struct {
	ctx *Context
	q   C.cl_command_queue
}

// NewQueue creates a profiling queue on the context's device.
func (c *Context) NewQueue() (*Queue, error) {
	var st C.cl_int
	q := C.clCreateCommandQueue(c.ctx, c.Device.id, C.CL_QUEUE_PROFILING_ENABLE, &st)
	if err := check("clCreateCommandQueue", st); err != nil {
		return nil, err
	}
	return &Queue{ctx: c, q: q}, nil
}

// Close releases the queue after finishing its commands.
func (q *Queue) Close() error {
	if q == nil || q.q == nil {
		return nil
	}
	C.clFinish(q.q)
	err := check("clReleaseCommandQueue", C.clReleaseCommandQueue(q.q))
	q.q = nil
	return err
}

// Finish waits for every command of the queue.
func (q *Queue) Finish() error { return check("clFinish", C.clFinish(q.q)) }

// Write copies data (len bytes) from host memory to b, blocking.
func (q *Queue) Write(b *Buffer, data unsafe.Pointer, n int) error { return q.WriteAt(b, 0, data, n) }

// WriteAt copies data (n bytes) from host memory to b at byte offset off,
// blocking.
func (q *Queue) WriteAt(b *Buffer, off int, data unsafe.Pointer, n int) error {
	if n == 0 {
		return nil
	}
	if off < 0 || off+n > b.Size {
		return fmt.Errorf("opencl: write of %d bytes at %d into a buffer of %d", n, off, b.Size)
	}
	return check("clEnqueueWriteBuffer", C.clEnqueueWriteBuffer(q.q, b.mem, C.CL_TRUE, C.size_t(off), C.size_t(n), data, 0, nil, nil))
}

// Zero sets the first n bytes of b to zero on the device. It does not
// wait; the queue runs it before the commands enqueued after it.
func (q *Queue) Zero(b *Buffer, n int) error {
	if n == 0 {
		return nil
	}
	if n > b.Size {
		return fmt.Errorf("opencl: zeroing %d bytes of a buffer of %d", n, b.Size)
	}
	var zero C.cl_uchar
	return check("clEnqueueFillBuffer", C.clEnqueueFillBuffer(q.q, b.mem, unsafe.Pointer(&zero), 1, 0, C.size_t(n), 0, nil, nil))
}

// Copy copies the first n bytes of src to dst on the device. It does not
// wait; the queue runs it before the commands enqueued after it.
func (q *Queue) Copy(dst, src *Buffer, n int) error {
	if n == 0 {
		return nil
	}
	if n > src.Size || n > dst.Size {
		return fmt.Errorf("opencl: copy of %d bytes from a buffer of %d into one of %d", n, src.Size, dst.Size)
	}
	return check("clEnqueueCopyBuffer", C.clEnqueueCopyBuffer(q.q, src.mem, dst.mem, 0, 0, C.size_t(n), 0, nil, nil))
}

// Read copies n bytes of b to host memory, blocking.
func (q *Queue) Read(b *Buffer, data unsafe.Pointer, n int) error { return q.ReadAt(b, 0, data, n) }

// ReadAt copies n bytes of b from byte offset off to host memory, blocking.
func (q *Queue) ReadAt(b *Buffer, off int, data unsafe.Pointer, n int) error {
	if n == 0 {
		return nil
	}
	if off < 0 || off+n > b.Size {
		return fmt.Errorf("opencl: read of %d bytes at %d from a buffer of %d", n, off, b.Size)
	}
	return check("clEnqueueReadBuffer", C.clEnqueueReadBuffer(q.q, b.mem, C.CL_TRUE, C.size_t(off), C.size_t(n), data, 0, nil, nil))
}

// Scalar is an element type that buffers hold.
type Scalar interface{ ~float32 | ~float64 | ~int32 }

// WriteSlice copies data into b.
func WriteSlice[T Scalar](q *Queue, b *Buffer, data []T) error {
	if len(data) == 0 {
		return nil
	}
	return q.Write(b, unsafe.Pointer(&data[0]), len(data)*int(unsafe.Sizeof(data[0])))
}

// ReadSlice copies the start of b into data.
func ReadSlice[T Scalar](q *Queue, b *Buffer, data []T) error {
	if len(data) == 0 {
		return nil
	}
	return q.Read(b, unsafe.Pointer(&data[0]), len(data)*int(unsafe.Sizeof(data[0])))
}

// Run launches k over the global domain (x first) in work-groups of local
// (nil lets the implementation choose), waits for it and returns its time
// in nanoseconds from the profiling events.
func (q *Queue) Run(k *Kernel, global, local []int) (int64, error) {
	ev, err := q.Start(k, global, local)
	if err != nil {
		return 0, err
	}
	defer ev.Close()
	return ev.Wait()
}

// Event is a launch in flight (Start): its status can be watched while it
// runs. Close it when done.
type Event struct {
	ev C.cl_event
}

// Start launches k as Run does, without waiting: it enqueues the launch,
// flushes the queue and returns the launch's event.
func (q *Queue) Start(k *Kernel, global, local []int) (*Event, error) {
	dims := len(global)
	if dims < 1 || dims > 3 {
		return nil, fmt.Errorf("opencl: %d global dimensions", dims)
	}
	if local != nil && len(local) != dims {
		return nil, fmt.Errorf("opencl: %d local sizes for %d global dimensions", len(local), dims)
	}
	g := make([]C.size_t, dims)
	for i, v := range global {
		g[i] = C.size_t(v)
	}
	var lp *C.size_t
	if local != nil {
		l := make([]C.size_t, dims)
		for i, v := range local {
			l[i] = C.size_t(v)
		}
		lp = &l[0]
	}
	var ev C.cl_event
	if err := check("clEnqueueNDRangeKernel", C.clEnqueueNDRangeKernel(q.q, k.k, C.cl_uint(dims), nil, &g[0], lp, 0, nil, &ev)); err != nil {
		return nil, fmt.Errorf("%w (kernel %s, global %v, local %v)", err, k.Name, global, local)
	}
	C.clFlush(q.q)
	return &Event{ev: ev}, nil
}

// Event statuses (Status).
const (
	Queued    = C.CL_QUEUED
	Submitted = C.CL_SUBMITTED
	Running   = C.CL_RUNNING
	Complete  = C.CL_COMPLETE
)

// Status returns the launch's execution status: Queued, Submitted,
// Running, Complete, or an error of a launch that failed. An
// implementation that compiles the kernel's code for the launch (PoCL)
// does so before Running.
func (e *Event) Status() (int, error) {
	var status C.cl_int
	if err := check("clGetEventInfo", C.clGetEventInfo(e.ev, C.CL_EVENT_COMMAND_EXECUTION_STATUS, C.size_t(unsafe.Sizeof(status)), unsafe.Pointer(&status), nil)); err != nil {
		return 0, err
	}
	if status < 0 {
		return 0, Error{Call: "kernel execution", Code: int32(status)}
	}
	return int(status), nil
}

// Wait waits for the launch to end and returns its time in nanoseconds
// from the profiling events.
func (e *Event) Wait() (int64, error) {
	if err := check("clWaitForEvents", C.clWaitForEvents(1, &e.ev)); err != nil {
		return 0, err
	}
	var status C.cl_int
	C.clGetEventInfo(e.ev, C.CL_EVENT_COMMAND_EXECUTION_STATUS, C.size_t(unsafe.Sizeof(status)), unsafe.Pointer(&status), nil)
	if status < 0 {
		return 0, Error{Call: "kernel execution", Code: int32(status)}
	}
	var start, end C.cl_ulong
	if err := check("clGetEventProfilingInfo", C.clGetEventProfilingInfo(e.ev, C.CL_PROFILING_COMMAND_START, C.size_t(unsafe.Sizeof(start)), unsafe.Pointer(&start), nil)); err != nil {
		return 0, err
	}
	if err := check("clGetEventProfilingInfo", C.clGetEventProfilingInfo(e.ev, C.CL_PROFILING_COMMAND_END, C.size_t(unsafe.Sizeof(end)), unsafe.Pointer(&end), nil)); err != nil {
		return 0, err
	}
	return int64(end - start), nil
}

// Close releases the event.
func (e *Event) Close() {
	if e != nil && e.ev != nil {
		C.clReleaseEvent(e.ev)
		e.ev = nil
	}
}

// Session bundles a device with a context and a profiling queue: what a
// program needs to run kernels on one device.
type Session struct {
	Device  *Device
	Context *Context
	Queue   *Queue
}

// Open selects a device by spec (see Select) and opens a session on it.
func Open(spec string) (*Session, error) {
	d, err := Select(spec)
	if err != nil {
		return nil, err
	}
	return OpenDevice(d)
}

// OpenDevice opens a session on d.
func OpenDevice(d *Device) (*Session, error) {
	ctx, err := NewContext(d)
	if err != nil {
		return nil, err
	}
	q, err := ctx.NewQueue()
	if err != nil {
		ctx.Close()
		return nil, err
	}
	return &Session{Device: d, Context: ctx, Queue: q}, nil
}

// Close releases the queue and the context.
func (s *Session) Close() error {
	if s == nil {
		return nil
	}
	return errors.Join(s.Queue.Close(), s.Context.Close())
}
