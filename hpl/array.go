package hpl

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/hplopt/hplopt/ast"
)

// Array is a host array that kernels run on: its data, its element type and
// its shape, and the paper's coherence bookkeeping. An Array keeps a copy
// in host memory and at most one buffer per device, and knows which of them
// hold the current data:
//
//   - running a kernel uploads an argument only to a device whose copy is
//     stale, and afterwards marks the arrays the kernel writes as newer on
//     that device than anywhere else (nothing is read back yet);
//   - the read-write accessors (Float32s, Float64s, Int32s) first bring the
//     host copy up to date, reading back from the device if need be, then
//     treat the host copy as modified, so the next run uploads it again;
//   - the Read accessors (ReadFloat32s, ...) bring the host copy up to date
//     without marking it modified: use them to look at results.
//
// An Array is safe for use by one goroutine at a time.
type Array struct {
	t    ast.Type
	dims []int
	f32  []float32
	f64  []float64
	i32  []int32

	mu        sync.Mutex
	hostValid bool    // the host copy holds the current data
	dev       *copies // the device copies, shared with the cleanup
	uploads   int
	readbacks int
}

// copies are an array's device buffers. They are released with the array
// (by Release, or by a cleanup when the Array is garbage collected).
type copies struct {
	mu   sync.Mutex
	list []*devCopy
}

type devCopy struct {
	dev   device
	buf   buffer
	valid bool // holds the current data
}

// device is where arrays get buffers: one OpenCL device's session.
type device interface {
	alloc(bytes int) (buffer, error)
	String() string
}

// buffer is a device copy of an array's data.
type buffer interface {
	write(src []byte) error
	read(dst []byte) error
	release()
}

func (c *copies) releaseAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.list {
		d.buf.release()
	}
	c.list = nil
}

// NewArray returns a zeroed array of element type t (Int32, Float32 or
// Float64) and the given extents, slowest first, the order a kernel indexes
// it in: a matrix of NY rows and NX columns is NewArray(Float32, NY, NX) and
// its element [y][x] is at y*NX+x. Like make, it panics on a bad type, a
// non-positive extent or more than 3 extents.
func NewArray(t ast.Type, dims ...int) *Array {
	n := checkShape("NewArray", t, dims)
	a := newArray(t, dims)
	switch t {
	case ast.Float:
		a.f32 = make([]float32, n)
	case ast.Double:
		a.f64 = make([]float64, n)
	case ast.Int:
		a.i32 = make([]int32, n)
	}
	return a
}

// FromFloat32s returns a float32 array that holds data (not a copy) with
// the given extents, slowest first; with no extents it is one-dimensional.
// It panics if the extents do not multiply to len(data).
func FromFloat32s(data []float32, dims ...int) *Array {
	dims = defaultDims(dims, len(data))
	checkLen("FromFloat32s", checkShape("FromFloat32s", ast.Float, dims), len(data))
	a := newArray(ast.Float, dims)
	a.f32 = data
	return a
}

// FromFloat64s is FromFloat32s for float64 data.
func FromFloat64s(data []float64, dims ...int) *Array {
	dims = defaultDims(dims, len(data))
	checkLen("FromFloat64s", checkShape("FromFloat64s", ast.Double, dims), len(data))
	a := newArray(ast.Double, dims)
	a.f64 = data
	return a
}

// FromInt32s is FromFloat32s for int32 data.
func FromInt32s(data []int32, dims ...int) *Array {
	dims = defaultDims(dims, len(data))
	checkLen("FromInt32s", checkShape("FromInt32s", ast.Int, dims), len(data))
	a := newArray(ast.Int, dims)
	a.i32 = data
	return a
}

func defaultDims(dims []int, n int) []int {
	if len(dims) == 0 {
		return []int{n}
	}
	return dims
}

func newArray(t ast.Type, dims []int) *Array {
	a := &Array{t: t, dims: append([]int(nil), dims...), hostValid: true, dev: &copies{}}
	runtime.AddCleanup(a, (*copies).releaseAll, a.dev)
	return a
}

func checkShape(fn string, t ast.Type, dims []int) int {
	if t != ast.Int && t != ast.Float && t != ast.Double {
		panic(fmt.Sprintf("hpl: %s: element type %v; use Int32, Float32 or Float64", fn, t))
	}
	if len(dims) < 1 || len(dims) > 3 {
		panic(fmt.Sprintf("hpl: %s: %d extents; arrays have 1 to 3 dimensions", fn, len(dims)))
	}
	n := 1
	for _, d := range dims {
		if d <= 0 {
			panic(fmt.Sprintf("hpl: %s: extent %d; extents must be positive", fn, d))
		}
		n *= d
		if n > math.MaxInt32 {
			panic(fmt.Sprintf("hpl: %s: %v has more than 2^31-1 elements (kernels index with int)", fn, dims))
		}
	}
	return n
}

func checkLen(fn string, n, have int) {
	if n != have {
		panic(fmt.Sprintf("hpl: %s: the extents make %d elements, the data has %d", fn, n, have))
	}
}

// Type returns the element type.
func (a *Array) Type() ast.Type { return a.t }

// Dims returns the extents, slowest first.
func (a *Array) Dims() []int { return append([]int(nil), a.dims...) }

// Rank returns the number of dimensions.
func (a *Array) Rank() int { return len(a.dims) }

// Len returns the number of elements.
func (a *Array) Len() int {
	n := 1
	for _, d := range a.dims {
		n *= d
	}
	return n
}

// String describes the array, as in "float32[32][16]".
func (a *Array) String() string {
	var b strings.Builder
	b.WriteString(a.t.String())
	for _, d := range a.dims {
		fmt.Fprintf(&b, "[%d]", d)
	}
	return b.String()
}

// bytes views the host data as bytes.
func (a *Array) bytes() []byte {
	switch a.t {
	case ast.Float:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a.f32))), 4*len(a.f32))
	case ast.Double:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a.f64))), 8*len(a.f64))
	default:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a.i32))), 4*len(a.i32))
	}
}

// Sync brings the host copy up to date, reading the data back from the
// device that holds the newest copy, and returns the device's error if that
// fails. The accessors call it (and panic if it fails); call it first to get
// the error instead.
func (a *Array) Sync() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.syncLocked()
}

func (a *Array) syncLocked() error {
	if a.hostValid {
		return nil
	}
	a.dev.mu.Lock()
	defer a.dev.mu.Unlock()
	for _, d := range a.dev.list {
		if d.valid {
			if err := d.buf.read(a.bytes()); err != nil {
				return fmt.Errorf("hpl: reading %s back from %s: %w", a, d.dev, err)
			}
			a.readbacks++
			a.hostValid = true
			return nil
		}
	}
	return fmt.Errorf("hpl: internal error: %s has no valid copy", a)
}

// access syncs the host copy; a write access invalidates the device copies.
func (a *Array) access(fn string, t ast.Type, write bool) {
	if a.t != t {
		panic(fmt.Sprintf("hpl: %s of a %s array", fn, a.t))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.syncLocked(); err != nil {
		panic(err)
	}
	if write {
		a.dev.mu.Lock()
		for _, d := range a.dev.list {
			d.valid = false
		}
		a.dev.mu.Unlock()
	}
}

// Float32s returns the data of a float32 array for reading and writing,
// read back from the device first if a kernel changed it there. The next
// kernel run uploads it again. It panics on an array of another type, or if
// the read-back fails (see Sync).
func (a *Array) Float32s() []float32 { a.access("Float32s", ast.Float, true); return a.f32 }

// Float64s is Float32s for a float64 array.
func (a *Array) Float64s() []float64 { a.access("Float64s", ast.Double, true); return a.f64 }

// Int32s is Float32s for an int32 array.
func (a *Array) Int32s() []int32 { a.access("Int32s", ast.Int, true); return a.i32 }

// ReadFloat32s returns the data of a float32 array for reading only, read
// back from the device first if need be. The device copies stay valid, so
// the caller must not modify the slice; use Float32s to write.
func (a *Array) ReadFloat32s() []float32 { a.access("ReadFloat32s", ast.Float, false); return a.f32 }

// ReadFloat64s is ReadFloat32s for a float64 array.
func (a *Array) ReadFloat64s() []float64 { a.access("ReadFloat64s", ast.Double, false); return a.f64 }

// ReadInt32s is ReadFloat32s for an int32 array.
func (a *Array) ReadInt32s() []int32 { a.access("ReadInt32s", ast.Int, false); return a.i32 }

// Transfers returns how many times the data went to a device (uploads) and
// came back (readbacks) since the array was made.
func (a *Array) Transfers() (uploads, readbacks int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.uploads, a.readbacks
}

// Release brings the host copy up to date and frees the array's device
// buffers; a later run allocates and uploads again. The error is the
// read-back's, in which case the buffers are kept.
func (a *Array) Release() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.syncLocked(); err != nil {
		return err
	}
	a.dev.releaseAll()
	return nil
}

// onDevice returns the array's buffer on d holding the current data,
// allocating and uploading as needed.
func (a *Array) onDevice(d device) (buffer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.dev.mu.Lock()
	var c *devCopy
	for _, x := range a.dev.list {
		if x.dev == d {
			c = x
		}
	}
	if c != nil && c.valid {
		a.dev.mu.Unlock()
		return c.buf, nil
	}
	a.dev.mu.Unlock()
	// The data must come from the host: read it back from wherever it is.
	if err := a.syncLocked(); err != nil {
		return nil, err
	}
	a.dev.mu.Lock()
	defer a.dev.mu.Unlock()
	if c == nil {
		buf, err := d.alloc(len(a.bytes()))
		if err != nil {
			return nil, fmt.Errorf("hpl: allocating %s on %s: %w", a, d, err)
		}
		c = &devCopy{dev: d, buf: buf}
		a.dev.list = append(a.dev.list, c)
	}
	if err := c.buf.write(a.bytes()); err != nil {
		return nil, fmt.Errorf("hpl: uploading %s to %s: %w", a, d, err)
	}
	a.uploads++
	c.valid = true
	return c.buf, nil
}

// wroteOn records that a kernel on d wrote the array: d's copy is the only
// current one.
func (a *Array) wroteOn(d device) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.dev.mu.Lock()
	defer a.dev.mu.Unlock()
	for _, x := range a.dev.list {
		x.valid = x.dev == d
	}
	a.hostValid = false
}
