package runner

import (
	"fmt"
	"io"
	"math"
	"os"
	"unsafe"

	"github.com/hplopt/hplopt/ast"
)

// How a problem's data travels to a worker and is held there. A problem's
// arrays can be large (two of 256 MiB, a 16384² matrix), so no step keeps
// a copy it does not need:
//
//   - the parent sends the setup without contents, then each array's
//     bytes straight from the Problem's slices, announced by a wireData
//     header on the same stream (no encoded copy, no buffer of the whole
//     message);
//   - the worker reads them in chunks into the device buffers (an
//     output's initial contents into the copy outputs are reset from, or
//     nothing when they are all zero: the output is zeroed on the device
//     instead), and keeps no host copy of the inputs: when a variant may
//     have overwritten them (it failed with Launch or Wrong), the parent
//     sends them again before the next variant;
//   - the expected outputs are the worker's only host copy of data: the
//     first worker writes them to a file in a directory the parent made,
//     from which a replacement worker reads them (the parent does not hold
//     them); a variant's outputs are read back and compared in chunks.

// wireData announces the contents of one array that follow it on the
// stream: Bytes bytes, little-endian.
type wireData struct {
	Arg   int  // index in the Problem's Args
	Want  bool // the expected contents of an output, not its initial ones
	Bytes int
}

// chunkBytes is the size of the chunks the worker reads, uploads, reads
// back and compares.
const chunkBytes = 4 << 20

// littleEndian is whether this machine stores numbers as the wire does,
// so that a slice's memory can be sent as it is.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// contents returns the memory of an array argument's slice, nil for a
// scalar or an array without contents.
func contents(a *Arg) []byte {
	switch {
	case len(a.F32) > 0:
		return unsafe.Slice((*byte)(unsafe.Pointer(&a.F32[0])), 4*len(a.F32))
	case len(a.F64) > 0:
		return unsafe.Slice((*byte)(unsafe.Pointer(&a.F64[0])), 8*len(a.F64))
	case len(a.I32) > 0:
		return unsafe.Slice((*byte)(unsafe.Pointer(&a.I32[0])), 4*len(a.I32))
	}
	return nil
}

// writeContents writes an array's contents to w in the wire's byte order:
// its memory as it is on a little-endian machine, converted chunk by chunk
// otherwise.
func writeContents(w io.Writer, a *Arg) error {
	b := contents(a)
	if littleEndian {
		_, err := w.Write(b)
		return err
	}
	size := a.Type.Size()
	buf := make([]byte, min(len(b), chunkBytes))
	for lo := 0; lo < len(b); lo += len(buf) {
		n := copy(buf, b[lo:])
		swap(buf[:n], size)
		if _, err := w.Write(buf[:n]); err != nil {
			return err
		}
	}
	return nil
}

// swap reverses the bytes of each element of size bytes in b.
func swap(b []byte, size int) {
	for i := 0; i+size <= len(b); i += size {
		for j := 0; j < size/2; j++ {
			b[i+j], b[i+size-1-j] = b[i+size-1-j], b[i+j]
		}
	}
}

// sendArrays writes, on the child's input, the contents of the arrays of
// args (only the inputs, with inputsOnly) each after its header, and then,
// if want is not nil, the expected contents of the outputs.
func (c *child) sendArrays(args []Arg, want []Arg, inputsOnly bool) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	send := func(i int, a *Arg, isWant bool) error {
		if err := c.enc.Encode(wireRequest{Op: opData, Data: &wireData{Arg: i, Want: isWant, Bytes: a.bytes()}}); err != nil {
			return err
		}
		return writeContents(c.stdin, a)
	}
	for i := range args {
		a := &args[i]
		if a.Scalar || inputsOnly && a.Output {
			continue
		}
		if send(i, a, false) != nil {
			return // the child is gone, which await reports
		}
	}
	for i := range want {
		if i < len(args) && args[i].Output && want[i].dataLen() > 0 {
			if send(i, &want[i], true) != nil {
				return
			}
		}
	}
}

// receiver reads the array contents a parent sends (sendArrays) into a
// worker's Measurer.
type receiver struct {
	r     io.Reader // the stream, after each header
	m     *Measurer
	chunk []byte
	want  *os.File // the expected outputs, as they arrive
}

// array reads the contents announced by d: an input into its device
// buffer, an output's initial contents into the copy it is reset from
// (zeroed on the device instead when they are all zero), an expected
// output into the file of the expected outputs (Measurer.wantPath).
func (rc *receiver) array(d *wireData) error {
	m := rc.m
	if d.Arg < 0 || d.Arg >= len(m.prob.Args) || m.prob.Args[d.Arg].Scalar {
		return fmt.Errorf("runner: worker: contents for argument %d, which is not an array", d.Arg)
	}
	a := &m.prob.Args[d.Arg]
	if d.Bytes != a.bytes() {
		return fmt.Errorf("runner: worker: %d bytes for %s, which takes %d", d.Bytes, a.Name, a.bytes())
	}
	if rc.chunk == nil {
		rc.chunk = make([]byte, chunkBytes)
	}
	if d.Want {
		// The expected outputs go to the file the checks read them from.
		if rc.want == nil {
			f, err := os.Create(m.wantPath)
			if err != nil {
				return fmt.Errorf("runner: worker: the expected outputs: %v", err)
			}
			rc.want = f
		}
		for off := 0; off < d.Bytes; off += chunkBytes {
			b := rc.chunk[:min(chunkBytes, d.Bytes-off)]
			if _, err := io.ReadFull(rc.r, b); err != nil {
				return err
			}
			if _, err := rc.want.Write(b); err != nil {
				return fmt.Errorf("runner: worker: writing the expected %s: %v", a.Name, err)
			}
		}
		return nil
	}
	dst := m.bufs[d.Arg]
	if m.init[d.Arg] != nil {
		dst = m.init[d.Arg]
	}
	zero := true
	for off := 0; off < d.Bytes; off += chunkBytes {
		b := rc.chunk[:min(chunkBytes, d.Bytes-off)]
		if _, err := io.ReadFull(rc.r, b); err != nil {
			return err
		}
		if !littleEndian {
			swap(b, a.Type.Size())
		}
		for _, x := range b {
			if x != 0 {
				zero = false
				break
			}
		}
		if err := dst.writeAt(off, b); err != nil {
			return fmt.Errorf("runner: worker: writing %s: %w", a.Name, err)
		}
	}
	if a.Output && zero && m.init[d.Arg] != nil {
		// Reset by zeroing on the device: no copy to hold.
		m.init[d.Arg].Close()
		m.init[d.Arg] = nil
		m.zero[d.Arg] = true
	}
	if a.Output {
		return m.resetOutput(d.Arg)
	}
	return nil
}

// The expected outputs of a worker's Measurer are not held in memory but
// in a file, the outputs' bytes one after the other in argument order,
// read back in chunks for every check. The first worker writes it from
// the reference's outputs or from those the parent sends; a worker that
// replaces it reads it.

// saveWant writes the outputs on the device, the reference's, to the file
// of the expected outputs in chunks, and makes it the expected outputs.
func (m *Measurer) saveWant() error {
	f, err := os.Create(m.wantPath)
	if err != nil {
		return err
	}
	for _, i := range m.outs {
		a := &m.prob.Args[i]
		n, per := a.Len(), chunkBytes/a.Type.Size()
		for lo := 0; lo < n; lo += per {
			hi := min(n, lo+per)
			if _, err := m.readChunk(i, lo, hi); err != nil {
				f.Close()
				return err
			}
			b := m.chunk[:(hi-lo)*a.Type.Size()]
			if !littleEndian {
				swap(b, a.Type.Size())
			}
			if _, err := f.Write(b); err != nil {
				f.Close()
				return err
			}
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	return m.useWantFile()
}

// useWantFile makes the file of the expected outputs the outputs to check
// against, with each output's tolerance scaled to its root mean square.
func (m *Measurer) useWantFile() error {
	f, err := os.Open(m.wantPath)
	if err != nil {
		return err
	}
	m.wantFile, m.wantOff = f, make([]int64, len(m.prob.Args))
	m.tols = map[int]Tolerance{}
	var off int64
	for _, i := range m.outs {
		a := &m.prob.Args[i]
		m.wantOff[i] = off
		n, per := a.Len(), chunkBytes/a.Type.Size()
		var sum float64
		count := 0
		for lo := 0; lo < n; lo += per {
			w, err := m.wantChunk(i, lo, min(n, lo+per))
			if err != nil {
				f.Close()
				m.wantFile = nil
				return fmt.Errorf("runner: the expected %s in %s: %v", a.Name, m.wantPath, err)
			}
			s, c := w.sumSquares()
			sum, count = sum+s, count+c
		}
		rms := 0.0
		if count > 0 {
			rms = math.Sqrt(sum / float64(count))
		}
		m.tols[i] = m.prob.Tolerance.scaled(rms)
		off += int64(a.bytes())
	}
	m.wantToDevice()
	return nil
}

// wantChunk returns the expected elements lo to hi of output i: a part of
// the expected Arg in memory, or read from the file into the measurer's
// second chunk.
func (m *Measurer) wantChunk(i, lo, hi int) (Arg, error) {
	if m.wantFile == nil {
		return m.want[i].sub(lo, hi), nil
	}
	a := &m.prob.Args[i]
	size := a.Type.Size()
	if m.chunk2 == nil {
		m.chunk2 = make([]byte, chunkBytes)
	}
	b := m.chunk2[:(hi-lo)*size]
	if _, err := m.wantFile.ReadAt(b, m.wantOff[i]+int64(lo*size)); err != nil {
		return Arg{}, err
	}
	if !littleEndian {
		swap(b, size)
	}
	return view(a, b, hi-lo), nil
}

// view is n elements of an argument's type in b, as an Arg.
func view(a *Arg, b []byte, n int) Arg {
	g := Arg{Name: a.Name, Type: a.Type, Output: true, Dims: []int{n}}
	p := unsafe.Pointer(&b[0])
	switch a.Type {
	case ast.Float:
		g.F32 = unsafe.Slice((*float32)(p), n)
	case ast.Double:
		g.F64 = unsafe.Slice((*float64)(p), n)
	case ast.Int:
		g.I32 = unsafe.Slice((*int32)(p), n)
	}
	return g
}

// readChunk reads the elements lo to hi of an output's device buffer into
// the measurer's chunk, viewed as an Arg of the output's type.
func (m *Measurer) readChunk(i, lo, hi int) (Arg, error) {
	a := &m.prob.Args[i]
	size := a.Type.Size()
	if m.chunk == nil {
		m.chunk = make([]byte, chunkBytes)
	}
	b := m.chunk[:(hi-lo)*size]
	if err := m.bufs[i].readAt(lo*size, b); err != nil {
		return Arg{}, err
	}
	if !littleEndian {
		swap(b, size)
	}
	return view(a, b, hi-lo), nil
}

// sub is the elements lo to hi of an array argument.
func (a *Arg) sub(lo, hi int) Arg {
	s := Arg{Name: a.Name, Type: a.Type, Output: a.Output, Dims: []int{hi - lo}}
	switch {
	case a.F32 != nil:
		s.F32 = a.F32[lo:hi]
	case a.F64 != nil:
		s.F64 = a.F64[lo:hi]
	case a.I32 != nil:
		s.I32 = a.I32[lo:hi]
	}
	return s
}

// writeAt writes b into the buffer at byte offset off and waits.
func (b *Buffer) writeAt(off int, src []byte) error {
	return b.s.cl.Queue.WriteAt(b.b, off, unsafe.Pointer(unsafe.SliceData(src)), len(src))
}

// readAt reads len(dst) bytes of the buffer from byte offset off and waits.
func (b *Buffer) readAt(off int, dst []byte) error {
	return b.s.cl.Queue.ReadAt(b.b, off, unsafe.Pointer(unsafe.SliceData(dst)), len(dst))
}

// zero sets the buffer's bytes to zero on the device.
func (b *Buffer) zero() error { return b.s.cl.Queue.Zero(b.b, b.size) }
