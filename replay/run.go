package replay

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/genetic"
	"github.com/hplopt/hplopt/strategies"
)

// Config is one replay. The zero value of each field but Strategies and
// Evaluations works.
type Config struct {
	// Strategies names the strategies to replay (registry names or unique
	// prefixes). Required.
	Strategies []string
	// Evaluations is N, the evaluations of each search (its MaxEvals; the
	// strategies are told it as their budget). Required, at least 1.
	Evaluations int
	// Seeds is the number of searches per strategy, with seeds FirstSeed
	// to FirstSeed+Seeds-1. Default 0: 20.
	Seeds int
	// FirstSeed is the seed of the first search, so that another set of
	// seeds can check a result made with seeds 1 to 20. Default 0: 1.
	FirstSeed int
	// Stop ends a search early (autotune.ParseStop); its time conditions
	// read the simulated clock (the recorded costs). Default nil: each
	// search runs N evaluations or until its strategy is exhausted.
	Stop autotune.Stop
	// From is the first budget at which BeatsRandom is judged. Default 0:
	// 20 evaluations (or N when smaller).
	From int
	// NoStart replays without the table's start points (Table.Start):
	// strategies then start from random points. Default false: they get
	// them as strategies.Options.Seeds, as in a live search.
	NoStart bool
	// Genetic tunes the genetic algorithm, as optimizer.Settings.Genetic
	// does live. Default: genetic.Settings{}.
	Genetic genetic.Settings
	// Batch is bayes's points a round, as optimizer.Settings.Batch is
	// live (strategies.Options.Batch). Default 0: 1.
	Batch int
	// Lookahead, when positive, has Tune ask a strategy that knows its
	// upcoming points (autotune.Lookahead) for that many of them before
	// each evaluation, as a live search does for its builders (which the
	// replay has none of): a strategy whose order depends on what it
	// offered (the genetic search's local points) then searches in a live
	// search's order. Default 0: none asked.
	Lookahead int
	// Opening tunes strategy opening (strategies.Options.Opening); other
	// strategies ignore it. Default: strategies.OpeningSettings{}.
	Opening strategies.OpeningSettings
	// Records are settings that a live search's tuning records give it
	// (the best of the nearest recorded shapes of its kernel, carried to
	// its sizes: Nearest), given to the strategies before the table's
	// start points, as the optimizer gives them; those the table's space
	// does not hold once repaired are dropped. Default nil: none, a
	// search of a kernel never tuned.
	Records []map[string]int
	// Noise, when positive, replays with measurement noise: each
	// successful evaluation returns its row's time times exp(Noise * Z),
	// Z a standard normal drawn per evaluation from a source seeded by
	// the search's seed (Evaluator.Noisy; 0.02: about 2%). The strategies
	// see the noisy times; a search's best after n evaluations is then
	// the recorded time of the point it measured fastest, the setting a
	// live search would report, which need not be the fastest it
	// measured. Random search's expected best (Table.ExpectedRandom), which
	// the score and BeatsRandom measure against, stays that of the
	// recorded times: a stricter bar than random search measuring with
	// the same noise would set. Default 0: the recorded times, each the
	// same every time.
	Noise float64
}

// preparing is a table's evaluator that says it prepares points, so that
// Tune asks the strategy for its upcoming points; it prepares nothing.
type preparing struct{ *Evaluator }

func (preparing) Prepare(autotune.Point) {}

// Result is one strategy's replay.
type Result struct {
	Strategy    string `json:"strategy"`
	Evaluations int    `json:"evaluations"` // N
	Seeds       int    `json:"seeds"`
	// MedianFraction, Q1Fraction and Q3Fraction are the median and
	// quartiles over the seeds of the fraction of the optimum (optimum
	// time / best time found, 0 while none was found) after N
	// evaluations.
	MedianFraction float64 `json:"median_fraction"`
	Q1Fraction     float64 `json:"q1_fraction"`
	Q3Fraction     float64 `json:"q3_fraction"`
	// Score is the methodology score after N evaluations: (found -
	// random) / (optimum - random), found being the mean over the seeds of
	// the best time found and random random search's expected best after
	// N draws (Table.ExpectedRandom): 1 is the optimum every time, 0 no
	// better than random search, negative worse. A search that found
	// nothing counts as the slowest recorded time. Score is 0 when random
	// search's expectation is the optimum.
	Score float64 `json:"score"`
	// BeatsRandom says whether Score is positive at every budget from
	// From to N; at a budget where random search's expected best is the
	// optimum (at least as many evaluations as the table has successful
	// rows), where Score is 0, whether every search found the optimum.
	BeatsRandom bool `json:"beats_random"`
	From        int  `json:"beats_random_from"`
	// firstLoss is the first budget from From at which the search does
	// not beat random search (0 when BeatsRandom).
	firstLoss int
	// Curve has the same figures after each number of evaluations 1..N.
	Curve []Point `json:"curve"`
	// Stopped counts the searches by why they ended (autotune.StopReason
	// names).
	Stopped map[string]int `json:"stopped"`
	// Settings are strategy opening's settings that differ from its
	// defaults (Config.Opening, as strategies.ParseOpening reads them);
	// absent for the other strategies and for the defaults.
	Settings string `json:"settings,omitempty"`
}

// Point is a Result's figures after Evaluations evaluations.
type Point struct {
	Evaluations    int     `json:"evaluations"`
	MedianFraction float64 `json:"median_fraction"`
	Q1Fraction     float64 `json:"q1_fraction"`
	Q3Fraction     float64 `json:"q3_fraction"`
	Score          float64 `json:"score"`
}

// At returns the figures after n evaluations (1 <= n <= N).
func (r *Result) At(n int) Point { return r.Curve[n-1] }

// Replay runs each strategy of cfg on the table for cfg.Seeds seeds (1 to
// 20 by default), with
// autotune.Tune, the table's Evaluator and its simulated clock, and scores
// them. Each strategy is told the budget N and given the table's start
// points, as a live search is told -e and given the optimizer's. A search that ends before N evaluations (exhausted, or by the
// stop condition) keeps its best for the remaining budgets.
func Replay(ctx context.Context, t *Table, cfg Config) ([]*Result, error) {
	if len(cfg.Strategies) == 0 {
		return nil, fmt.Errorf("replay: no strategies to replay")
	}
	if cfg.Evaluations < 1 {
		return nil, fmt.Errorf("replay: %d evaluations, want at least 1", cfg.Evaluations)
	}
	if len(t.valid) == 0 {
		return nil, fmt.Errorf("replay: %s: every recorded point failed: nothing to score against", t.name)
	}
	var infos []strategies.Info
	for _, name := range cfg.Strategies {
		info, err := strategies.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		infos = append(infos, info)
	}
	// A batch is for the strategies that take one, and a continuation
	// after the opening for strategy opening (strategies.Options.Check);
	// the others replayed beside them ignore it.
	if err := checkAny(infos, strategies.Options{Batch: cfg.Batch}); err != nil {
		return nil, fmt.Errorf("replay: %w, and none of the strategies replayed takes one", err)
	}
	if err := checkAny(infos, strategies.Options{Opening: cfg.Opening}); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	var out []*Result
	for _, info := range infos {
		r, err := replayOne(ctx, t, cfg, info)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// checkAny returns opt.Check's error for the first of infos when Check
// refuses opt for every one of them, nil when one of them takes it.
func checkAny(infos []strategies.Info, opt strategies.Options) error {
	err := opt.Check(infos[0].Name)
	if err != nil && slices.ContainsFunc(infos, func(i strategies.Info) bool { return opt.Check(i.Name) == nil }) {
		return nil
	}
	return err
}

// SeedRange returns the seed of the first search and the number of
// searches per strategy, the defaults filled in.
func (c Config) SeedRange() (first, n int) {
	first, n = max(c.FirstSeed, 1), c.Seeds
	if n <= 0 {
		n = 20
	}
	return first, n
}

// replayOne replays one of cfg.Strategies, info, for cfg.Seeds seeds from
// cfg.FirstSeed and scores it (cfg's Strategies unread).
func replayOne(ctx context.Context, t *Table, cfg Config, info strategies.Info) (*Result, error) {
	first, seeds := cfg.SeedRange()
	from := cfg.From
	if from <= 0 {
		from = 20
	}
	from = min(from, cfg.Evaluations)
	best := make([][]float64, seeds) // per seed: best time after each evaluation
	stopped := map[string]int{}
	for s := range seeds {
		seed := uint64(first + s)
		rep, err := t.search(ctx, cfg, info, seed)
		if err != nil {
			return nil, fmt.Errorf("replay: %s, seed %d: %w", info.Name, seed, err)
		}
		if rep.Stopped == autotune.StopCancelled {
			return nil, fmt.Errorf("replay: %w", ctx.Err())
		}
		stopped[rep.Stopped.String()]++
		best[s] = bestSoFar(rep, cfg.Evaluations, t.recorded)
	}
	r := &Result{Strategy: info.Name, Evaluations: cfg.Evaluations, Seeds: seeds, From: from, Stopped: stopped,
		Settings: strategies.Options{Opening: cfg.Opening}.Settings(info.Name)}
	for n := 1; n <= cfg.Evaluations; n++ {
		p, random := t.score(best, n)
		r.Curve = append(r.Curve, p)
		if n >= from && r.firstLoss == 0 && !t.beats(best, n, p, random) {
			r.firstLoss = n
		}
	}
	r.BeatsRandom = r.firstLoss == 0
	last := r.At(cfg.Evaluations)
	r.MedianFraction, r.Q1Fraction, r.Q3Fraction, r.Score = last.MedianFraction, last.Q1Fraction, last.Q3Fraction, last.Score
	return r, nil
}

// Search runs one search of strategy (a registry name or a unique prefix)
// on the table with cfg's settings (its Strategies, Seeds and FirstSeed
// unread) and seed seed, as Replay runs each of its searches: the
// report's history holds the points it proposed, in order, with their
// recorded results.
func (t *Table) Search(ctx context.Context, cfg Config, strategy string, seed uint64) (*autotune.Report, error) {
	info, err := strategies.Lookup(strategy)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if cfg.Evaluations < 1 {
		return nil, fmt.Errorf("replay: %d evaluations, want at least 1", cfg.Evaluations)
	}
	return t.search(ctx, cfg, info, seed)
}

// search runs one search of strategy info on the table with cfg's
// settings and seed seed, from its records and start points (seeds), on
// the table's Evaluator and simulated clock.
func (t *Table) search(ctx context.Context, cfg Config, info strategies.Info, seed uint64) (*autotune.Report, error) {
	ev := t.Evaluator()
	if cfg.Noise > 0 {
		ev.Noisy(cfg.Noise, seed)
	}
	opt := strategies.Options{Evaluations: cfg.Evaluations, Genetic: cfg.Genetic, Batch: cfg.Batch, Opening: cfg.Opening}
	opt.Seeds = t.seeds(cfg.Records, !cfg.NoStart)
	strat := info.New(t.space, autotune.NewRand(seed), opt)
	set := autotune.Settings{MaxEvals: cfg.Evaluations, Seed: seed, Stop: cfg.Stop, Clock: ev.Clock}
	var eval autotune.Evaluator = ev
	if cfg.Lookahead > 0 {
		set.Lookahead, eval = cfg.Lookahead, preparing{ev}
	}
	return autotune.Tune(ctx, set, t.space, strat, eval)
}

// bestSoFar returns the best time after each of the first n evaluations of
// rep that count against the budget (+Inf before the first success), the
// last carried on when the search ended early: the time truth gives the
// evaluation with the best result so far (nil: its result's time, its
// Fitness). The evaluations that do not
// count (autotune.Eval.Counted: points rejected as Illegal, not rows of the
// table or illegal rows, up to autotune.RejectedPerEval per evaluation of
// the search's budget) take no place in the curve, as random search's
// expected best draws among the recorded times only.
func bestSoFar(rep *autotune.Report, n int, truth func(autotune.Eval) float64) []float64 {
	out := make([]float64, 0, n)
	best, seen := math.Inf(1), math.Inf(1)
	for _, e := range rep.History {
		if len(out) == n {
			break
		}
		if f := e.Result.Fitness(); f < seen {
			seen, best = f, f
			if truth != nil {
				best = truth(e)
			}
		}
		if e.Counted {
			out = append(out, best)
		}
	}
	for len(out) < n {
		out = append(out, best)
	}
	return out
}

// recorded returns the recorded time of e's point (its row's Fitness),
// e's own for a point not in the table.
func (t *Table) recorded(e autotune.Eval) float64 {
	if r, ok := t.Lookup(e.Point); ok {
		return r.result().Fitness()
	}
	return e.Result.Fitness()
}

// score returns the figures after n evaluations of the searches whose
// best-so-far curves are best, and random search's expected best there
// (Table.ExpectedRandom), which the score is measured against.
func (t *Table) score(best [][]float64, n int) (Point, float64) {
	opt, worst := t.Optimum(), t.valid[len(t.valid)-1]
	fr := make([]float64, len(best))
	mean := 0.0
	for s, b := range best {
		fr[s] = opt / b[n-1] // 0 for +Inf
		mean += math.Min(b[n-1], worst) / float64(len(best))
	}
	fr = ordered(fr)
	p := Point{Evaluations: n, MedianFraction: quantile(fr, 0.5), Q1Fraction: quantile(fr, 0.25), Q3Fraction: quantile(fr, 0.75)}
	random := t.ExpectedRandom(n)
	if random-opt > 0 {
		p.Score = (random - mean) / (random - opt)
	}
	return p, random
}

// beats says whether the searches whose best-so-far curves are best beat
// random search after n evaluations, p their figures there and random
// the expected best of random search (both from score): by a positive score,
// or, where random search's expected best is the optimum (n at least the
// table's successful rows), by the optimum found in every search, a tie
// that no search can better.
func (t *Table) beats(best [][]float64, n int, p Point, random float64) bool {
	if random > t.Optimum() {
		return p.Score > 0
	}
	for _, b := range best {
		if b[n-1] > t.Optimum() {
			return false
		}
	}
	return true
}

// quantile returns the q-quantile of sorted xs, interpolating linearly
// between order statistics (xs[(len-1)q]).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	f := pos - float64(i)
	return xs[i]*(1-f) + xs[i+1]*f
}
