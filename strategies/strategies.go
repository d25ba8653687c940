// Package strategies is the one registry of search strategies: the name
// each is known by (on the command line, in settings, reports and docs),
// a one-line description, and how to make one for a space. Package
// optimizer searches with them on a device, and a replay of recorded
// measurements searches with the same constructors, so a strategy behaves
// the same live and replayed.
//
// It imports only the search packages (autotune and the strategies'
// own packages), never OpenCL.
package strategies

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/costmodel"
	"github.com/hplopt/hplopt/genetic"
)

// Names of the registered strategies.
const (
	Genetic    = "genetic"
	Random     = "random"
	Exhaustive = "exhaustive"
	Annealing  = "annealing"
	PSO        = "pso"
	Bandit     = "bandit"
	Model      = "model"
	Bayes      = "bayes"
	Hybrid     = "hybrid"
	Opening    = "opening"
)

// The opening strategy's defaults (OpeningSettings).
const (
	OpeningEvaluations = 64
	OpeningNeighbours  = 1
	OpeningAnchored    = 1
	OpeningShare       = 1.0 / 3
	OpeningPlateau     = 0.1
	// OpeningPlateauRounds is OpeningSettings.PlateauRounds's default:
	// the first round alone looks wider on a plateau (3 before the
	// thirty-first session).
	OpeningPlateauRounds = 1
	// OpeningExploit is OpeningSettings.Exploit's default: from the
	// third round on, a round's point anywhere is the model's best guess
	// while it predicts a gain (since the thirty-seventh session).
	OpeningExploit = 3
)

// BanditTechniques are the strategies the bandit chooses among, by name.
var BanditTechniques = []string{Annealing, PSO, Genetic, Random}

// Default is the strategy used when none is named.
const Default = Opening

// Options are what a strategy may use beside its space and random source.
// The zero value works for every strategy.
type Options struct {
	// Seeds are points worth evaluating first (the single-point setting,
	// canonical shapes); strategies that start from a population or a
	// current point use them, others ignore them. Default none.
	Seeds []autotune.Point
	// Evaluations is the search's budget of evaluations when it is known
	// (a replay's -e); strategies that plan by it (annealing's cooling,
	// the model's stages) use it. Default 0: unknown (see each strategy's
	// default).
	Evaluations int
	// Genetic tunes the genetic algorithm (its Seeds are appended to
	// Seeds above). Default: genetic.Settings{}.
	Genetic genetic.Settings
	// Batch is the number of points bayes chooses together each round
	// (costmodel.BayesSettings.Batch: each by expected improvement given
	// the ones chosen before it at their predicted times), so that a live
	// search builds them in parallel; other strategies ignore it (Check
	// rejects it with them). Default 0: 1.
	Batch int
	// Opening tunes the opening strategy; others ignore it. Default:
	// OpeningSettings{}.
	Opening OpeningSettings
}

// OpeningSettings tune the opening strategy: hybrid chooses its first
// Evaluations points, then the genetic algorithm the rest. ParseOpening
// reads them as the command line's --opening gives them, String writes
// them so.
type OpeningSettings struct {
	// Evaluations is the number of evaluations, the start points
	// included, that hybrid chooses before the genetic algorithm takes
	// over. Default 0: OpeningEvaluations.
	Evaluations int
	// Neighbours is the number of neighbours of the start points (as the
	// genetic algorithm's first generation holds them: a start point
	// after the first, in turn, with one parameter moved to the next value
	// of its range) that hybrid measures after the start points, instead
	// of its random points, before its first model. Default 0:
	// OpeningNeighbours; negative for none (hybrid's own initial points,
	// and Anchored is ignored).
	Neighbours int
	// Anchored is the number of anchored moves of each start point
	// (autotune.Space.Anchored: a parameter moved, a later parameter at
	// the top of its range kept at the top; drawn at random) that hybrid
	// measures after the start points and before their Neighbours, so
	// that each start point's basin is probed once before the model
	// chooses (docs/replay.md, "Anchored initial points"). A start point
	// with none (the plain one: its moves are all plain neighbours) adds
	// none. Default 0: OpeningAnchored; negative for none.
	Anchored int
	// Cover has the first local point of each of hybrid's rounds chosen
	// (by expected improvement) among the neighbours of its centres that
	// give a parameter whose range has at most Cover values a value no
	// point measured has, while there are any
	// (costmodel.BayesSettings.CoverMax): a flag such as lmem is tried
	// at the fastest points before the model, which learnt its effect
	// elsewhere, writes it off. Default 0: none (docs/replay.md, "Untried
	// values first": a candidate that the held-out tables have not yet
	// made the default).
	Cover int
	// OmitIllegal leaves the points rejected as Illegal (the transforms'
	// or the device's limits) out of the opening's model, instead of
	// taking them for the slowest time measured
	// (costmodel.BayesSettings.OmitIllegal). Default false: a candidate
	// that the held-out tables have not yet made the default
	// (docs/replay.md, "Illegal points left out of the model").
	OmitIllegal bool
	// Plateau has hybrid's first rounds look wider while the points it
	// measured before its first model lie on a plateau, the median within
	// Plateau (a share) of the best, until a point beats that best by
	// more than Plateau (costmodel.BayesSettings.Plateau: the flags
	// flipped at every point of the plateau first, the fastest first,
	// then the neighbours of those points). Default 0: OpeningPlateau,
	// the default since seven held-out tables confirmed it
	// (docs/replay.md, "A plateau of start points"); negative for none.
	Plateau float64
	// PlateauRounds is the number of hybrid's first rounds that Plateau
	// may widen (costmodel.BayesSettings.PlateauRounds). Default 0:
	// OpeningPlateauRounds, 1, since the thirty-first session
	// (docs/replay.md, "One round on a plateau": with the length scale
	// per parameter, the flat tables beat random search early with one
	// round); 3 before.
	PlateauRounds int
	// GlobalRounds, when positive, is the number of hybrid's first rounds
	// that choose one of their four points anywhere (by expected
	// improvement in the whole space, or a random sample of it); the
	// later rounds choose all four among the local points, the neighbours
	// and anchored moves of the fastest local minima
	// (costmodel.BayesSettings.GlobalRounds). Default 0: every round
	// chooses one point anywhere. 2 is a candidate that the held-out
	// tables did not make the default (docs/replay.md, "Local rounds
	// after two").
	GlobalRounds int
	// Exploit is the first of hybrid's rounds whose point anywhere is
	// the point of the lowest predicted time, while the model predicts it
	// faster than the fastest measured, instead of the point of the
	// largest expected improvement (costmodel.BayesSettings.Exploit).
	// Default 0: OpeningExploit, the default since the thirty-seventh
	// session (docs/replay.md, "The round's point anywhere by the
	// predicted time"); negative for none (every round by expected
	// improvement, as before).
	Exploit int
	// Isotropic fits the opening's model with one length scale for all
	// parameters, as before the thirty-first session, instead of one per
	// parameter chosen by the likelihood (costmodel.BayesSettings.ARD):
	// with ARD the model learns which parameters the time follows,
	// from the opening's first points. Default false: ARD, the default
	// since replays of every table on two sets of seeds chose it
	// (docs/replay.md, "A length scale per parameter").
	Isotropic bool
	// Share bounds the opening by the budget of evaluations estimated
	// from the time budget (autotune.Estimator; not by -e nor a stop
	// condition's bound, which the opening spends up to Evaluations):
	// hybrid chooses at most Share of it, fewer than Evaluations in a
	// short search. Default 0: OpeningShare; negative for none.
	Share float64
	// Then names the search that takes over from hybrid: ThenGenetic
	// (the genetic algorithm, as genetic, its islands' first generations
	// the points measured, fastest first) or ThenModel (the model's
	// rounds, ThenModelSettings, trained on every success measured, the
	// failures screened, with no random sample of its own). Default "":
	// ThenGenetic.
	Then string
}

// The searches OpeningSettings.Then names.
const (
	ThenGenetic = Genetic
	ThenModel   = Model
)

// ThenModelSettings are the model's settings as the opening's
// continuation (OpeningSettings.Then ThenModel), for a search of
// evaluations evaluations (0: unknown): no random sample, 3 networks of
// 100 L-BFGS iterations each instead of 11 of 200 (about 7 times less
// training), and rounds of a tenth of the budget (at least 5; 25 until the
// search learns the budget, autotune.Planner) instead of a twentieth. They
// are those of the third variant tried in docs/replay.md ("The issue's
// target", 3DCONV), without its random point, and with Screen (a network
// trained on successes and failures ranks the points it predicts to fail
// last) and Refill (a round's points rejected as illegal are replaced):
// with them the default's replay of every committed table takes 2 times
// as long as with the genetic continuation (310 s against 154 s), with
// the model's own settings 13 times (1958 s). Live, Screen and Refill
// took the illegal proposals of a search of 60 s of MATMUL 4096 on an
// H200 from 699 of 903 to 290 of 635, and the variants measured from 204
// to 345 (docs/replay/opening/live-screen/); the genetic continuation
// still ends ahead in most searches (docs/replay/opening/live-likely/).
func ThenModelSettings(evaluations int) costmodel.Settings {
	return costmodel.Settings{Evaluations: evaluations, Sample: -1, Parts: 10, Screen: true, Refill: true, MLP: costmodel.MLPSettings{Bags: 3, Iterations: 100}}
}

// Check reports an error when opt sets what the strategy named name does
// not read (a batch for a strategy other than bayes, the opening's
// settings, the model as its continuation included, for a strategy other
// than opening) or a continuation it does not know.
func (opt Options) Check(name string) error {
	if opt.Batch > 1 && name != Bayes {
		return fmt.Errorf("a batch of %d points a round is for strategy %s, not %s", opt.Batch, Bayes, name)
	}
	switch then := opt.Opening.Then; {
	case then != "" && then != ThenGenetic && then != ThenModel:
		return fmt.Errorf("the opening's continuation %q is none of %s, %s", then, ThenGenetic, ThenModel)
	case then == ThenModel && name != Opening:
		return fmt.Errorf("a continuation after the opening (%s) is for strategy %s, not %s", then, Opening, name)
	}
	if rest := opt.Opening; name != Opening {
		rest.Then = ""
		if rest != (OpeningSettings{}) {
			return fmt.Errorf("the opening's settings (%s) are for strategy %s, not %s", rest, Opening, name)
		}
	}
	return nil
}

// Info describes a registered strategy.
type Info struct {
	Name string
	Doc  string // one line: what it does and its defaults
	New  func(space *autotune.Space, r *rand.Rand, opt Options) autotune.Strategy
}

var registry = []Info{
	{Genetic, "the paper's genetic algorithm: populations of 20, tournaments of 3, crossover 0.9, mutation 0.1, 2 elites, in two islands whose generations are measured in turn (one bred and built while the other is measured), the best of either joining the other's elites; seeded with the single-point setting and canonical shapes, the first island's first generation then holding 10 neighbours of the shapes (one parameter moved to the next value); memetic: each later generation also holds 10 local points, never measured, those a Gaussian process of log time (fitted to at most 300 results) predicts fastest among the neighbours of the 3 fastest points measured and 50 random points, measured before the islands' points not yet offered to the builders; a repeated child is replaced by a random point",
		func(space *autotune.Space, r *rand.Rand, opt Options) autotune.Strategy {
			gs := opt.Genetic
			gs.Seeds = append(append([]autotune.Point(nil), opt.Seeds...), gs.Seeds...)
			if gs.Rank == nil {
				// The local points ranked by a GP, among the neighbours
				// and 50 random points (docs/replay.md).
				gs.Rank = costmodel.RankLocal
				if gs.LocalRandom == 0 {
					gs.LocalRandom = 50
				}
			}
			return genetic.New(space, r, gs)
		}},
	{Random, "uniform random sampling without repetition: the baseline every other strategy is compared with",
		func(space *autotune.Space, r *rand.Rand, _ Options) autotune.Strategy {
			return autotune.NewRandom(space, r)
		}},
	{Exhaustive, "every point of the space in order",
		func(space *autotune.Space, _ *rand.Rand, _ Options) autotune.Strategy {
			return autotune.NewExhaustive(space)
		}},
	{Annealing, "CLTune's simulated annealing over neighbours (one parameter moved to an adjacent value): T0 0.5 on relative time differences, cooling linearly to 0 over the evaluation budget (default 2.5% of the space, 100 to 1000), random restarts when stuck",
		func(space *autotune.Space, r *rand.Rand, opt Options) autotune.Strategy {
			return autotune.NewAnnealing(space, r, autotune.AnnealingSettings{Evaluations: opt.Evaluations, Seeds: opt.Seeds})
		}},
	{PSO, "CLTune's discrete particle swarm: 6 particles, each parameter from the swarm's best with probability 0.4, else a random value with probability 0.4",
		func(space *autotune.Space, r *rand.Rand, opt Options) autotune.Strategy {
			return autotune.NewPSO(space, r, autotune.PSOSettings{Seeds: opt.Seeds})
		}},
	{Model, "Falch & Elster's two stages: bagged neural networks (11 of 20 sigmoid units) trained on a random sample (a fifth of the evaluation budget, at least 10; else 100 points) predict the space; the predicted fastest are measured in rounds (a twentieth of the budget, at least 5; else 25), retrained before each",
		func(space *autotune.Space, r *rand.Rand, opt Options) autotune.Strategy {
			return costmodel.New(space, r, costmodel.Settings{Evaluations: opt.Evaluations, Seeds: opt.Seeds})
		}},
	{Bayes, "Bayesian optimization (Kernel Tuner's best at small budgets): a Gaussian process (Matérn 5/2, fitted by marginal likelihood) models log time; after the seeds and random points (a tenth of the evaluation budget, 5 to 20; else 20) each step measures the point of the largest expected improvement",
		func(space *autotune.Space, r *rand.Rand, opt Options) autotune.Strategy {
			return costmodel.NewBayes(space, r, costmodel.BayesSettings{Evaluations: opt.Evaluations, Seeds: opt.Seeds, Batch: opt.Batch})
		}},
	{Hybrid, "Bayesian optimization in rounds of 4 built together, 3 of each round among the neighbours (one parameter moved to an adjacent value) of the 2 fastest points measured, 1 anywhere, all by expected improvement; after the seeds and random points (as bayes)",
		func(space *autotune.Space, r *rand.Rand, opt Options) autotune.Strategy {
			return costmodel.NewBayes(space, r, hybridSettings(opt))
		}},
}

// hybridSettings are the hybrid strategy's: Bayesian optimization in
// rounds of 4, 3 of each among the neighbours of the 2 fastest points.
func hybridSettings(opt Options) costmodel.BayesSettings {
	return costmodel.BayesSettings{Evaluations: opt.Evaluations, Seeds: opt.Seeds, Batch: 4, Local: 3, LocalBest: 2, Name: Hybrid}
}

// newOpening makes the opening strategy: hybrid for
// opt.Opening.Evaluations evaluations, its initial points the start
// points and opt.Opening.Neighbours of their neighbours, its local points
// around measured local minima (costmodel.BayesSettings.Minima), the first
// of each round among their anchored moves (Anchored), then genetic,
// whose seeds are the points hybrid measured, the fastest first (failures
// last), so that its islands' first generations are made of them and it
// breeds from them at once.
func newOpening(space *autotune.Space, r *rand.Rand, opt Options) autotune.Strategy {
	k := opt.Opening.Evaluations
	if k <= 0 {
		k = OpeningEvaluations
	}
	ga, err := Lookup(Genetic)
	if err != nil {
		panic(err) // a name of this package
	}
	set := hybridSettings(opt)
	// Its local points: the neighbours of the fastest point and of the
	// fastest other local minimum of the points measured, not of the
	// fastest point's slower neighbour (docs/replay.md, "Local points
	// around two basins").
	set.Minima = true
	// Its model of a length scale per parameter, unless Isotropic
	// (docs/replay.md, "A length scale per parameter").
	set.ARD = !opt.Opening.Isotropic
	// The first local point of each round among their anchored moves
	// (docs/replay.md, "Anchored moves").
	set.Anchored = true
	// With Cover, the first local point of each round a neighbour giving
	// a parameter of few values a value never measured, while there are
	// any (docs/replay.md, "Untried values first": a candidate, not the
	// default).
	set.CoverMax = opt.Opening.Cover
	// With OmitIllegal, the points the space cannot hold left out of the
	// model, not taken for the slowest (docs/replay.md, "Illegal points
	// left out of the model": a candidate, not the default).
	set.OmitIllegal = opt.Opening.OmitIllegal
	// While the points measured before the first model lie on a plateau,
	// the first rounds flip the flags at every point of it first
	// (docs/replay.md, "A plateau of start points").
	switch p := opt.Opening.Plateau; {
	case p == 0:
		set.Plateau = OpeningPlateau
	case p > 0:
		set.Plateau = p
	}
	set.PlateauRounds = opt.Opening.PlateauRounds
	if set.PlateauRounds == 0 {
		set.PlateauRounds = OpeningPlateauRounds
	}
	// With GlobalRounds, every point of a round local after the first
	// GlobalRounds rounds (docs/replay.md, "Local rounds after two": a
	// candidate, not the default).
	set.GlobalRounds = opt.Opening.GlobalRounds
	// From the Exploit-th round on, the point anywhere the model's best
	// guess while it predicts a gain (docs/replay.md, "The round's point
	// anywhere by the predicted time").
	switch e := opt.Opening.Exploit; {
	case e == 0:
		set.Exploit = OpeningExploit
	case e > 0:
		set.Exploit = e
	}
	if near := opt.Opening.Neighbours; near >= 0 {
		if near == 0 {
			near = OpeningNeighbours
		}
		anchored := opt.Opening.Anchored
		if anchored == 0 {
			anchored = OpeningAnchored
		}
		set.Seeds = nearSeeds(space, r, opt.Seeds, near, anchored)
		set.Init = len(set.Seeds)
	}
	first := costmodel.NewBayes(space, r, set)
	o := autotune.NewOpening(Opening, first, k, func(told []autotune.Eval) autotune.Strategy {
		if opt.Opening.Then == ThenModel {
			// Told every result by the opening; Plan sets its budget.
			return costmodel.New(space, r, ThenModelSettings(opt.Evaluations))
		}
		order := slices.Clone(told)
		slices.SortStableFunc(order, func(a, b autotune.Eval) int {
			return cmp.Compare(a.Result.Fitness(), b.Result.Fitness())
		})
		gopt := opt
		gopt.Seeds = nil
		for _, e := range order {
			gopt.Seeds = append(gopt.Seeds, e.Point)
		}
		return ga.New(space, r, gopt)
	})
	o.Share = opt.Opening.Share
	if o.Share == 0 {
		o.Share = OpeningShare
	}
	return o
}

// nearSeeds returns the seeds, repaired, without repeats, then up to
// anchored of each one's anchored moves (autotune.Space.Anchored; drawn
// from r, in the seeds' order, none already returned), then up to n
// distinct points near the seeds after the first (the first when it is
// the only one; autotune.Space.Near), as the genetic algorithm's first
// generation holds them.
func nearSeeds(space *autotune.Space, r *rand.Rand, seeds []autotune.Point, n, anchored int) []autotune.Point {
	var out []autotune.Point
	in := map[string]bool{}
	for _, s := range seeds {
		p := space.Repair(s)
		if space.Contains(p) && !in[p.Key()] {
			in[p.Key()] = true
			out = append(out, p)
		}
	}
	from := out
	if len(from) > 1 {
		from = from[1:]
	}
	if anchored > 0 {
		for _, p := range slices.Clone(out) {
			moves := slices.DeleteFunc(space.Anchored(p), func(q autotune.Point) bool { return in[q.Key()] })
			for i := 0; i < anchored && len(moves) > 0; i++ {
				j := r.IntN(len(moves))
				q := moves[j]
				moves = slices.Delete(moves, j, j+1)
				in[q.Key()] = true
				out = append(out, q)
			}
		}
	}
	return append(out, space.Near(r, from, n, func(key string) bool { return in[key] })...)
}

func init() {
	// Registered here, not in the list: they make their techniques
	// through the registry.
	registry = append(registry, Info{Bandit, "an AUC bandit (OpenTuner's, window 500, C 0.05) choosing each step among " + strings.Join(BanditTechniques, ", ") + ", which share one result history",
		func(space *autotune.Space, r *rand.Rand, opt Options) autotune.Strategy {
			techs := make([]autotune.Strategy, len(BanditTechniques))
			for i, name := range BanditTechniques {
				info, err := Lookup(name)
				if err != nil {
					panic(err) // a name of this package
				}
				techs[i] = info.New(space, r, opt)
			}
			return autotune.NewBandit(space, r, autotune.BanditSettings{}, techs...)
		}})
	registry = append(registry, Info{Opening, fmt.Sprintf("hybrid proposes the first %d points (those rejected before a build included, though they are no evaluations), at most %.0f%% of the budget of evaluations estimated from -t (not of -e) (Options.Opening), starting from the start points, %d anchored move of each that has any (a parameter moved, and a later parameter at the top of a range of two or more values that the move changes kept at its top) and %d of their neighbours (as genetic's first generation) instead of random points, its local points around the fastest point and the fastest other local minimum of those measured (a point no measured neighbour of which is faster) instead of the 2 fastest, the first of each round's 3 among their anchored moves, and in the first %d round(s), while the points measured before the first model lie within %.0f%% of the best (median against best), the flags flipped at each of those points first, fastest first, its model of a length scale per parameter (chosen by the likelihood; Isotropic: one for all); then the genetic algorithm (as genetic) takes over, its islands' first generations the points measured, fastest first, and told every result", OpeningEvaluations, 100*OpeningShare, OpeningAnchored, OpeningNeighbours, OpeningPlateauRounds, 100*OpeningPlateau), newOpening})
}

// All returns the registered strategies, the default first.
func All() []Info { return append([]Info(nil), registry...) }

// Names returns the names of the registered strategies, the default first.
func Names() []string {
	out := make([]string, len(registry))
	for i, s := range registry {
		out[i] = s.Name
	}
	return out
}

// Lookup resolves a strategy's name or a prefix of one (the paper's
// "-s g[enetic]"); the empty string is the default.
func Lookup(name string) (Info, error) {
	if name == "" {
		name = Default
	}
	name = strings.ToLower(name)
	var found []Info
	for _, s := range registry {
		if s.Name == name {
			return s, nil
		}
		if strings.HasPrefix(s.Name, name) {
			found = append(found, s)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	if len(found) > 1 {
		return Info{}, fmt.Errorf("strategies: %q is a prefix of several strategies (%s)", name, join(found))
	}
	return Info{}, fmt.Errorf("strategies: unknown search strategy %q (known: %s)", name, strings.Join(Names(), ", "))
}

func join(ss []Info) string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

// New makes the named strategy (a name or a unique prefix) for space.
func New(name string, space *autotune.Space, r *rand.Rand, opt Options) (autotune.Strategy, error) {
	s, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return s.New(space, r, opt), nil
}
