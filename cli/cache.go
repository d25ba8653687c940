package cli

import (
	"fmt"
	"io"

	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/runner"
)

func init() {
	register(verb{name: "cache", summary: "the cache of built programs: cache path, cache stats, cache prune", run: cacheVerb,
		flags: func() *flagSet { fs, _, _ := cacheFlags(); return fs }})
}

const cacheAbout = `The cache of built programs that tune and bench keep between runs, so that a
repeated or resumed search builds nothing twice: the builders' binaries (by
source, build options, device and driver) and PoCL's kernel cache. Every run
prunes it to --cache-max first, least recently used entries first.

subcommands:
  path    print the cache's directory
  stats   count its entries and bytes
  prune   remove the least recently used entries until it holds --max
          (0: everything but PoCL's entries used in the last 10 minutes)`

// cacheFlags defines cache's flags: --cache and --max.
func cacheFlags() (fs *flagSet, dir *string, max *int64) {
	fs = newFlagSet("cache", "path|stats|prune", cacheAbout)
	dir, max = new(string), new(int64)
	fs.Var(&cacheFlag{dir}, "cache", "the cache's directory (\"\": $HPLOPT_CACHE, else hplopt under the user's cache directory)")
	sizeVar(fs, max, "max", runner.DefaultCacheMax, "prune: the `SIZE` to prune the cache to")
	return fs, dir, max
}

// cacheVerb is `hplopt cache`: the cache of built programs.
func cacheVerb(_ *command, args []string, stdout, stderr io.Writer) int {
	fs, dirFlag, max := cacheFlags()
	operands, err := fs.parse(args)
	if err == nil && len(operands) != 1 {
		err = fmt.Errorf("want one subcommand: path, stats or prune")
	}
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	sub := operands[0]
	if sub != "path" && sub != "stats" && sub != "prune" {
		return fs.usageError(fmt.Errorf("unknown subcommand %q", sub), stdout, stderr)
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "hplopt cache %s: %v\n", sub, err)
		return 1
	}
	dir := cacheDir(*dirFlag)
	if dir == optimizer.NoCache {
		return fail(fmt.Errorf("--cache %s keeps no cache", dir))
	}
	if dir == "" {
		if dir, err = runner.DefaultCacheDir(); err != nil {
			return fail(err)
		}
	}
	if sub == "path" {
		fmt.Fprintln(stdout, dir)
		return 0
	}
	c, err := runner.OpenCache(dir)
	if err != nil {
		return fail(err)
	}
	if sub == "prune" {
		removed, err := c.Prune(*max)
		fmt.Fprintf(stdout, "removed %s\n", cacheLine(removed))
		if err != nil {
			return fail(err)
		}
	}
	s, err := c.Stats()
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "%s: %s\n", dir, cacheLine(s))
	return 0
}

// cacheLine says what s counts.
func cacheLine(s runner.CacheStats) string {
	return fmt.Sprintf("%d binaries and %d compiler rejections (%s), %d entries of PoCL's kernel cache (%s); %s in all",
		s.Binaries, s.Rejected, mib1(s.BinaryBytes), s.Pocl, mib1(s.PoclBytes), mib1(s.Bytes()))
}

// mib1 writes n bytes in MiB with a decimal.
func mib1(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
