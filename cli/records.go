package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/records"
)

// recordsFlags are --db and --no-db of the verbs that tune: where the
// tuning records are.
type recordsFlags struct {
	path string
	none bool
}

func (r *recordsFlags) define(fs *flagSet) {
	fs.StringVar(&r.path, "db", "", "the tuning records database `PATH` (\"\": $HPLOPT_DB, else records.db under hplopt's cache directory; hplopt db path prints it)")
	fs.BoolVar(&r.none, "no-db", false, "keep no tuning records: neither read nor write the database")
}

// open opens the records database the flags name for verb, or returns nil
// for --no-db. A database that cannot be opened (broken, locked,
// read-only, of a newer hplopt) gives one warning on stderr, and nil: the
// verb goes on without records.
func (r *recordsFlags) open(verb string, stderr io.Writer) *records.DB {
	if r.none {
		return nil
	}
	path, _, err := recordsPath(r.path)
	if err == nil {
		var db *records.DB
		if db, err = records.Open(path, records.Options{}); err == nil {
			return db
		}
	}
	fmt.Fprintf(stderr, "hplopt %s: warning: %v: tuning without records (nothing is reused or kept; --no-db silences this)\n", verb, err)
	return nil
}

// reuseVar defines --reuse: how a tuning uses the records.
func reuseVar(fs *flagSet, p *optimizer.Reuse, usage string) {
	var about []string
	for i, n := range optimizer.ReuseNames() {
		about = append(about, n+": "+optimizer.Reuse(i).Doc())
	}
	parse := func(s string) (optimizer.Reuse, bool) { r, err := optimizer.ParseReuse(s); return r, err == nil }
	fs.Var(&choiceFlag[optimizer.Reuse]{p, parse, strings.Join(optimizer.ReuseNames(), "|"), strings.Join(about, "; ")}, "reuse", usage)
}

// checkOutput checks before any measurement that the file path can be
// written: not a directory, in a directory that exists and may be written,
// and not a device that refuses writes (/dev/full). It leaves an existing
// file as it is and creates none.
func checkOutput(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if errors.Is(statErr, os.ErrNotExist) {
		defer os.Remove(path)
	}
	_, err = f.Write(nil) // a device's write fails even for no bytes (ENOSPC of /dev/full)
	return errors.Join(err, f.Close())
}

// checkOutDir checks before any measurement that files can be written in
// directory dir, making it (and its parents) if missing.
func checkOutDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".hplopt-check-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write([]byte{'\n'})
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("%s: %w", filepath.Clean(dir), err)
	}
	return nil
}
