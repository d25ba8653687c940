package hpl

import (
	"errors"
	"testing"
)

// fakeDevice is memory standing in for a device, to test the coherence
// bookkeeping alone; the real runs are in eval_test.go.
type fakeDevice struct {
	name string
	fail bool
}

type fakeBuffer struct {
	dev   *fakeDevice
	data  []byte
	freed bool
}

func (d *fakeDevice) alloc(n int) (buffer, error) {
	return &fakeBuffer{dev: d, data: make([]byte, n)}, nil
}
func (d *fakeDevice) String() string         { return d.name }
func (b *fakeBuffer) write(src []byte) error { copy(b.data, src); return nil }
func (b *fakeBuffer) release()               { b.freed = true }
func (b *fakeBuffer) read(dst []byte) error {
	if b.dev.fail {
		return errors.New("device lost")
	}
	copy(dst, b.data)
	return nil
}

func transfers(t *testing.T, a *Array, up, back int) {
	t.Helper()
	if u, r := a.Transfers(); u != up || r != back {
		t.Errorf("transfers: %d uploads, %d readbacks; want %d, %d", u, r, up, back)
	}
}

func TestCoherenceBookkeeping(t *testing.T) {
	d1, d2 := &fakeDevice{name: "d1"}, &fakeDevice{name: "d2"}
	a := FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	if a.Len() != 6 || a.Rank() != 2 || a.String() != "float32[2][3]" {
		t.Fatalf("array %s, len %d", a, a.Len())
	}

	// First use on a device uploads; a second use with no host access does not.
	buf, err := a.onDevice(d1)
	if err != nil {
		t.Fatal(err)
	}
	transfers(t, a, 1, 0)
	if _, err := a.onDevice(d1); err != nil {
		t.Fatal(err)
	}
	transfers(t, a, 1, 0)

	// Reading on the host does not invalidate the device copy.
	if a.ReadFloat32s()[5] != 6 {
		t.Fatal("wrong data")
	}
	a.onDevice(d1)
	transfers(t, a, 1, 0)

	// A kernel writes it on d1: the host reads it back once, lazily.
	buf.(*fakeBuffer).data[0] = 0
	buf.(*fakeBuffer).data[1] = 0
	buf.(*fakeBuffer).data[2] = 0x20
	buf.(*fakeBuffer).data[3] = 0x41 // 10.0
	a.wroteOn(d1)
	transfers(t, a, 1, 0)
	if got := a.ReadFloat32s()[0]; got != 10 {
		t.Fatalf("host sees %g after the device wrote 10", got)
	}
	a.ReadFloat32s()
	transfers(t, a, 1, 1)

	// Another device gets the newest data, through the host.
	a.wroteOn(d1)
	b2, _ := a.onDevice(d2)
	transfers(t, a, 2, 2)
	if b2.(*fakeBuffer).data[3] != 0x41 {
		t.Error("d2 did not get d1's data")
	}

	// A read-write access makes the next run upload again.
	a.Float32s()[1] = 7
	a.onDevice(d1)
	transfers(t, a, 3, 2)

	// Release keeps the data on the host and frees the buffers.
	a.wroteOn(d1)
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	transfers(t, a, 3, 3)
	if !buf.(*fakeBuffer).freed || !b2.(*fakeBuffer).freed {
		t.Error("Release did not free the buffers")
	}
	if a.ReadFloat32s()[1] != 7 {
		t.Error("Release lost the data")
	}
	a.onDevice(d1)
	transfers(t, a, 4, 3)

	// A failed read-back is an error from Sync and a panic from accessors.
	a.wroteOn(d1)
	d1.fail = true
	if err := a.Sync(); err == nil {
		t.Error("Sync hid the device error")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Float32s did not panic on a failed read-back")
			}
		}()
		a.Float32s()
	}()
}

func TestArrayConstructors(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"zero extent", func() { NewArray(Float32, 4, 0) }},
		{"four extents", func() { NewArray(Float32, 1, 2, 3, 4) }},
		{"no extents", func() { NewArray(Float32) }},
		{"bad type", func() { NewArray(0, 4) }},
		{"too big", func() { NewArray(Float32, 1<<16, 1<<16) }},
		{"length", func() { FromFloat32s(make([]float32, 5), 2, 3) }},
		{"accessor type", func() { NewArray(Int32, 4).Float32s() }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			tc.f()
		}()
	}
	if a := NewArray(Float64, 3, 2, 1); len(a.Float64s()) != 6 || a.Dims()[0] != 3 || a.Type() != Float64 {
		t.Errorf("NewArray(Float64, 3, 2, 1) = %s", a)
	}
	if a := FromInt32s([]int32{1, 2, 3}); a.Dims()[0] != 3 || a.Int32s()[2] != 3 {
		t.Errorf("FromInt32s = %s", a)
	}
}
