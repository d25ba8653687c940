package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Cache is a directory of built programs kept between tuning runs, so that
// a repeated or resumed search builds no variant twice, bounded in size by
// Prune, which evicts the least recently used entries first. It holds:
//
//   - binaries/: the program binaries the builders made (Program.Binary),
//     one file per variant, named by a hash of the source, the build
//     options, the device with its platform and driver versions and, on a
//     device that compiles at launch, the work-group size the binary was
//     launched with; and the compiler's message for a source it rejected;
//   - pocl/: PoCL's own kernel cache, which a Worker with a Cache points its
//     processes at (POCL_CACHE_DIR) instead of ~/.cache/pocl, where it grew
//     without bound.
//
// Several processes may use one Cache at once: entries are written to a
// temporary file and renamed, and Prune leaves PoCL's entries used in the
// last PruneGrace alone.
type Cache struct {
	dir string
}

// Parts of a Cache's directory.
const (
	cacheBinaries = "binaries"
	cachePocl     = "pocl"
)

// DefaultCacheMax is the size a Cache is pruned to unless told otherwise
// (1 GiB): about 10,000 NVIDIA binaries or 15,000 PoCL ones.
const DefaultCacheMax = 1 << 30

// PruneGrace is how recently an entry of PoCL's kernel cache must have been
// used for Prune to keep it regardless of the bound: another process may be
// using it.
const PruneGrace = 10 * time.Minute

// DefaultCacheDir returns where hplopt keeps built programs unless told
// otherwise: hplopt under the user's cache directory (os.UserCacheDir:
// $XDG_CACHE_HOME, else ~/.cache on Linux), beside the records database.
// It is the only place the package reads the environment.
func DefaultCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("runner: no cache directory for built programs: %w", err)
	}
	return filepath.Join(dir, "hplopt"), nil
}

// OpenCache opens the cache in dir, creating the directory if need be.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("runner: OpenCache: no directory")
	}
	for _, part := range []string{cacheBinaries, cachePocl} {
		if err := os.MkdirAll(filepath.Join(dir, part), 0o755); err != nil {
			return nil, fmt.Errorf("runner: the cache of built programs: %w", err)
		}
	}
	return &Cache{dir: dir}, nil
}

// Dir returns the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// PoclDir returns the directory that PoCL's kernel cache is kept in, which
// a Worker gives its processes as POCL_CACHE_DIR.
func (c *Cache) PoclDir() string { return filepath.Join(c.dir, cachePocl) }

// cacheKey names the binary of src built with options on the device whose
// deviceKey is dev; local, on a device that compiles at launch, is the
// work-group size whose code the binary holds.
func cacheKey(dev, options, src string, local []int) string {
	h := sha256.New()
	fmt.Fprintf(h, "%q\x00%q\x00%v\x00", dev, options, local)
	h.Write([]byte(src))
	return hex.EncodeToString(h.Sum(nil))
}

func (c *Cache) path(key, ext string) string {
	return filepath.Join(c.dir, cacheBinaries, key[:2], key+ext)
}

// get returns the binary stored under key, or the compiler's message for a
// source it rejected (rejected true), and marks the entry used.
func (c *Cache) get(key string) (bin []byte, msg string, rejected, ok bool) {
	for _, ext := range []string{".bin", ".rej"} {
		p := c.path(key, ext)
		data, err := os.ReadFile(p)
		if err != nil || len(data) == 0 {
			continue
		}
		now := time.Now()
		os.Chtimes(p, now, now)
		if ext == ".rej" {
			return nil, string(data), true, true
		}
		return data, "", false, true
	}
	return nil, "", false, false
}

// has reports whether an entry is stored under key, without marking it
// used.
func (c *Cache) has(key string) bool {
	for _, ext := range []string{".bin", ".rej"} {
		if fi, err := os.Stat(c.path(key, ext)); err == nil && fi.Size() > 0 {
			return true
		}
	}
	return false
}

// put stores bin (or, with rejected, the compiler's message) under key. It
// is best-effort: a cache that cannot be written (a full disk) only means
// that the program is built again next time.
func (c *Cache) put(key string, data []byte, rejected bool) {
	ext := ".bin"
	if rejected {
		ext = ".rej"
	}
	p := c.path(key, ext)
	if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

// CacheStats counts a cache's entries and their sizes in bytes.
type CacheStats struct {
	// Binaries and BinaryBytes: the programs' binaries; Rejected: sources
	// the compiler rejected, whose messages are kept.
	Binaries, Rejected int
	BinaryBytes        int64
	// Pocl and PoclBytes: the programs in PoCL's kernel cache (with the
	// machine code of each work-group size launched) and PoCL's temporary
	// files.
	Pocl      int
	PoclBytes int64
}

// Bytes is the size of everything counted.
func (s CacheStats) Bytes() int64 { return s.BinaryBytes + s.PoclBytes }

// cacheEntry is one thing Prune may remove: a binary, a rejection, or a
// program's directory (or a stray file) of PoCL's cache.
type cacheEntry struct {
	path string
	size int64
	used time.Time
	pocl bool
	rej  bool
}

// entries lists the cache's entries.
func (c *Cache) entries() ([]cacheEntry, error) {
	var out []cacheEntry
	bins := filepath.Join(c.dir, cacheBinaries)
	err := filepath.WalkDir(bins, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		out = append(out, cacheEntry{path: p, size: info.Size(), used: info.ModTime(), rej: strings.HasSuffix(p, ".rej")})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("runner: the cache of built programs: %w", err)
	}
	// PoCL's cache: kcache/XX/PROGRAM/ per program; anything else at its
	// top (its _UNCACHED_ directories and temporary files) is an entry too.
	pocl := filepath.Join(c.dir, cachePocl)
	top, _ := os.ReadDir(pocl)
	for _, d := range top {
		p := filepath.Join(pocl, d.Name())
		if d.Name() != "kcache" || !d.IsDir() {
			out = append(out, dirEntry(p))
			continue
		}
		buckets, _ := os.ReadDir(p)
		for _, b := range buckets {
			progs, _ := os.ReadDir(filepath.Join(p, b.Name()))
			for _, prog := range progs {
				out = append(out, dirEntry(filepath.Join(p, b.Name(), prog.Name())))
			}
		}
	}
	return out, nil
}

// dirEntry is the PoCL cache entry at p: its size and its last use, the
// latest modification of a file in it (PoCL touches its last_accessed),
// or of p itself when it holds none.
func dirEntry(p string) cacheEntry {
	e := cacheEntry{path: p, pocl: true}
	var dirTime time.Time
	filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, err := d.Info()
		switch {
		case err != nil:
		case d.IsDir():
			if q == p {
				dirTime = info.ModTime()
			}
		default:
			e.size += info.Size()
			if info.ModTime().After(e.used) {
				e.used = info.ModTime()
			}
		}
		return nil
	})
	if e.used.IsZero() {
		e.used = dirTime
	}
	return e
}

// Stats counts the cache's entries.
func (c *Cache) Stats() (CacheStats, error) {
	es, err := c.entries()
	if err != nil {
		return CacheStats{}, err
	}
	var s CacheStats
	for _, e := range es {
		s.add(e)
	}
	return s, nil
}

func (s *CacheStats) add(e cacheEntry) {
	switch {
	case e.pocl:
		s.Pocl++
		s.PoclBytes += e.size
	case e.rej:
		s.Rejected++
		s.BinaryBytes += e.size
	default:
		s.Binaries++
		s.BinaryBytes += e.size
	}
}

// Prune removes the least recently used entries until the cache holds at
// most max bytes (0: removes all it may), and returns what it removed.
// Entries of PoCL's kernel cache used in the last PruneGrace are kept even
// past the bound.
func (c *Cache) Prune(max int64) (removed CacheStats, err error) {
	es, err := c.entries()
	if err != nil {
		return removed, err
	}
	var total int64
	for _, e := range es {
		total += e.size
	}
	slices.SortFunc(es, func(a, b cacheEntry) int { return a.used.Compare(b.used) })
	recent := time.Now().Add(-PruneGrace)
	var errs []error
	for _, e := range es {
		if total <= max {
			break
		}
		if e.pocl && e.used.After(recent) {
			continue
		}
		if err := os.RemoveAll(e.path); err != nil {
			errs = append(errs, err)
			continue
		}
		total -= e.size
		removed.add(e)
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("runner: pruning the cache of built programs: %w", errors.Join(errs...))
	}
	return removed, nil
}
