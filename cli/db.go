package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/records"
)

func init() {
	register(verb{name: "db", summary: "the tuning records: list, show, export, import, prune; db path prints where they are", run: dbVerb,
		flags: func() *flagSet { fs, _ := dbFlags(""); return fs }})
}

// dbAbout is what hplopt db -h says beside its flags.
func dbAbout() string {
	var b strings.Builder
	b.WriteString("The tuning records: every measurement the tuner makes, kept in a SQLite database:\n" +
		"--db PATH, else $HPLOPT_DB, else records.db under hplopt's cache directory.\n\nsubcommands (hplopt db SUBCOMMAND -h lists its flags):\n")
	names := make([]string, 0, len(dbCommands))
	for n := range dbCommands {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "  %-7s %s\n", n, dbCommands[n].summary)
	}
	return strings.TrimRight(b.String(), "\n")
}

// dbFlags defines the flags common to every db subcommand: --db.
func dbFlags(verb string) (*flagSet, *string) {
	fs := newFlagSet("db"+verb, "SUBCOMMAND", dbAbout())
	if verb != "" {
		fs = newFlagSet("db"+verb, "", "")
	}
	path := fs.String("db", "", "the records database `PATH` (\"\": $HPLOPT_DB, else records.db under hplopt's cache directory)")
	return fs, path
}

// recordsPath returns the records database the command line names: --db,
// else $HPLOPT_DB, else records.DefaultPath; and which of them it was.
func recordsPath(flagValue string) (path, from string, err error) {
	if flagValue != "" {
		return flagValue, "--db", nil
	}
	if env := os.Getenv("HPLOPT_DB"); env != "" {
		return env, "HPLOPT_DB", nil
	}
	path, err = records.DefaultPath()
	return path, "default", err
}

// dbCommand is one `hplopt db` subcommand.
type dbCommand struct {
	args    string // the arguments after the flags, for the usage line
	summary string
	// flags defines the subcommand's flags on fs and returns the function
	// that runs it with the database path and the arguments.
	flags func(fs *flagSet) func(c *dbContext, args []string) int
}

// dbContext is what a subcommand runs with.
type dbContext struct {
	name           string // "hplopt db list"
	fs             *flagSet
	path           string
	stdout, stderr io.Writer
}

func (c *dbContext) fail(err error) int {
	fmt.Fprintf(c.stderr, "%s: %v\n", c.name, err)
	return 1
}

func (c *dbContext) misuse(format string, args ...any) int {
	return c.fs.usageError(fmt.Errorf(format, args...), c.stdout, c.stderr)
}

// open opens the database for writing, or for reading only.
func (c *dbContext) open(readOnly bool) (*records.DB, error) {
	return records.Open(c.path, records.Options{ReadOnly: readOnly})
}

// exists reports whether the database file exists.
func (c *dbContext) exists() bool {
	_, err := os.Stat(c.path)
	return !errors.Is(err, fs.ErrNotExist)
}

// read opens the existing database for reading.
func (c *dbContext) read() (*records.DB, error) {
	if !c.exists() {
		return nil, fmt.Errorf("no records database at %s", c.path)
	}
	return c.open(true)
}

// plain is the flags of a subcommand that has none but --db.
func plain(run func(*dbContext, []string) int) func(*flagSet) func(*dbContext, []string) int {
	return func(*flagSet) func(*dbContext, []string) int { return run }
}

var dbCommands = map[string]dbCommand{
	"list": {summary: "list the recorded problems: kernel, device, sizes, best time, evaluations, last date", flags: plain(dbList)},
	"show": {args: "PROBLEM-ID|KERNEL", summary: "show a problem's key, runs and every evaluation", flags: plain(dbShow)},
	"export": {args: "[PROBLEM-ID|KERNEL...]", summary: "write the records (of the problems given, else all) as hplopt's JSON, T4 1.0.0 or CSV", flags: func(fs *flagSet) func(*dbContext, []string) int {
		format := fs.String("format", string(records.JSON), "output `FORMAT`: json (hplopt's, importable), t4 (the auto-tuning community's results format, importable) or csv")
		out := fs.String("out", "", "write to this `FILE` (\"\": standard output)")
		return func(c *dbContext, args []string) int { return dbExport(c, *format, *out, args) }
	}},
	"import": {args: "FILE", summary: "add the records of a json or t4 export; records already present are skipped", flags: plain(dbImport)},
	"prune": {summary: "drop records: each flag given narrows what is dropped; then compact the file", flags: func(fs *flagSet) func(*dbContext, []string) int {
		stale := fs.Bool("stale", false, "the problems recorded under an older search space")
		before := fs.String("before", "", "the runs started before `DATE` (2006-01-02 or RFC 3339)")
		kernel := fs.String("kernel", "", "the problems of this `KERNEL`")
		return func(c *dbContext, args []string) int { return dbPrune(c, *stale, *before, *kernel, args) }
	}},
	"path": {summary: "print the database's path (and, on stderr, where it came from)", flags: plain(dbPathCmd)},
	"rule": {args: "KERNEL", summary: "print the decision rule the records imply: size ranges and the setting each runs (what Optimize and tune run for a shape never tuned)", flags: plain(dbRule)},
}

// dbVerb is `hplopt db`: the tuning records.
func dbVerb(_ *command, args []string, stdout, stderr io.Writer) int {
	top, dbFlag := dbFlags("")
	// The subcommand is the first operand; --db may come before it.
	var name string
	rest := args
	for i, a := range args {
		if !strings.HasPrefix(a, "-") && (i == 0 || (args[i-1] != "--db" && args[i-1] != "-db")) {
			name, rest = a, args[i+1:]
			if err := top.noOperands(args[:i]); err != nil {
				return top.usageError(err, stdout, stderr)
			}
			break
		}
	}
	if name == "" {
		if err := top.noOperands(args); err != nil {
			return top.usageError(err, stdout, stderr)
		}
		return top.usageError(fmt.Errorf("no subcommand given"), stdout, stderr)
	}
	cmd, ok := dbCommands[name]
	if !ok {
		return top.usageError(fmt.Errorf("unknown subcommand %q", name), stdout, stderr)
	}
	fs, sub := dbFlags(" " + name)
	fs.operands, fs.about = cmd.args, cmd.summary
	*sub = *dbFlag
	runSub := cmd.flags(fs)
	c := &dbContext{name: "hplopt db " + name, fs: fs, stdout: stdout, stderr: stderr}
	operands, err := fs.parse(rest)
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	var from string
	if c.path, from, err = recordsPath(*sub); err != nil {
		return c.fail(err)
	}
	if name == "path" {
		fmt.Fprintf(stderr, "(from %s)\n", from)
	}
	return runSub(c, operands)
}

func noArgs(c *dbContext, args []string) (int, bool) {
	if len(args) > 0 {
		return c.misuse("unexpected argument %q", args[0]), false
	}
	return 0, true
}

func dbList(c *dbContext, args []string) int {
	if st, ok := noArgs(c, args); !ok {
		return st
	}
	if !c.exists() {
		fmt.Fprintf(c.stdout, "no records yet (no database at %s)\n", c.path)
		return 0
	}
	db, err := c.read()
	if err != nil {
		return c.fail(err)
	}
	defer db.Close()
	ps, err := db.Problems()
	if err != nil {
		return c.fail(err)
	}
	if len(ps) == 0 {
		fmt.Fprintf(c.stdout, "no records yet in %s\n", c.path)
		return 0
	}
	w := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "PROBLEM\tKERNEL\tDEVICE\tSIZES\tBEST MS\tEVALUATIONS\tRUNS\tLAST\t")
	for _, p := range ps {
		best := "-"
		if p.Best != nil {
			best = fmt.Sprintf("%.4f", p.Best.Ms)
		}
		stale := ""
		if p.Stale {
			stale = "stale"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", p.ID[:12], p.Key.Kernel, p.Key.Device.Name, p.Key.Sizes(), best,
			p.Evaluations, p.Runs, date(p.Last), stale)
	}
	w.Flush()
	return 0
}

// date prints a time of the records in local time to the minute.
func date(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// findKernel is db.Find, which also takes a benchmark's name for its
// kernel's (matmul for mxm).
func findKernel(db *records.DB, q string) ([]records.Problem, error) {
	ps, err := db.Find(q)
	if err == nil && len(ps) == 0 {
		if b, berr := kernels.Find(q); berr == nil && b.Kernel.Name() != q {
			return db.Find(b.Kernel.Name())
		}
	}
	return ps, err
}

// find returns the problems that args name (by ID prefix or kernel), each
// once, or an error naming what matched nothing.
func find(db *records.DB, args []string) ([]records.Problem, error) {
	var out []records.Problem
	for _, a := range args {
		ps, err := findKernel(db, a)
		if err != nil {
			return nil, err
		}
		if len(ps) == 0 {
			return nil, fmt.Errorf("no recorded problem has an ID starting with %q or is of a kernel of that name (hplopt db list shows them)", a)
		}
		for _, p := range ps {
			if !slices.ContainsFunc(out, func(q records.Problem) bool { return q.ID == p.ID }) {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

func dbShow(c *dbContext, args []string) int {
	if len(args) != 1 {
		return c.misuse("give one problem ID (or a prefix) or kernel name")
	}
	db, err := c.read()
	if err != nil {
		return c.fail(err)
	}
	defer db.Close()
	ps, err := find(db, args)
	if err != nil {
		return c.fail(err)
	}
	for i, p := range ps {
		if i > 0 {
			fmt.Fprintln(c.stdout)
		}
		if err := showProblem(c.stdout, db, p); err != nil {
			return c.fail(err)
		}
	}
	return 0
}

func showProblem(out io.Writer, db *records.DB, p records.Problem) error {
	runs, err := db.Runs(p.ID)
	if err != nil {
		return err
	}
	evals, err := db.Evaluations(p.ID)
	if err != nil {
		return err
	}
	k := p.Key
	fmt.Fprintf(out, "problem      %s\n", p.ID)
	fmt.Fprintf(out, "kernel       %s (hash %s)\n", k.Kernel, k.Hash)
	fmt.Fprintf(out, "device       %s (%s; vendor %s; driver %s; %s)\n", k.Device.Name, k.Device.Platform, k.Device.Vendor, k.Device.Driver, k.Device.OpenCL)
	fmt.Fprintf(out, "sizes        %s\n", k.Sizes())
	args := make([]string, len(k.Args))
	for i, a := range k.Args {
		args[i] = a.Name + " " + a.Type
	}
	fmt.Fprintf(out, "arguments    %s\n", strings.Join(args, ", "))
	stale := ""
	if p.Stale {
		stale = " (stale: not the current search space)"
	}
	fmt.Fprintf(out, "space        %s%s\n", k.Space, stale)
	if p.Best != nil {
		fmt.Fprintf(out, "best         %.4f ms  %s  (run %s, evaluation %d)\n", p.Best.Ms, p.Best.Point(), p.Best.Run[:8], p.Best.Seq)
	} else {
		fmt.Fprintf(out, "best         none verified\n")
	}
	fmt.Fprintf(out, "records      %d runs, %d evaluations\n", p.Runs, p.Evaluations)
	for _, r := range runs {
		end := "no end recorded (killed, or still running)"
		if !r.Ended.IsZero() {
			end = "ended " + date(r.Ended) + ", stopped: " + r.Stopped
		}
		fmt.Fprintf(out, "\nrun %s  %s search, seed %d, started %s, %s; %s on %s\n", r.ID[:8], r.Strategy, r.Seed, date(r.Started), end, orDash(r.Tool), orDash(r.Host))
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "  SEQ\tORDER\tOUTCOME\tMS\tBUILD MS\tPARAMS\tERROR")
		for _, e := range evals {
			if e.Run != r.ID {
				continue
			}
			ms := "-"
			if e.Outcome == autotune.OK {
				ms = fmt.Sprintf("%.4f", e.Ms)
			}
			fmt.Fprintf(w, "  %d\t%d\t%s\t%s\t%.1f\t%s\t%s\n", e.Seq, e.Order, e.Outcome, ms, e.BuildMs, e.Point(), firstLine(e.Err))
		}
		w.Flush()
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// firstLine returns the first line of a compiler's message.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func dbExport(c *dbContext, format, out string, args []string) int {
	f, err := records.ParseFormat(format)
	if err != nil {
		return c.misuse("--format: %v", err)
	}
	db, err := c.read()
	if err != nil {
		return c.fail(err)
	}
	defer db.Close()
	var ids []string
	if len(args) > 0 {
		ps, err := find(db, args)
		if err != nil {
			return c.fail(err)
		}
		for _, p := range ps {
			ids = append(ids, p.ID)
		}
	}
	if out == "" {
		if err := db.Export(c.stdout, f, ids...); err != nil {
			return c.fail(err)
		}
		return 0
	}
	file, err := os.Create(out)
	if err != nil {
		return c.fail(err)
	}
	if err := errors.Join(db.Export(file, f, ids...), file.Close()); err != nil {
		os.Remove(out)
		return c.fail(err)
	}
	return 0
}

func dbImport(c *dbContext, args []string) int {
	if len(args) != 1 {
		return c.misuse("give one file to import")
	}
	file, err := os.Open(args[0])
	if err != nil {
		return c.fail(err)
	}
	defer file.Close()
	db, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer db.Close()
	n, err := db.Import(file)
	if err != nil {
		return c.fail(fmt.Errorf("%s: %w", args[0], err))
	}
	fmt.Fprintf(c.stdout, "imported %d problems, %d runs, %d evaluations into %s (%d evaluations were already recorded)\n",
		n.Problems, n.Runs, n.Evaluations, c.path, n.Skipped)
	return 0
}

func dbPrune(c *dbContext, stale bool, before, kernel string, args []string) int {
	if st, ok := noArgs(c, args); !ok {
		return st
	}
	p := records.Prune{Stale: stale, Kernel: kernel}
	if before != "" {
		t, err := parseDate(before)
		if err != nil {
			return c.misuse("--before: %v", err)
		}
		p.Before = t
	}
	if !p.Stale && p.Kernel == "" && p.Before.IsZero() {
		return c.misuse("say what to drop: --stale, --before DATE and/or --kernel KERNEL")
	}
	db, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer db.Close()
	if b, err := kernels.Find(p.Kernel); err == nil { // a benchmark's name for its kernel's (matmul for mxm)
		if ps, err := db.Problems(); err == nil && !slices.ContainsFunc(ps, func(q records.Problem) bool { return q.Key.Kernel == p.Kernel }) {
			p.Kernel = b.Kernel.Name()
		}
	}
	n, err := db.Prune(p)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.stdout, "dropped %d problems, %d runs, %d evaluations from %s\n", n.Problems, n.Runs, n.Evaluations, c.path)
	return 0
}

// parseDate reads a date (midnight, local time) or an RFC 3339 time.
func parseDate(s string) (time.Time, error) {
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is neither a date (2006-01-02) nor an RFC 3339 time (2006-01-02T15:04:05Z)", s)
}

func dbPathCmd(c *dbContext, args []string) int {
	if st, ok := noArgs(c, args); !ok {
		return st
	}
	fmt.Fprintln(c.stdout, c.path)
	return 0
}

// dbRule prints, for each recorded family of the kernel (one device, kernel
// hash and search space, any sizes), the decision rule its records imply:
// a shape never tuned runs the best setting of the nearest recorded shape
// (records.DB.Nearest), as optimizer.ReuseBest does without a budget. For
// reading, the shapes are ordered by the geometric mean of their sizes and
// each gets the range of geometric means nearer to it than to its
// neighbours.
func dbRule(c *dbContext, args []string) int {
	if len(args) != 1 {
		return c.misuse("give one kernel name")
	}
	db, err := c.read()
	if err != nil {
		return c.fail(err)
	}
	defer db.Close()
	ps, err := findKernel(db, args[0])
	if err != nil {
		return c.fail(err)
	}
	seen := map[string]bool{}
	n := 0
	for _, p := range ps {
		fam := p.Key.Family()
		if p.Stale || seen[fam] {
			continue
		}
		seen[fam] = true
		rule, err := db.Rule(p.Key)
		if err != nil {
			return c.fail(err)
		}
		if len(rule) == 0 {
			continue
		}
		if n > 0 {
			fmt.Fprintln(c.stdout)
		}
		n++
		printRule(c.stdout, p.Key, rule)
	}
	if n == 0 {
		return c.fail(fmt.Errorf("no verified result recorded for kernel %q under the current search space (hplopt db list shows the records)", args[0]))
	}
	return 0
}

func printRule(w io.Writer, k records.Key, rule []records.Neighbour) {
	size := func(nb records.Neighbour) float64 { // the geometric mean of the sizes
		sh := nb.Problem.Key.Shape()
		var sum float64
		for _, x := range sh {
			sum += math.Log(max(math.Abs(x), 1))
		}
		return math.Exp(sum / float64(max(len(sh), 1)))
	}
	slices.SortStableFunc(rule, func(a, b records.Neighbour) int { return cmp.Compare(size(a), size(b)) })
	fmt.Fprintf(w, "%s on %s, kernel hash %s, space %s: %d recorded shapes\n", k.Kernel, k.Device, k.Hash[:min(12, len(k.Hash))], k.Space, len(rule))
	fmt.Fprintln(w, "a shape runs the best setting of the recorded shape nearest to it (distance of the logarithms of the sizes);")
	fmt.Fprintln(w, "the ranges are of the geometric mean of the sizes, for shapes that grow together")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FROM\tTO\tSHAPE\tBEST MS\tEVALUATIONS\tSETTING")
	for i, nb := range rule {
		from, to := "-", "-"
		if i > 0 {
			from = fmt.Sprintf("%.4g", math.Sqrt(size(rule[i-1])*size(nb)))
		}
		if i < len(rule)-1 {
			to = fmt.Sprintf("%.4g", math.Sqrt(size(nb)*size(rule[i+1])))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.4f\t%d\t%s\n", from, to, nb.Problem.Key.Sizes(), nb.Best.Ms, nb.Problem.Evaluations, nb.Best.Point())
	}
	tw.Flush()
}
