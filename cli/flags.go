package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/strategies"
	"github.com/hplopt/hplopt/transforms"
)

// flagSet is a verb's flags: a flag.FlagSet whose usage line and -h text are
// made from the flags it defines, so that no flag is left out of them. Every
// verb parses its arguments with one. Values are checked when the flag is
// parsed, by the flag's type (intVar, secondsVar, pinsVar...): a bad value
// is a usage error naming the flag and the values it takes.
type flagSet struct {
	*flag.FlagSet
	verb     string            // as in hplopt VERB
	operands string            // the operands in the usage line ("KERNEL"), "" for none
	about    string            // what -h prints between the usage line and the flags
	aliases  map[string]string // another name of a flag → the flag's name
}

// newFlagSet makes a verb's flag set. Its Usage writes the help to its
// Output, which is io.Discard: the flag package calls Usage on -h and on
// every error, and the verb passes the error to usageError instead, which
// writes the help to stdout or the error and the usage line to stderr.
func newFlagSet(verb, operands, about string) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(verb, flag.ContinueOnError), verb: verb, operands: operands, about: about, aliases: map[string]string{}}
	fs.SetOutput(io.Discard)
	fs.Usage = func() { fs.help(fs.Output()) }
	return fs
}

// parse parses args, flags and operands in any order (all operands after
// "--"), and returns the operands. -h and --help give flag.ErrHelp.
func (fs *flagSet) parse(args []string) ([]string, error) {
	var operands []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return operands, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(operands, rest...), nil
		}
		operands, args = append(operands, rest[0]), rest[1:]
	}
}

// noOperands parses args, which must have no operands.
func (fs *flagSet) noOperands(args []string) error {
	operands, err := fs.parse(args)
	if err == nil && len(operands) > 0 {
		err = fmt.Errorf("unexpected argument %q", operands[0])
	}
	return err
}

// usageError reports a parse or usage error and returns the exit status:
// for flag.ErrHelp, the verb's help on stdout and 0; for a *failure (a
// FILE.cl that cannot be read or is outside the subset read), the error on
// stderr and 1; otherwise the error and the usage line on stderr, and 2.
func (fs *flagSet) usageError(err error, stdout, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		fs.help(stdout)
		return 0
	}
	var f *failure
	if errors.As(err, &f) {
		f.report(fs.verb, stderr)
		return 1
	}
	fmt.Fprintf(stderr, "hplopt %s: %v\n%s\n(hplopt %[1]s -h lists the flags)\n", fs.verb, err, fs.usageLine())
	return 2
}

// alias defines name as another name of the flag of.
func (fs *flagSet) alias(name, of string) {
	f := fs.Lookup(of)
	fs.Var(f.Value, name, "same as "+dashed(of))
	fs.aliases[name] = of
}

// dashed writes a flag as the usage line does: -x, --name.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// placeholder is the name of a flag's value in the usage line and the help:
// the usage text's first `quoted` word, else the one its type gives; "" for
// a boolean flag.
func placeholder(f *flag.Flag) string {
	name, _ := flag.UnquoteUsage(f)
	if p, ok := f.Value.(interface{ placeholder() string }); ok && !strings.Contains(f.Usage, "`") {
		return p.placeholder()
	}
	return strings.ToUpper(name)
}

// usageLine is "usage: hplopt VERB OPERANDS [-x X] [--name N]...", every flag
// but the aliases, in the flag package's (alphabetical) order.
func (fs *flagSet) usageLine() string {
	const width = 100
	lead := "usage: hplopt " + fs.verb
	if fs.operands != "" {
		lead += " " + fs.operands
	}
	var b strings.Builder
	b.WriteString(lead)
	col := len(lead)
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := fs.aliases[f.Name]; ok {
			return
		}
		item := dashed(f.Name)
		if p := placeholder(f); p != "" {
			item += " " + p
		}
		item = "[" + item + "]"
		if col+1+len(item) > width {
			b.WriteString("\n" + strings.Repeat(" ", len(lead)))
			col = len(lead)
		}
		b.WriteString(" " + item)
		col += 1 + len(item)
	})
	return b.String()
}

// help writes the usage line, what the verb does and every flag with its
// meaning, the values it takes and its default.
func (fs *flagSet) help(w io.Writer) {
	fmt.Fprintln(w, fs.usageLine())
	if fs.about != "" {
		fmt.Fprintf(w, "\n%s\n", fs.about)
	}
	others := map[string][]string{}
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		if of, ok := fs.aliases[f.Name]; ok {
			others[of] = append(others[of], dashed(f.Name))
		}
	})
	if n == 0 {
		return
	}
	fmt.Fprintln(w, "\nflags:")
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := fs.aliases[f.Name]; ok {
			return
		}
		p := placeholder(f)
		var names []string
		for _, name := range append([]string{dashed(f.Name)}, others[f.Name]...) {
			if p != "" {
				name += " " + p
			}
			names = append(names, name)
		}
		_, usage := flag.UnquoteUsage(f)
		var notes []string
		if f.DefValue != "" {
			notes = append(notes, "default "+f.DefValue)
		}
		if r, ok := f.Value.(interface{ allowed() string }); ok {
			notes = append(notes, r.allowed())
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(names, ", "))
		for _, text := range []string{usage, strings.Join(notes, "; ")} {
			if text != "" {
				wrap(w, text, "        ", 100)
			}
		}
	})
}

// wrap writes text in lines of at most width columns (longer words
// excepted), each line led by indent.
func wrap(w io.Writer, text, indent string, width int) {
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			fmt.Fprintln(w, line)
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}

// integer is the types of intVar's flags.
type integer interface{ ~int | ~int64 | ~uint64 }

// intFlag is an integer flag that takes lo..hi only.
type intFlag[T integer] struct {
	p      *T
	lo, hi T
}

// intVar defines an integer flag taking lo..hi, with default def.
func intVar[T integer](fs *flagSet, p *T, name string, def, lo, hi T, usage string) {
	*p = def
	fs.Var(&intFlag[T]{p, lo, hi}, name, usage)
}

func (f *intFlag[T]) String() string {
	if f.p == nil {
		return ""
	}
	return fmt.Sprint(*f.p)
}

func (f *intFlag[T]) Set(s string) error {
	var v T
	var err error
	if zero := T(0); zero-1 > zero { // unsigned
		var u uint64
		u, err = strconv.ParseUint(s, 10, 64)
		v = T(u)
	} else {
		var i int64
		i, err = strconv.ParseInt(s, 10, 64)
		v = T(i)
	}
	if err != nil || v < f.lo || v > f.hi {
		return fmt.Errorf("want an integer %s", f.allowed())
	}
	*f.p = v
	return nil
}

func (f *intFlag[T]) Get() any            { return *f.p }
func (f *intFlag[T]) placeholder() string { return "N" }
func (f *intFlag[T]) allowed() string {
	return fmt.Sprintf("from %s to %s", bound(uint64(f.lo), f.lo < 0), bound(uint64(f.hi), false))
}

// bound writes an integer bound, the largest ones as powers of 2.
func bound(u uint64, negative bool) string {
	switch {
	case negative:
		return strconv.FormatInt(int64(u), 10)
	case u == math.MaxUint64:
		return "2^64-1"
	case u == math.MaxInt64:
		return "2^63-1"
	case u == math.MaxInt32:
		return "2^31-1"
	}
	return strconv.FormatUint(u, 10)
}

// secondsFlag is a time given in seconds: a number from lo to hi, or 0 when
// zero says what 0 means.
type secondsFlag struct {
	p      *time.Duration
	lo, hi time.Duration
	zero   string
}

// secondsVar defines a flag taking a time in seconds from lo to hi (or 0,
// meaning zero, when zero is not ""), with default def.
func secondsVar(fs *flagSet, p *time.Duration, name string, def, lo, hi time.Duration, zero, usage string) {
	*p = def
	fs.Var(&secondsFlag{p, lo, hi, zero}, name, usage)
}

func (f *secondsFlag) String() string {
	if f.p == nil {
		return ""
	}
	return strconv.FormatFloat(f.p.Seconds(), 'g', -1, 64)
}

func (f *secondsFlag) Set(s string) error {
	d, err := seconds(s, f.lo, f.hi, f.zero)
	if err != nil {
		return err
	}
	*f.p = d
	return nil
}

// seconds reads a time in seconds from lo to hi, or 0 when zero says what
// 0 means.
func seconds(s string, lo, hi time.Duration, zero string) (time.Duration, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err == nil && x == 0 && zero != "" {
		return 0, nil
	}
	d, ok := autotune.Seconds(x, lo, hi)
	if err != nil || !ok {
		return 0, fmt.Errorf("want %s", secondsAllowed(lo, hi, zero))
	}
	return d, nil
}

func secondsAllowed(lo, hi time.Duration, zero string) string {
	s := fmt.Sprintf("a number of seconds from %g to %g", lo.Seconds(), hi.Seconds())
	if zero != "" {
		s = "0 (" + zero + ") or " + s
	}
	return s
}

func (f *secondsFlag) Get() any            { return *f.p }
func (f *secondsFlag) placeholder() string { return "SECONDS" }
func (f *secondsFlag) allowed() string     { return secondsAllowed(f.lo, f.hi, f.zero) }

// floatFlag is a finite number from lo to hi.
type floatFlag struct {
	p      *float64
	lo, hi float64
}

// floatVar defines a flag taking a number from lo to hi, with default def.
func floatVar(fs *flagSet, p *float64, name string, def, lo, hi float64, usage string) {
	*p = def
	fs.Var(&floatFlag{p, lo, hi}, name, usage)
}

func (f *floatFlag) String() string {
	if f.p == nil {
		return ""
	}
	return strconv.FormatFloat(*f.p, 'g', -1, 64)
}

func (f *floatFlag) Set(s string) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(x) || x < f.lo || x > f.hi {
		return fmt.Errorf("want a number %s", f.allowed())
	}
	*f.p = x
	return nil
}

func (f *floatFlag) Get() any            { return *f.p }
func (f *floatFlag) placeholder() string { return "X" }
func (f *floatFlag) allowed() string     { return fmt.Sprintf("from %g to %g", f.lo, f.hi) }

// slowFlag is --slow-limit: optimizer.Settings.SlowLimit, a factor from 1
// to 10^6, or 0 for no limit (a negative SlowLimit).
type slowFlag struct{ p *float64 }

func (f *slowFlag) String() string {
	switch {
	case f.p == nil:
		return ""
	case *f.p < 0:
		return "0"
	case *f.p == 0:
		return strconv.Itoa(optimizer.DefaultSlowLimit)
	}
	return strconv.FormatFloat(*f.p, 'g', -1, 64)
}

func (f *slowFlag) Set(s string) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	switch {
	case err == nil && x == 0:
		*f.p = -1
	case err != nil || math.IsNaN(x) || x < 1 || x > 1e6:
		return fmt.Errorf("want %s", f.allowed())
	default:
		*f.p = x
	}
	return nil
}

func (f *slowFlag) Get() any            { return *f.p }
func (f *slowFlag) placeholder() string { return "K" }
func (f *slowFlag) allowed() string     { return "0 (no limit) or a number from 1 to 1e+06" }

// choiceFlag is a flag taking one of a few names: --order (an
// optimizer.Order), --check (a runner.CheckOn), --reuse (an
// optimizer.Reuse).
type choiceFlag[T fmt.Stringer] struct {
	p     *T
	parse func(string) (T, bool)
	names string // the placeholder: the names, separated by |
	about string // what allowed says
}

// choiceVar defines a flag taking the names of m, listed by names (the
// placeholder) and about (the help).
func choiceVar[T fmt.Stringer](fs *flagSet, p *T, name string, m map[string]T, names, about, usage string) {
	parse := func(s string) (T, bool) { v, ok := m[s]; return v, ok }
	fs.Var(&choiceFlag[T]{p, parse, names, about}, name, usage)
}

func (f *choiceFlag[T]) String() string {
	if f.p == nil {
		return ""
	}
	return (*f.p).String()
}

func (f *choiceFlag[T]) Set(s string) error {
	v, ok := f.parse(s)
	if !ok {
		return fmt.Errorf("want %s", f.allowed())
	}
	*f.p = v
	return nil
}

func (f *choiceFlag[T]) Get() any            { return *f.p }
func (f *choiceFlag[T]) placeholder() string { return f.names }
func (f *choiceFlag[T]) allowed() string     { return f.about }

// cacheFlag is --cache: the directory of built programs, "" for
// $HPLOPT_CACHE or the default, or optimizer.NoCache.
type cacheFlag struct{ p *string }

func (f *cacheFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f *cacheFlag) Set(s string) error {
	*f.p = s
	return nil
}

func (f *cacheFlag) Get() any            { return *f.p }
func (f *cacheFlag) placeholder() string { return "DIR" }

// cacheDir returns the cache of built programs the command line names:
// --cache, else $HPLOPT_CACHE, else "" (the optimizer's default, under the
// user's cache directory).
func cacheDir(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return os.Getenv("HPLOPT_CACHE")
}

// sizeFlag is a size in bytes, with an optional K, M or G (powers of 1024).
type sizeFlag struct{ p *int64 }

// sizeVar defines a size flag with default def.
func sizeVar(fs *flagSet, p *int64, name string, def int64, usage string) {
	*p = def
	fs.Var(&sizeFlag{p}, name, usage)
}

func (f *sizeFlag) String() string {
	if f.p == nil {
		return ""
	}
	return formatSize(*f.p)
}

// formatSize writes n bytes as the flag reads them, in the largest unit
// that divides it.
func formatSize(n int64) string {
	for _, u := range []struct {
		s string
		n int64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if n >= u.n && n%u.n == 0 {
			return strconv.FormatInt(n/u.n, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

func (f *sizeFlag) Set(s string) error {
	t := strings.ToUpper(strings.TrimSpace(s))
	mul := int64(1)
	for suffix, m := range map[string]int64{"K": 1 << 10, "M": 1 << 20, "G": 1 << 30} {
		if strings.HasSuffix(t, suffix) {
			t, mul = strings.TrimSuffix(t, suffix), m
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mul {
		return fmt.Errorf("want %s", f.allowed())
	}
	*f.p = n * mul
	return nil
}

func (f *sizeFlag) Get() any            { return *f.p }
func (f *sizeFlag) placeholder() string { return "SIZE" }
func (f *sizeFlag) allowed() string     { return "a number of bytes, with K, M or G for KiB, MiB or GiB" }

// stopFlag is a stop condition (autotune.ParseStop), checked as it is
// given.
type stopFlag struct{ p *autotune.Stop }

func stopVar(fs *flagSet, p *autotune.Stop, usage string) {
	fs.Var(&stopFlag{p}, "stop", usage)
}

func (f *stopFlag) String() string {
	if f.p == nil || *f.p == nil {
		return ""
	}
	return (*f.p).String()
}

func (f *stopFlag) Set(s string) error {
	c, err := autotune.ParseStop(s)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "autotune: "))
	}
	*f.p = c
	return nil
}

// openingFlag is the opening strategy's settings
// (strategies.ParseOpening), checked as they are given.
type openingFlag struct{ p *strategies.OpeningSettings }

// openingVar defines --opening, the opening strategy's settings, on p.
func openingVar(fs *flagSet, p *strategies.OpeningSettings) {
	fs.Var(&openingFlag{p}, "opening", "the settings of strategy opening (opening only), as `KEY=VALUE,...`, e.g. global-rounds=2,omit-illegal; keys: "+strings.Join(strategies.OpeningKeys(), "; "))
}

func (f *openingFlag) String() string {
	if f.p == nil {
		return ""
	}
	return f.p.String()
}

func (f *openingFlag) Set(s string) error {
	o, err := strategies.ParseOpening(s)
	if err != nil {
		return err
	}
	*f.p = o
	return nil
}

func (f *openingFlag) Get() any { return *f.p }

func (f *stopFlag) Get() any            { return *f.p }
func (f *stopFlag) placeholder() string { return "EXPR" }
func (f *stopFlag) allowed() string {
	return "conditions evals>=N, time>=D, space>=P%, stall>=N, stalltime>=D, best<=D joined by and, or and parentheses"
}

// strategyFlag is a search strategy, by name or unique prefix (one), or
// several separated by commas (list).
type strategyFlag struct {
	one  *string
	list *[]string
}

// strategyVar defines -s, one strategy, strategies.Default by default.
func strategyVar(fs *flagSet, p *string, usage string) {
	*p = strategies.Default
	fs.Var(&strategyFlag{one: p}, "s", usage)
}

// strategiesVar defines -s, strategies separated by commas, def by default.
func strategiesVar(fs *flagSet, p *[]string, def []string, usage string) {
	*p = def
	fs.Var(&strategyFlag{list: p}, "s", usage)
}

func (f *strategyFlag) String() string {
	switch {
	case f.one != nil:
		return *f.one
	case f.list != nil:
		return strings.Join(*f.list, ",")
	}
	return ""
}

func (f *strategyFlag) Set(s string) error {
	var names []string
	for _, part := range strings.Split(s, ",") {
		info, err := strategies.Lookup(strings.TrimSpace(part))
		if err != nil {
			return err
		}
		names = append(names, info.Name)
	}
	if f.one == nil {
		*f.list = names
		return nil
	}
	if len(names) != 1 {
		return fmt.Errorf("want one strategy, not %d", len(names))
	}
	*f.one = names[0]
	return nil
}

func (f *strategyFlag) Get() any {
	if f.one != nil {
		return *f.one
	}
	return *f.list
}

func (f *strategyFlag) placeholder() string {
	if f.one != nil {
		return "STRATEGY"
	}
	return "STRATEGY,..."
}

func (f *strategyFlag) allowed() string {
	which := "one of "
	if f.one == nil {
		which = "each one of "
	}
	return which + strings.Join(strategies.Names(), ", ") + " (a unique prefix is enough)"
}

// pinsFlag is --params: transform parameters pinned to values,
// name=value,... (transforms.ParsePins); text, if not nil, keeps the flag as
// given.
type pinsFlag struct {
	pins *map[transforms.Name]int
	text *string
}

// pinsVar defines --params.
func pinsVar(fs *flagSet, pins *map[transforms.Name]int, text *string, usage string) {
	fs.Var(&pinsFlag{pins, text}, "params", usage)
}

func (f *pinsFlag) String() string {
	if f.text == nil {
		return ""
	}
	return *f.text
}

func (f *pinsFlag) Set(s string) error {
	pins, err := transforms.ParsePins(s)
	if err != nil {
		return err
	}
	*f.pins = pins
	if f.text != nil {
		*f.text = s
	}
	return nil
}

func (f *pinsFlag) Get() any            { return *f.pins }
func (f *pinsFlag) placeholder() string { return "NAME=V,..." }
func (f *pinsFlag) allowed() string {
	var names []string
	for _, n := range transforms.Names() {
		names = append(names, string(n))
	}
	return "parameters " + strings.Join(names, ", ")
}

// intList is -n or -k: sizes from 1 to 2^31-1, separated by commas (or x,
// as in 1024x1024).
type intList []int

func (l *intList) String() string {
	if l == nil {
		return ""
	}
	parts := make([]string, len(*l))
	for i, v := range *l {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ",")
}

func (l *intList) Set(s string) error {
	*l = nil
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		fields := []string{part}
		if strings.Trim(part, "0123456789x") == "" && strings.Contains(part, "x") {
			fields = strings.Split(part, "x")
		}
		for _, f := range fields {
			v, err := strconv.Atoi(f)
			if err != nil || v < 1 || v > math.MaxInt32 {
				err := fmt.Errorf("want integers %s, separated by commas (as in 1024,512)", l.allowed())
				if part != s {
					err = fmt.Errorf("%q: %v", part, err)
				}
				return err
			}
			*l = append(*l, v)
		}
	}
	return nil
}

func (l *intList) Get() any            { return []int(*l) }
func (l *intList) placeholder() string { return "N,..." }
func (l *intList) allowed() string     { return "from 1 to 2^31-1" }

// deviceVar defines -d and --device.
func deviceVar(fs *flagSet, p *string) {
	fs.StringVar(p, "d", "", "OpenCL `DEVICE`: GPU, CPU, ACCELERATOR, P:D (platform and device, as hplopt devices lists them) or part of a name; \"\": the first GPU, else the first CPU")
	fs.alias("device", "d")
}

// sizeFlags are --size, -n and -k: the size of a benchmark; with several
// (defineSeveral), also --sizes, and -n and -k repeated.
type sizeFlags struct {
	class   string
	n, k    intList
	several bool
	classes []string  // --sizes
	ns, ks  []intList // -n and -k, repeated
	cl      clFlags   // --global, --arg and --shape, for a FILE.cl
}

func (s *sizeFlags) define(fs *flagSet) {
	fs.StringVar(&s.class, "size", "", "size `CLASS`: "+strings.Join(kernels.Classes, ", ")+" (the paper's Table 3), or a program's own; \"\": tiny (a program's smallest if it has no tiny) unless -n or -k is given")
	fs.Var(&s.n, "n", "points per global dimension, x first (one value for all)")
	fs.Var(&s.k, "k", "compute loop lengths, outermost first (one value for all)")
	s.cl.define(fs)
}

// defineSeveral defines the size flags of a verb that takes several sizes:
// --sizes, and -n and -k, each repeated for several sizes.
func (s *sizeFlags) defineSeveral(fs *flagSet) {
	s.several = true
	fs.StringVar(&s.class, "size", "", "size `CLASS`: "+strings.Join(kernels.Classes, ", ")+" (the paper's Table 3), or a program's own; \"\": tiny (a program's smallest if it has no tiny) unless -n, -k or --sizes is given")
	fs.Var(&classesFlag{&s.classes}, "sizes", "size classes, comma-separated: one run each")
	fs.Var(&intLists{&s.ns}, "n", "points per global dimension, x first (one value for all); repeated, one size each")
	fs.Var(&intLists{&s.ks}, "k", "compute loop lengths, outermost first (one value for all); repeated, one size each (or one for all)")
	s.cl.define(fs)
}

// classesFlag is --sizes: size classes separated by commas.
type classesFlag struct{ p *[]string }

func (f *classesFlag) String() string {
	if f.p == nil {
		return ""
	}
	return strings.Join(*f.p, ",")
}

func (f *classesFlag) Set(s string) error {
	var out []string
	for _, c := range strings.Split(s, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			return fmt.Errorf("%q: want %s", s, f.allowed())
		}
		out = append(out, c) // a program's own classes are checked against its kernel
	}
	*f.p = out
	return nil
}

func (f *classesFlag) Get() any            { return *f.p }
func (f *classesFlag) placeholder() string { return "CLASS,..." }
func (f *classesFlag) allowed() string {
	return "size classes: " + strings.Join(kernels.Classes, ", ") + " or a program's own"
}

// intLists is -n or -k given several times: one intList each.
type intLists struct{ p *[]intList }

func (f *intLists) String() string {
	if f.p == nil {
		return ""
	}
	var parts []string
	for _, l := range *f.p {
		parts = append(parts, l.String())
	}
	return strings.Join(parts, " ")
}

func (f *intLists) Set(s string) error {
	var l intList
	if err := l.Set(s); err != nil {
		return err
	}
	*f.p = append(*f.p, l)
	return nil
}

func (f *intLists) Get() any            { return *f.p }
func (f *intLists) placeholder() string { return "N,..." }
func (f *intLists) allowed() string     { return new(intList).allowed() }

// sizes resolves a verb's operands, one KERNEL, at the sizes the flags
// give (defineSeveral): the --sizes classes, then one size per -n (each
// with its -k, or the only -k), else the one size of --size, -n and -k.
func (s *sizeFlags) sizes(c *command, operands []string) (*kernels.Benchmark, []kernels.Size, error) {
	if b, size, ok, err := s.openCL(c, operands); ok {
		return b, []kernels.Size{size}, err
	}
	b, err := c.kernel(operands)
	if err != nil {
		return nil, nil, err
	}
	var out []kernels.Size
	for _, c := range s.classes {
		size, err := b.ParseSize(c, nil, nil)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, size)
	}
	if len(s.ks) > 1 && len(s.ns) > 1 && len(s.ks) != len(s.ns) {
		return nil, nil, fmt.Errorf("%d -n and %d -k: give one -k for all sizes, or one per -n", len(s.ns), len(s.ks))
	}
	for i := range max(len(s.ns), len(s.ks)) {
		var n, k []int
		if len(s.ns) > 0 {
			n = s.ns[min(i, len(s.ns)-1)]
		}
		if len(s.ks) > 0 {
			k = s.ks[min(i, len(s.ks)-1)]
		}
		size, err := b.ParseSize(s.class, n, k)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, size)
	}
	if len(out) == 0 || s.class != "" && len(s.classes) > 0 && len(s.ns)+len(s.ks) == 0 {
		class := s.class
		if class == "" {
			class = b.DefaultClass()
		}
		size, err := b.ParseSize(class, nil, nil)
		if err != nil {
			return nil, nil, err
		}
		out = append([]kernels.Size{size}, out...)
	}
	return b, out, nil
}

// benchmark resolves a verb's operands, one KERNEL, at the size the flags
// give.
func (s *sizeFlags) benchmark(c *command, operands []string) (*kernels.Benchmark, kernels.Size, error) {
	if b, size, ok, err := s.openCL(c, operands); ok {
		return b, size, err
	}
	b, err := c.kernel(operands)
	if err != nil {
		return nil, kernels.Size{}, err
	}
	class := s.class
	if class == "" && s.n == nil && s.k == nil {
		class = b.DefaultClass()
	}
	size, err := b.ParseSize(class, s.n, s.k)
	return b, size, err
}
