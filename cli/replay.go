package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/records"
	"github.com/hplopt/hplopt/replay"
	"github.com/hplopt/hplopt/strategies"
)

const replayAbout = `Runs search strategies against recorded measurements instead of a device
(Kernel Tuner's simulation mode) and prints, per strategy, the median fraction
of the optimum reached after -e evaluations over --seeds searches, its
quartiles, and the methodology score ((found - random) / (optimum - random),
random search's expected best in closed form). The recorded space is a CSV
table (--table) or a problem of the tuning records measured densely or
exhaustively (--problem; hplopt tune -s exhaustive --params PINS records one):
every point recorded, failures as failures; a point never measured is
illegal. Strategies start from the start points the table gives (the
single-point setting and canonical shapes a live search starts from) unless
--no-start; with --tuned, each search first starts from the best of the
nearest of those tables of its kernel, carried to its sizes, as a live search
starts from its tuning records. --export-table writes the recorded space as a CSV table instead;
--landscape prints how it looks to a local search instead (rows near the
optimum, local minima, steepest descent, the fitness flow graph's proportion
of centrality, the start points' distance from the optimum). --tables replays
one strategy (-s, default the default) on every CSV table its globs match
instead, each with --share of its rows, and prints how each stands against
the target (a median of 0.95 of the optimum after 2.5% of the rows, and
beating random search from 20 evaluations) and how many meet it.`

func init() {
	register(verb{name: "replay", summary: "run search strategies on a recorded table instead of a device and score them", run: replayVerb,
		flags: func() *flagSet { fs, _ := replayFlags(); return fs }})
}

// replayFlags defines replay's flags; the values are read after parsing.
type replayFlagValues struct {
	table, problem, db, export, at, js, plot  string
	tables, subset, against, tuned            string
	share, noise                              float64
	parallel                                  int
	then                                      string
	opening                                   strategies.OpeningSettings
	noStart, landscape, tunedFound            bool
	stop                                      autotune.Stop
	strats                                    []string
	evals, seeds, firstSeed, batch, tunedSeed int
}

func replayFlags() (*flagSet, *replayFlagValues) {
	v := &replayFlagValues{}
	fs := newFlagSet("replay", "", replayAbout)
	fs.StringVar(&v.table, "table", "", "recorded space: a CSV `FILE` with a header, a column per parameter and time_ms (a time or fail)")
	fs.StringVar(&v.problem, "problem", "", "recorded space: the evaluations of the records' problem `ID|KERNEL` (an ID prefix, or the records' kernel name with one problem recorded; hplopt db list shows them)")
	fs.StringVar(&v.db, "db", "", "the tuning records database `PATH` of --problem (\"\": $HPLOPT_DB, else records.db under hplopt's cache directory); given alone, its only problem")
	fs.StringVar(&v.export, "export-table", "", "write the recorded space as a CSV table to `FILE` (with its problem and start points as # lines) and replay nothing")
	fs.BoolVar(&v.landscape, "landscape", false, "print how the recorded space looks to a local search (rows near the optimum, local minima, steepest descent, the fitness flow graph's proportion of centrality, the start points' distance from the optimum; --json writes it) and replay nothing")
	fs.BoolVar(&v.noStart, "no-start", false, "give the strategies no start points: each starts from random points (with --tuned, from the records still)")
	fs.BoolVar(&v.tunedFound, "tuned-found", false, "with --tuned, take of each tuned table only the rows one search of the default measured (seed --tuned-seed, a tenth of the table, from its start points), as a user's earlier search leaves them in the records, instead of every row")
	intVar(fs, &v.tunedSeed, "tuned-seed", 1, 1, 1<<31-1, "with --tuned-found, the seed of the search of each tuned table")
	fs.StringVar(&v.tuned, "tuned", "", "CSV tables these `GLOBS` match (comma-separated) taken for problems tuned before: each search first starts from the best setting of the 3 nearest in shape of its kernel's family (the same device, driver and search-space version; else of the 2 nearest on the platform's other devices or drivers), carried to its sizes, as a live search starts from its tuning records (of each problem its fastest row that has the replayed table's pins, the parameters it holds at one value; its own problem left out)")
	var names []string
	for _, n := range strategies.Names() {
		if n != strategies.Exhaustive {
			names = append(names, n)
		}
	}
	strategiesVar(fs, &v.strats, names, "strategies to replay, comma-separated")
	intVar(fs, &v.evals, "e", 0, 0, 1<<31-1, "evaluations per search, illegal points not counted (at most as many; 0: 10% of the table, at least 20)")
	intVar(fs, &v.seeds, "seeds", 20, 1, 100000, "searches per strategy (seeds 1 to N, or from --first-seed)")
	intVar(fs, &v.firstSeed, "first-seed", 1, 1, 1<<31-1, "the seed of each strategy's first search, to check a result on other seeds (--first-seed 21 --seeds 20: seeds 21 to 40)")
	batchVar(fs, &v.batch)
	thenVar(fs, &v.then)
	openingVar(fs, &v.opening)
	stopVar(fs, &v.stop, "stop condition `EXPR`, e.g. \"stall>=50 or best<=0.1ms\" (time conditions read the recorded costs; the syntax of hplopt tune --stop)")
	fs.StringVar(&v.tables, "tables", "", "replay one strategy on every CSV table these `GLOBS` match (comma-separated), each with --share of its rows, and print how each stands against the target (0.95 of the optimum after 2.5% of the rows, median of the seeds, and beating random search from 20 evaluations) and how many meet it")
	floatVar(fs, &v.noise, "noise", 0, 0, 1, "measurement noise `SPREAD`: each successful evaluation returns its row's time times exp(SPREAD*Z), Z a standard normal drawn per evaluation (0.02: about 2%, a live search's repeat measurements' spread), and a search's best is the recorded time of the point it measured fastest (0: the recorded times)")
	floatVar(fs, &v.share, "share", 0.1, 0.001, 1, "with --tables, each table's budget of evaluations as a share of its rows (at least 20 evaluations)")
	fs.StringVar(&v.subset, "subset", "", "with --tables, a `FILE` of table file names, one a line (# comments): the counts also over those alone (testdata/replay/repeating.txt: the tables that repeat)")
	intVar(fs, &v.parallel, "parallel", 2, 1, 1024, "with --tables, the tables replayed at once")
	fs.StringVar(&v.against, "against", "", "with --tables, compare with an earlier replay's --json `FILE`: print the tables whose median after 2.5% or whose beating random search changed, and the tables gained and lost")
	fs.StringVar(&v.at, "at", "", "also print the figures after these `BUDGETS`: evaluation counts or percentages of the table (20,1%,2.5%)")
	fs.StringVar(&v.js, "json", "", "write the results (a list of objects: strategy, evaluations, median_fraction, quartiles, score, curve) to `FILE`")
	fs.StringVar(&v.plot, "plot", "", "write a PNG of the fraction of the optimum against evaluations to `FILE`")
	return fs, v
}

// replayConfig is one `hplopt replay`.
type replayConfig struct {
	Table   string // CSV file, or
	Problem string // a problem of the records database DB
	DB      string
	Export  string
	// Landscape prints the recorded space's landscape instead of a replay.
	Landscape bool
	Run       replay.Config
	At        []string // budgets of the extra lines, as given: counts or percentages of the table
	JSON      string
	Plot      string
	// Tables, when given, are globs of CSV tables, each replayed with
	// Share of its rows and scored against the target (replayTables);
	// Subset a file naming some of them, counted apart too; Parallel the
	// tables replayed at once.
	Tables   string
	Share    float64
	Subset   string
	Parallel int
	// Against is an earlier --tables --json output to compare with.
	Against string
	// Tuned are globs of CSV tables taken for problems tuned before
	// (replay.Nearest gives each search's Config.Records from them);
	// with TunedFound, only the rows one search of the default measured
	// (seed TunedSeed)
	// of each (replay.Searched).
	Tuned      string
	TunedFound bool
	TunedSeed  int
}

func parseReplay(args []string) (*replayConfig, *flagSet, error) {
	fs, v := replayFlags()
	if err := fs.noOperands(args); err != nil {
		return nil, fs, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if v.tables != "" {
		for _, n := range []string{"table", "problem", "db", "export-table", "landscape", "plot", "at", "e"} {
			if given[n] {
				dash := "--"
				if len(n) == 1 {
					dash = "-"
				}
				return nil, fs, fmt.Errorf("%s%s is for one table; --tables replays each table with --share of its rows", dash, n)
			}
		}
		if !given["s"] {
			v.strats = []string{strategies.Default}
		}
		if len(v.strats) != 1 {
			return nil, fs, fmt.Errorf("--tables replays one strategy, not %d (-s %s)", len(v.strats), strings.Join(v.strats, ","))
		}
	} else {
		for _, n := range []string{"share", "subset", "parallel", "against"} {
			if given[n] {
				return nil, fs, fmt.Errorf("--%s is for --tables", n)
			}
		}
	}
	switch {
	case v.tables != "":
	case v.table == "" && v.problem == "" && v.db == "":
		return nil, fs, errors.New("no --table, --tables, --problem or --db given")
	case v.table != "" && (v.problem != "" || v.db != ""):
		return nil, fs, errors.New("give --table or the records (--problem, --db), not both")
	case v.landscape && v.export != "":
		return nil, fs, errors.New("give --landscape or --export-table, not both")
	case v.landscape && v.plot != "":
		return nil, fs, errors.New("--plot draws a replay; --landscape replays nothing")
	case v.tuned != "" && (v.landscape || v.export != ""):
		return nil, fs, errors.New("--tuned starts the searches of a replay; --landscape and --export-table replay nothing")
	case v.tunedFound && v.tuned == "":
		return nil, fs, errors.New("--tuned-found is for --tuned")
	case given["tuned-seed"] && !v.tunedFound:
		return nil, fs, errors.New("--tuned-seed is for --tuned-found")
	}
	cfg := &replayConfig{Table: v.table, Problem: v.problem, DB: v.db, Export: v.export, Landscape: v.landscape, JSON: v.js, Plot: v.plot,
		Tables: v.tables, Share: v.share, Subset: v.subset, Parallel: v.parallel, Against: v.against, Tuned: v.tuned, TunedFound: v.tunedFound, TunedSeed: v.tunedSeed,
		Run: replay.Config{Evaluations: v.evals, Seeds: v.seeds, FirstSeed: v.firstSeed, Strategies: v.strats, Stop: v.stop, NoStart: v.noStart, Batch: v.batch,
			Opening: v.opening, Noise: v.noise}}
	var err error
	if cfg.Run.Opening, err = v.opening.WithThen(v.then); err != nil {
		return nil, fs, err
	}
	if err := (strategies.Options{Opening: cfg.Run.Opening}).Check(strategies.Opening); err != nil {
		return nil, fs, fmt.Errorf("--then: %w", err)
	}
	if v.tables != "" {
		// One strategy for every table: refused once, not per table.
		info, err := strategies.Lookup(v.strats[0])
		if err == nil {
			err = (strategies.Options{Opening: cfg.Run.Opening, Batch: v.batch}).Check(info.Name)
		}
		if err != nil {
			return nil, fs, err
		}
	}
	if v.at != "" {
		cfg.At = strings.Split(v.at, ",")
	}
	return cfg, fs, nil
}

// load reads the recorded space the flags name, with its source.
func (cfg *replayConfig) load() (*replay.Table, replay.Source, error) {
	if cfg.Table != "" {
		c, err := replay.OpenCSV(cfg.Table)
		if err != nil {
			return nil, nil, err
		}
		t, err := replay.Load(c, cfg.Table)
		return t, c, err
	}
	path, _, err := recordsPath(cfg.DB)
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, nil, fmt.Errorf("no records database at %s", path)
	}
	db, err := records.Open(path, records.Options{ReadOnly: true})
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	src, err := replay.FromRecords(db, cfg.Problem, optimizer.ParamOrder())
	if err != nil {
		return nil, nil, err
	}
	p := src.Problem()
	t, err := replay.Load(src, fmt.Sprintf("%s %s (problem %s)", p.Key.Kernel, p.Key.Sizes(), p.ID[:12]))
	return t, src, err
}

// exportTable writes the recorded space of src as a CSV table to file.
func exportTable(file string, src replay.Source) error {
	var meta [][2]string
	switch s := src.(type) {
	case *replay.Records:
		meta = s.Meta()
	case *replay.CSV:
		meta = s.Meta()
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := errors.Join(replay.WriteCSV(f, src, meta), f.Close()); err != nil {
		os.Remove(file)
		return err
	}
	return nil
}

// budget reads a --at entry: a count, or a percentage of size points
// (rounded up).
func budget(s string, size int) (int, error) {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || f <= 0 || f > 100 {
			return 0, fmt.Errorf("--at %s: want a count or a percentage in (0, 100]", s)
		}
		return max(1, int(math.Ceil(f/100*float64(size)))), nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("--at %s: want a count or a percentage in (0, 100]", s)
	}
	return n, nil
}

// replayVerb is `hplopt replay`: replay strategies on a recorded table and
// print, per strategy, the median fraction of the optimum reached after N
// evaluations, its quartiles and the methodology score.
func replayVerb(_ *command, args []string, stdout, stderr io.Writer) int {
	cfg, fs, err := parseReplay(args)
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	if cfg.Tables != "" {
		return replayTables(cfg, stdout, stderr)
	}
	t, src, err := cfg.load()
	if err == nil && cfg.Export != "" {
		if err = exportTable(cfg.Export, src); err == nil {
			fmt.Fprintf(stdout, "wrote %s: %d points (%d failed), %d start points\n", cfg.Export, t.Len(), t.Failed(), len(t.Start()))
			return 0
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "hplopt replay: %v\n", err)
		return 1
	}
	if cfg.Landscape {
		return printLandscape(cfg, t, stdout, stderr)
	}
	var tuned []string
	if cfg.Tuned != "" {
		others, err := cfg.tunedTables(nil)
		if err != nil {
			fmt.Fprintf(stderr, "hplopt replay: %v\n", err)
			return 1
		}
		cfg.Run.Records, tuned = replay.Nearest(t, others)
	}
	if cfg.Run.Evaluations == 0 {
		cfg.Run.Evaluations = max(20, (t.Len()+9)/10)
	}
	var at []int
	for _, s := range cfg.At {
		n, err := budget(s, t.Len())
		if err == nil && n > cfg.Run.Evaluations {
			err = fmt.Errorf("--at %s: %d evaluations, more than -e %d", s, n, cfg.Run.Evaluations)
		}
		if err != nil {
			return fs.usageError(err, stdout, stderr)
		}
		if !slices.Contains(at, n) {
			at = append(at, n)
		}
	}
	slices.Sort(at)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	results, err := replay.Replay(ctx, t, cfg.Run)
	if err != nil {
		fmt.Fprintf(stderr, "hplopt replay: %v\n", err)
		return 1
	}
	n := cfg.Run.Evaluations
	start := fmt.Sprintf("%d start points", len(t.Start()))
	if cfg.Run.NoStart {
		start = "no start points"
	}
	random := t.ExpectedRandom(n)
	first, searches := cfg.Run.SeedRange()
	seeds := fmt.Sprintf("%d seeds", searches)
	if first > 1 {
		seeds += fmt.Sprintf(" from %d", first)
	}
	fmt.Fprintf(stdout, "# %s: %d points (%d failed), optimum %.4g ms; %d evaluations (%.1f%%), %s, %s; random search's expected best %.4g ms (fraction %.3f)\n",
		t.Name(), t.Len(), t.Failed(), t.Optimum(), n, 100*float64(n)/float64(t.Len()), seeds, start, random, t.Optimum()/random)
	if cfg.Tuned != "" {
		fmt.Fprintf(stdout, "# %s\n", cfg.tunedLine(tuned))
	}
	if cfg.Run.Noise > 0 {
		fmt.Fprintf(stdout, "# %s\n", cfg.noiseLine())
	}
	for _, r := range results {
		if r.Settings != "" {
			fmt.Fprintf(stdout, "# strategy %s's settings: %s (the others its defaults)\n", r.Strategy, r.Settings)
		}
	}
	for _, r := range results {
		yes := "no"
		if r.BeatsRandom {
			yes = "yes"
		}
		fmt.Fprintf(stdout, "%s fraction=%.3f q1=%.3f q3=%.3f score=%.3f beats-random-from-%d=%s\n", r.Strategy, r.MedianFraction, r.Q1Fraction, r.Q3Fraction, r.Score, r.From, yes)
	}
	for _, k := range at {
		fmt.Fprintf(stdout, "# after %d evaluations (%.1f%%): random search's expected fraction %.3f\n", k, 100*float64(k)/float64(t.Len()), t.Optimum()/t.ExpectedRandom(k))
		for _, r := range results {
			p := r.At(k)
			fmt.Fprintf(stdout, "%s@%d fraction=%.3f q1=%.3f q3=%.3f score=%.3f\n", r.Strategy, k, p.MedianFraction, p.Q1Fraction, p.Q3Fraction, p.Score)
		}
	}
	status := writeReplayJSON(cfg.JSON, results, stderr)
	if cfg.Plot != "" {
		if err := replay.WritePlot(cfg.Plot, t, results); err != nil {
			fmt.Fprintf(stderr, "hplopt replay: %v\n", err)
			status = 1
		}
	}
	return status
}

// printLandscape prints the table's landscape (replay.Table.Landscape): a
// comment line of what the figures are, then one line of them; --json
// writes them as an object.
func printLandscape(cfg *replayConfig, t *replay.Table, stdout, stderr io.Writer) int {
	if t.Failed() == t.Len() {
		fmt.Fprintf(stderr, "hplopt replay: %s: every recorded point failed: no landscape\n", t.Name())
		return 1
	}
	l := t.Landscape()
	at, _ := budget("2.5%", t.Len()) // a valid percentage
	fmt.Fprintf(stdout, "# %s: %d points (%d failed), optimum %.4g ms; moves: one parameter to the adjacent value of its range; near: at least %.2f of the optimum; random search's expected fraction after 2.5%% (%d evaluations) %.3f\n",
		t.Name(), t.Len(), t.Failed(), t.Optimum(), replay.Near, at, t.Optimum()/t.ExpectedRandom(at))
	fmt.Fprintf(stdout, "# near: rows near the optimum; minima: rows with no faster neighbour (near-minima: of them near); descent: share of rows whose steepest descent ends near; centrality: the near minima's share of the minima's PageRank (damping %.2f) in the fitness flow graph; start-best: the best start point's fraction; start-moves: fewest moves from a start point to a near row (-1: none)\n", replay.Damping)
	fmt.Fprintf(stdout, "landscape near=%d minima=%d near-minima=%d descent=%.3f centrality=%.3f start-best=%.3f start-moves=%d\n",
		l.Near, l.Minima, l.NearMinima, l.Descent, l.Centrality, l.StartBest, l.StartMoves)
	if len(l.Starts) > 0 {
		fmt.Fprintln(stdout, "# each start point (the parameters the table varies): its fraction of the optimum (0: not a successful row), where its steepest descent ends, its fewest moves to a near row")
	}
	for _, s := range l.Starts {
		fmt.Fprintf(stdout, "start fraction=%.3f descent-end=%.3f moves=%d %s\n", s.Fraction, s.Descent, s.Moves, s.Point)
	}
	return writeReplayJSON(cfg.JSON, l, stderr)
}

// writeReplayJSON writes v as indented JSON to file (nothing when file is
// ""); it returns the exit status, 1 with the error on stderr.
func writeReplayJSON(file string, v any, stderr io.Writer) int {
	if file == "" {
		return 0
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err == nil {
		err = os.WriteFile(file, append(data, '\n'), 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hplopt replay: %v\n", err)
		return 1
	}
	return 0
}
