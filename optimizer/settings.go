package optimizer

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/genetic"
	"github.com/hplopt/hplopt/records"
	"github.com/hplopt/hplopt/runner"
	"github.com/hplopt/hplopt/strategies"
	"github.com/hplopt/hplopt/transforms"
)

// Settings controls a search of the optimizer's parameters: the paper's
// OptimizerSettings. The zero value searches with the genetic algorithm
// for 60 seconds with seed 1.
type Settings struct {
	// Strategy names a search strategy of package strategies (a unique
	// prefix is enough). Default "": strategies.Default.
	Strategy string
	// Seed makes the search reproducible. Default 0: 1.
	Seed uint64
	// Time is the budget of the whole tuning (the paper's -t), in wall
	// time: starting the worker and the builders and timing the
	// single-point kernel (with fewer timed launches than Runs when they
	// would take more than a quarter of it, and only its warm-up launch
	// when one would) count, and the search takes the rest. A tuning ends
	// within one evaluation of it; a single-point kernel whose warm-up
	// launch does not end within it is an error. A variant's build (on
	// PoCL with its first launch's compilation) is limited to a tenth of
	// it, from 10 s to 1 min. Default 0: 60 s.
	Time time.Duration
	// Evals bounds the number of evaluations (-e). Default 0: no bound.
	Evals int
	// Stop ends the search when it holds (--stop, autotune.ParseStop's
	// syntax: "evals>=500 or stall>=100"), combined with Time and Evals:
	// whichever comes first. Given alone, it asks for a search as Time and
	// Evals do (the records' best is not reused without one), within the
	// default 60 s. Default nil: no condition.
	Stop autotune.Stop
	// Timeout is the fixed part of the limit on one variant's runs, on top
	// of 20 times the single-point kernel's time. Default 0: 10 s.
	Timeout time.Duration
	// SlowLimit stops a variant whose first launch runs longer than
	// SlowLimit times the single-point kernel's time (or the best
	// variant's, when it is slower or there is none), but not before
	// SlowFloor, so that a loaded host's noise does not stop a correct
	// variant: it is a timeout whose message says so ("slower than 10 x
	// the single-point kernel's 71 ms: stopped after 1 s"), and the search
	// goes on at once instead of waiting out the run limit (Timeout). The
	// limit never exceeds the run limit; the single-point kernel is not
	// subject to it; on PoCL, a first launch that compiles (a grid of
	// 65535 or more in a dimension) gets the build limit on top of it.
	// Default 0: 10 (DefaultSlowLimit); negative: no limit.
	SlowLimit float64
	// Progress, if not nil, is called after each evaluation. Default nil.
	Progress func(autotune.Progress)
	// Genetic tunes the genetic algorithm. Default: genetic.Settings{}.
	Genetic genetic.Settings
	// Batch is the number of points bayes chooses together each round
	// (strategies.Options.Batch; --batch), so that the builders build
	// them in parallel; only bayes takes it. Default 0: 1.
	Batch int
	// Then names the search that takes over from the opening strategy's
	// hybrid (strategies.OpeningSettings.Then; --then): "genetic" or
	// "model"; other strategies ignore it. Default "": genetic.
	Then string
	// Opening tunes the opening strategy (strategies.OpeningSettings;
	// --opening): its candidates and the defaults it may change. Then,
	// when given, is its continuation; the two may not disagree. Other
	// strategies refuse any but the defaults. Default: the zero value,
	// the opening's defaults.
	Opening strategies.OpeningSettings
	// Stderr receives the measurement worker's messages. Default nil.
	Stderr io.Writer
	// Runs is the number of timed launches per variant (the median
	// counts), after one warm-up. Default 0: 5.
	Runs int
	// Fixed pins optimizer parameters to values; the
	// search runs over the others. Default nil.
	Fixed map[transforms.Name]int
	// Builders is the number of builder processes that build upcoming
	// variants, each in its own OpenCL context, while one is measured
	// (processes: NVIDIA's OpenCL compiler serializes the builds of a
	// process). Default 0: runner.DefaultBuilders(), the host's cores less
	// one; negative: none, the measuring worker builds.
	Builders int
	// Builds is how many upcoming variants are prepared (generated and
	// given to the builders) ahead of the one measured. Default 0: twice
	// the builders, at least 4.
	Builds int
	// Order is the order in which the variants built ahead are measured.
	// Default OrderReady.
	Order Order
	// Check says where the variants' outputs are compared with the
	// expected ones. Default runner.CheckOnAuto: on a device that is not
	// a CPU, on the device.
	Check runner.CheckOn
	// Cache is the directory of built programs kept between tunings
	// (runner.Cache: the builders' binaries, PoCL's kernel cache), so that
	// a repeated or resumed search builds nothing twice; NoCache: none (and
	// PoCL's cache where the environment says). Default "":
	// runner.DefaultCacheDir().
	Cache string
	// CacheMax bounds the cache's size in bytes: a tuning prunes it to that
	// at its start, least recently used entries first. Default 0:
	// runner.DefaultCacheMax (1 GiB).
	CacheMax int64
	// Records is the records database (package records) the tuning looks
	// up first, as Reuse says, and where every evaluation it measures is
	// recorded as it is measured. Default nil: no records for Tune; hpl's
	// Optimize and Tune then use DefaultRecords unless NoRecords is set.
	// When the database fails (locked, read-only, broken) the tuning warns
	// once and goes on in memory.
	Records *records.DB
	// NoRecords keeps hpl's Optimize and Tune from using the default
	// records database when Records is nil. Default false.
	NoRecords bool
	// Reuse says how the records of earlier runs are used. Default
	// ReuseBest: a cut run of the same settings is resumed, else the
	// recorded best is run without searching.
	Reuse Reuse
	// Warn, if not nil, receives each warning as it happens (the records
	// database failing). Default nil; Tuning.Warnings keeps them either
	// way.
	Warn func(msg string)
}

func (s Settings) withDefaults() Settings {
	if s.Strategy == "" {
		s.Strategy = strategies.Default
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.Time == 0 {
		s.Time = 60 * time.Second
	}
	return s
}

// DefaultSlowLimit is Settings.SlowLimit's default: a variant whose first
// launch runs ten times longer than the single-point kernel is stopped.
const DefaultSlowLimit = 10

// SlowFloor is the least time a variant's first launch is given before
// Settings.SlowLimit stops it, whatever the single-point kernel's time.
const SlowFloor = time.Second

// slowLimit is SlowLimit with its default: 0 for no limit.
func (s Settings) slowLimit() float64 {
	switch {
	case s.SlowLimit == 0:
		return DefaultSlowLimit
	case s.SlowLimit < 0 || math.IsNaN(s.SlowLimit):
		return 0
	}
	return s.SlowLimit
}

// NoCache, as Settings.Cache, keeps no built programs.
const NoCache = "off"

// Order is an order of measuring the variants built ahead.
type Order int

const (
	// OrderReady measures first whichever upcoming variant's build ended
	// first, so that the device does not wait for a slow build while
	// others are ready; the strategy still hears the results in the order
	// it proposed the points, so a seed reproduces the search (within a
	// budget, which points it reaches depends on times, as always). Each
	// evaluation's Result.Order says when it was measured.
	OrderReady Order = iota
	// OrderProposed measures the variants in the order the strategy
	// proposed them, waiting for each one's build.
	OrderProposed
)

// Orders lists the orders by name, as the command line's --order takes
// them.
var Orders = map[string]Order{"ready": OrderReady, "proposed": OrderProposed}

func (o Order) String() string {
	for name, x := range Orders {
		if x == o {
			return name
		}
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

func (s Settings) builders() int {
	if s.Builders == 0 {
		return runner.DefaultBuilders()
	}
	return s.Builders
}

func (s Settings) builds() int {
	if s.Builds <= 0 {
		return max(4, 2*s.builders())
	}
	return s.Builds
}

// ParseSettings reads settings from command-line arguments, as the paper's
// OptimizerSettings(argc, argv): -s STRATEGY (a prefix is enough: -s g),
// -t SECONDS, -e EVALUATIONS, --seed N, --stop EXPR (autotune.ParseStop),
// --opening SETTINGS (strategies.ParseOpening). It returns the arguments
// it does not know, for the caller's own flags.
func ParseSettings(args []string) (Settings, []string, error) {
	var s Settings
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			rest = append(rest, a)
			continue
		}
		switch name {
		case "s", "t", "e", "seed", "stop", "opening":
		default:
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return s, nil, fmt.Errorf("optimizer: flag -%s needs a value", name)
			}
			i++
			val = args[i]
		}
		if err := s.set(name, val); err != nil {
			return s, nil, err
		}
	}
	return s, rest, nil
}

func (s *Settings) set(name, val string) error {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var secs float64
	var n int
	var seed uint64
	fs.Float64Var(&secs, "t", 0, "")
	fs.IntVar(&n, "e", 0, "")
	fs.Uint64Var(&seed, "seed", 0, "")
	switch name {
	case "s":
		st, err := strategies.Lookup(val)
		s.Strategy = st.Name
		return err
	case "t":
		err := fs.Parse([]string{"-t", val})
		d, ok := autotune.Seconds(secs, autotune.MinBudget, autotune.MaxBudget)
		if err != nil || !ok {
			return fmt.Errorf("optimizer: -t %s: want a number of seconds from %g to %g", val, autotune.MinBudget.Seconds(), autotune.MaxBudget.Seconds())
		}
		s.Time = d
	case "e":
		if err := fs.Parse([]string{"-e", val}); err != nil || n <= 0 {
			return fmt.Errorf("optimizer: -e %s: want a positive number of evaluations", val)
		}
		s.Evals = n
	case "stop":
		c, err := autotune.ParseStop(val)
		if err != nil {
			return fmt.Errorf("optimizer: --stop: %w", err)
		}
		s.Stop = c
	case "opening":
		o, err := strategies.ParseOpening(val)
		if err != nil {
			return fmt.Errorf("optimizer: --opening: %w", err)
		}
		s.Opening = o
	case "seed":
		if err := fs.Parse([]string{"-seed", val}); err != nil {
			return fmt.Errorf("optimizer: --seed %s: want a non-negative integer", val)
		}
		s.Seed = seed
	}
	return nil
}

// opening returns the opening's settings: Opening, its continuation Then
// when given; an error when the two name different continuations.
func (s Settings) opening() (strategies.OpeningSettings, error) {
	o, err := s.Opening.WithThen(s.Then)
	if err != nil {
		return o, fmt.Errorf("optimizer: %w", err)
	}
	return o, nil
}

// StrategySettings returns the settings of the strategy that differ from
// its defaults, as its flag takes them: the opening's
// (strategies.OpeningSettings.String, its continuation included), ""
// for the defaults and for the other strategies.
func (s Settings) StrategySettings() string {
	o, err := s.opening()
	if err != nil {
		return ""
	}
	return strategies.Options{Opening: o}.Settings(s.Strategy)
}
