package runner

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCachePrune fills a cache with binaries and PoCL entries of known ages
// and checks that Prune evicts the least recently used first, that a get
// makes an entry recent, and that PoCL's entries used within PruneGrace
// stay.
func TestCachePrune(t *testing.T) {
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	age := func(p string, d time.Duration) {
		t.Helper()
		if err := os.Chtimes(p, now.Add(-d), now.Add(-d)); err != nil {
			t.Fatal(err)
		}
	}
	keys := make([]string, 4)
	for i := range keys {
		keys[i] = cacheKey("dev", "", string(rune('a'+i)), nil)
		c.put(keys[i], make([]byte, 1000), false)
		age(c.path(keys[i], ".bin"), time.Duration(10-i)*time.Hour) // a oldest
	}
	c.put(cacheKey("dev", "", "rejected", nil), []byte("runner: the OpenCL compiler rejected the source"), true)
	if _, msg, rej, ok := c.get(cacheKey("dev", "", "rejected", nil)); !ok || !rej || msg == "" {
		t.Errorf("get of a rejection: %q, %v, %v", msg, rej, ok)
	}
	// PoCL: an old program, a recent one, a stray temporary directory.
	pocl := func(name string, size int, d time.Duration) {
		p := filepath.Join(c.PoclDir(), name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		age(p, d)
	}
	pocl("kcache/AB/OLDPROGRAM/program.bc", 2000, 20*time.Hour)
	pocl("kcache/AB/NEWPROGRAM/program.bc", 2000, time.Minute)
	pocl("_UNCACHED_x/k.so", 500, 30*time.Hour)
	// The get makes a recent; b is now the oldest binary.
	if bin, _, _, ok := c.get(keys[0]); !ok || len(bin) != 1000 {
		t.Fatalf("get: %d bytes, %v", len(bin), ok)
	}
	s, err := c.Stats()
	if err != nil || s.Binaries != 4 || s.Rejected != 1 || s.Pocl != 3 || s.PoclBytes != 4500 {
		t.Fatalf("Stats() = %+v, %v", s, err)
	}
	total := s.Bytes()
	removed, err := c.Prune(total - 3000) // the stray, the old program, and b
	if err != nil {
		t.Fatal(err)
	}
	if removed.Pocl != 2 || removed.Binaries != 1 {
		t.Errorf("Prune removed %+v, want the two old PoCL entries and one binary", removed)
	}
	for i, want := range []bool{true, false, true, true} {
		if _, _, _, ok := c.get(keys[i]); ok != want {
			t.Errorf("binary %d kept: %v, want %v", i, ok, want)
		}
	}
	// Prune(0) removes everything but PoCL's recent program.
	if _, err := c.Prune(0); err != nil {
		t.Fatal(err)
	}
	if s, _ := c.Stats(); s.Binaries != 0 || s.Rejected != 0 || s.Pocl != 1 {
		t.Errorf("after Prune(0): %+v, want PoCL's recent entry alone", s)
	}
}
