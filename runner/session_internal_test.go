package runner

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
)

// session opens the default device, skipping the test when there is none.
func session(t *testing.T) *Session {
	t.Helper()
	s, err := Open("")
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	return s
}

const scaleSrc = `__kernel void scale(__global float *y, float a) {
	y[get_global_id(0)] *= a;
}
`

func TestSessionLaunch(t *testing.T) {
	s := session(t)
	if s2, err := OpenDevice(s.Device()); err != nil || s2 != s {
		t.Fatalf("OpenDevice of the open device: %p, %v; want the session %p", s2, err, s)
	}
	if s2, _ := Open(""); s2 != s {
		t.Fatal("a second Open of the same spec opened another session")
	}
	b, err := s.NewBuffer(4 * 64)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	data := make([]byte, 4*64)
	for i := range 64 {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(i)))
	}
	if err := b.Write(data); err != nil {
		t.Fatal(err)
	}
	args := []KernelArg{{Buffer: b}, {Type: ast.Float, Value: 2}}
	for range 2 { // the second launch finds the program in the cache
		if _, err := s.Launch(scaleSrc, "", "scale", args, []int{64}, []int{16}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Read(data); err != nil {
		t.Fatal(err)
	}
	for i := range 64 {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])); got != float32(4*i) {
			t.Fatalf("y[%d] = %v after scaling twice by 2, want %v", i, got, 4*i)
		}
	}
	s.mu.Lock()
	cached := s.progs["\x00"+scaleSrc] != nil
	s.mu.Unlock()
	if !cached {
		t.Error("a launched program is not kept in the cache")
	}
	if _, err := s.Launch(scaleSrc, "", "nope", args, []int{64}, nil); err == nil {
		t.Error("launching a kernel the program does not have: no error")
	}
}

func TestSessionBuild(t *testing.T) {
	s := session(t)
	src := "/* dropped */\n" + scaleSrc
	p := s.Prepare(src, "", nil)
	if err := p.Wait(); err != nil || !p.Ready() {
		t.Fatalf("Wait() = %v, Ready() = %v", err, p.Ready())
	}
	q, err := s.Build(src, "")
	if err != nil || q.e != p.e {
		t.Fatalf("Build of a prepared source: %v, same entry %v", err, q.e == p.e)
	}
	p.Close() // q still uses it
	q.Release()
	s.mu.Lock()
	_, kept := s.progs["\x00"+src]
	s.mu.Unlock()
	if kept {
		t.Error("a program closed by one user and released by the other is still cached")
	}

	_, err = s.Build("__kernel void bad(__global float *y) { y[0] = undeclared_variable; }", "")
	if err == nil || !strings.Contains(err.Error(), "rejected the source") || !strings.Contains(err.Error(), "undeclared_variable") {
		t.Errorf("Build of a broken source: %v, want the compiler's log", err)
	}
}

func TestCheckLaunch(t *testing.T) {
	s := session(t)
	d := s.Device()
	for _, c := range []struct {
		global, local []int
		bytes         int64
		msg           string
	}{
		{[]int{64}, []int{16}, 0, ""},
		{[]int{64}, nil, 0, ""},
		{nil, nil, 0, "1 to 3 dimensions"},
		{[]int{64}, []int{16, 1}, 0, "has 2 dimension(s)"},
		{[]int{64}, []int{24}, 0, "does not divide"},
		{[]int{64}, []int{0}, 0, "not positive"},
		{[]int{1 << 20}, []int{1 << 20}, 0, "allows"},
		{[]int{64}, nil, d.LocalMemSize + 1, "bytes of local memory"},
	} {
		err := s.CheckLaunch(c.global, c.local, c.bytes)
		if (err == nil) != (c.msg == "") || err != nil && !strings.Contains(err.Error(), c.msg) {
			t.Errorf("CheckLaunch(%v, %v, %d) = %v, want an error mentioning %q", c.global, c.local, c.bytes, err, c.msg)
		}
	}
}

func TestMemo(t *testing.T) {
	s := session(t)
	// Keys of their own: the session, and its memo, outlive the test
	// (go test -count=2 runs it again on the same session).
	var key, other [32]byte
	rand.Read(key[:])
	rand.Read(other[:])
	calls := 0
	f := func() (int, error) { calls++; return 7, nil }
	for range 2 {
		if v, err := Memo(s, key, f); v != 7 || err != nil {
			t.Fatalf("Memo = %v, %v", v, err)
		}
	}
	if calls != 1 {
		t.Errorf("%d computations of one key, want 1", calls)
	}
	fail := func() (int, error) { calls++; return 0, errors.New("no") }
	Memo(s, other, fail)
	Memo(s, other, fail)
	if calls != 3 {
		t.Errorf("a failed computation was remembered (%d calls, want 3)", calls)
	}
}

// TestSessionLoads: programs made from binaries wait their turn, one at a
// time; Urgent puts one first; one dropped before its turn is not made, and
// a Prepare of its source afterwards makes it anew.
func TestSessionLoads(t *testing.T) {
	s := session(t)
	srcs := make([]string, 3)
	bins := make([][]byte, 3)
	for i := range srcs {
		srcs[i] = fmt.Sprintf("/* load %d */\n%s", i, scaleSrc)
		p := s.Prepare(srcs[i], "", nil)
		bin, err := p.Binary()
		p.Close()
		if err != nil {
			t.Fatal(err)
		}
		bins[i] = bin
		// Made again below from the binary, not found in the cache.
		s.mu.Lock()
		if e := s.progs["\x00"+srcs[i]]; e != nil && e.users == 0 {
			s.removeLocked(e)
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	if s.loading {
		s.mu.Unlock()
		t.Skip("the session is loading programs for another test")
	}
	s.loading = true // no goroutine: the test runs the queue below
	s.mu.Unlock()
	ps := make([]*Program, 3)
	for i := range ps {
		ps[i] = s.PrepareBinary(srcs[i], bins[i], "", nil)
	}
	ps[2].Urgent()
	s.mu.Lock()
	first := s.loads[0].e
	s.mu.Unlock()
	if first != ps[2].e {
		t.Fatal("Urgent did not put the program first")
	}
	ps[1].Close() // dropped before its turn
	s.load()
	for _, i := range []int{0, 2} {
		if err := ps[i].Wait(); err != nil || !ps[i].FromBinary() {
			t.Fatalf("program %d: %v, from its binary %v", i, err, ps[i].FromBinary())
		}
		ps[i].Close()
	}
	if err := ps[1].e.err; err == nil || !strings.Contains(err.Error(), "dropped") {
		t.Fatalf("the dropped program: %v, want it not made", err)
	}
	again := s.PrepareBinary(srcs[1], bins[1], "", nil)
	defer again.Close()
	if err := again.Wait(); err != nil || !again.FromBinary() {
		t.Fatalf("the dropped program prepared again: %v, from its binary %v", err, again.FromBinary())
	}
}
