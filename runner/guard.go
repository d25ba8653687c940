package runner

import (
	"bytes"
	"fmt"
)

// Guard zones. A Measurer keeps every output between two zones of device
// memory filled with a known pattern, as CLBlast's tuner guards its
// buffers: one allocation holds the zone before, the output and the zone
// after, and the kernel gets the output alone, a sub-buffer (whose origin
// the zone before aligns to the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN).
// After a variant's runs the zones are read back: a variant that wrote
// outside its output (an index one past the end, or before the start)
// fails Wrong, saying how many elements it wrote there, even when the
// elements of the output itself are right. Writes beyond the zones are not
// seen here; package patterns' CheckBounds rejects the provable ones
// before a launch.

// guardBytes is the size of each zone.
const guardBytes = 16 << 10

// guardWord is the pattern of the zones, repeated: 0xdeadbeef, a float
// (-6.3e18) and an int no kernel computes by chance.
var guardWord = [4]byte{0xef, 0xbe, 0xad, 0xde}

// guarded is an output's allocation: inner, the output the kernel gets,
// between the zones of front and back bytes in whole. An output too large
// for its zones within the device's largest allocation, or on a device
// that cannot make sub-buffers, has none: whole is inner, front and back
// are 0.
type guarded struct {
	whole, inner *Buffer
	front, back  int
	size         int // inner's bytes
	// zones holds the zones read back by check, made at the first: a
	// check follows every variant's runs.
	zones []byte
}

// newGuarded allocates an output of size bytes with its zones on s.
func newGuarded(s *Session, size int) (*guarded, error) {
	align := max(s.Device().MemBaseAddrAlign, 1)
	front := (guardBytes + align - 1) / align * align
	back := guardBytes
	if lim := s.Device().MaxAllocSize; lim <= 0 || int64(front+size+back) <= lim {
		if whole, err := s.NewBuffer(front + size + back); err == nil {
			inner, err := whole.sub(front, size)
			if err == nil {
				g := &guarded{whole: whole, inner: inner, front: front, back: back, size: size}
				if err := g.fill(); err != nil {
					g.Close()
					return nil, err
				}
				return g, nil
			}
			whole.Close()
		}
	}
	b, err := s.NewBuffer(size)
	if err != nil {
		return nil, err
	}
	return &guarded{whole: b, inner: b, size: size}, nil
}

// fill writes the pattern into both zones.
func (g *guarded) fill() error {
	if g.front+g.back == 0 {
		return nil
	}
	zone := bytes.Repeat(guardWord[:], max(g.front, g.back)/len(guardWord))
	if err := g.whole.writeAt(0, zone[:g.front]); err != nil {
		return fmt.Errorf("filling a guard zone: %w", err)
	}
	if err := g.whole.writeAt(g.front+g.size, zone[:g.back]); err != nil {
		return fmt.Errorf("filling a guard zone: %w", err)
	}
	return nil
}

// check reads both zones back and returns how many elements of elem bytes
// differ from the pattern before the output's start and after its end;
// when any does, it fills the zones again.
func (g *guarded) check(elem int) (before, after int, err error) {
	if g.front+g.back == 0 {
		return 0, 0, nil
	}
	if g.zones == nil {
		g.zones = make([]byte, g.front+g.back)
	}
	front, back := g.zones[:g.front], g.zones[g.front:]
	if err := g.whole.readAt(0, front); err != nil {
		return 0, 0, fmt.Errorf("reading a guard zone: %w", err)
	}
	if err := g.whole.readAt(g.front+g.size, back); err != nil {
		return 0, 0, fmt.Errorf("reading a guard zone: %w", err)
	}
	// Byte j of a zone holds guardWord[j%4]. Elements are counted from
	// the output's ends: the zone after holds elements 0, 1, ... past the
	// end, the zone before elements 0, 1, ... before the start.
	count := func(zone []byte, elemOf func(j int) int) int {
		seen := map[int]bool{}
		for j, c := range zone {
			if c != guardWord[j%len(guardWord)] {
				seen[elemOf(j)] = true
			}
		}
		return len(seen)
	}
	before = count(front, func(j int) int { return (g.front - 1 - j) / elem })
	after = count(back, func(j int) int { return j / elem })
	if before+after > 0 {
		if err := g.fill(); err != nil {
			return before, after, err
		}
	}
	return before, after, nil
}

// Close frees the allocation.
func (g *guarded) Close() {
	if g.inner != g.whole {
		g.inner.Close()
	}
	g.whole.Close()
}

// checkGuards checks the zones of every output after a variant's runs: an
// error saying which output it wrote outside of, and how far.
func (m *Measurer) checkGuards() error {
	for _, i := range m.outs {
		g := m.guards[i]
		if g == nil {
			continue
		}
		a := &m.prob.Args[i]
		before, after, err := g.check(a.Type.Size())
		if err != nil {
			return err
		}
		switch {
		case before > 0 && after > 0:
			return fmt.Errorf("wrote %s past the end of %s and %s before its start", elements(after), a.Name, elements(before))
		case after > 0:
			return fmt.Errorf("wrote %s past the end of %s", elements(after), a.Name)
		case before > 0:
			return fmt.Errorf("wrote %s before the start of %s", elements(before), a.Name)
		}
	}
	return nil
}

func elements(n int) string {
	if n == 1 {
		return "1 element"
	}
	return fmt.Sprintf("%d elements", n)
}

// fillGuards fills every output's zones again, after a variant that may
// have written anywhere (one that failed before its zones were checked).
func (m *Measurer) fillGuards() error {
	for _, g := range m.guards {
		if g != nil {
			if err := g.fill(); err != nil {
				return err
			}
		}
	}
	return nil
}

// sub returns the buffer of n bytes at byte off in b.
func (b *Buffer) sub(off, n int) (*Buffer, error) {
	sb, err := b.b.Sub(off, n)
	if err != nil {
		return nil, err
	}
	return &Buffer{s: b.s, b: sb, size: n}, nil
}
