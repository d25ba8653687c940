package optimizer_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/strategies"
)

// timedStrategy measures the time a strategy spends in its own calls
// (Next, Upcoming, Take, Tell, Plan), charged to the evaluation whose Tell
// ends it.
type timedStrategy struct {
	s     autotune.Strategy
	cur   time.Duration
	evals []time.Duration
}

func (t *timedStrategy) since(start time.Time) { t.cur += time.Since(start) }

func (t *timedStrategy) Name() string { return t.s.Name() }

func (t *timedStrategy) Next() (autotune.Point, bool) {
	defer t.since(time.Now())
	return t.s.Next()
}

func (t *timedStrategy) Tell(p autotune.Point, r autotune.Result) {
	start := time.Now()
	t.s.Tell(p, r)
	t.since(start)
	t.evals = append(t.evals, t.cur)
	t.cur = 0
}

func (t *timedStrategy) Upcoming(n int) []autotune.Point {
	defer t.since(time.Now())
	return t.s.(autotune.Lookahead).Upcoming(n)
}

func (t *timedStrategy) Take(p autotune.Point) bool {
	defer t.since(time.Now())
	return t.s.(autotune.Picker).Take(p)
}

func (t *timedStrategy) Plan(n int) {
	defer t.since(time.Now())
	t.s.(autotune.Planner).Plan(n)
}

// syntheticTime is a cheap deterministic stand-in for a measured time: a
// smooth function of the point's values with a few percent of noise from a
// hash of the point, and one point in eight failing.
func syntheticTime(p autotune.Point) autotune.Result {
	h := fnv.New64a()
	h.Write([]byte(p.Key()))
	u := h.Sum64()
	if u%8 == 0 {
		return autotune.Result{Outcome: autotune.Compile}
	}
	cost := 1.0
	for k := range p.Len() {
		v := math.Log2(1 + float64(p.Value(k)))
		d := v - float64(k%4+1)
		cost += 0.05 * d * d * float64(1+k%3)
	}
	noise := 1 + 0.05*(float64(u>>11)/float64(1<<53)-0.5)
	return autotune.Result{Ms: cost * noise}
}

// BenchmarkStrategyCost measures the time the model-guided strategies
// spend choosing points (their Next, Upcoming, Take, Tell and Plan) per
// evaluation, on the Table 2 space of MATMUL 4096 on a GPU (about 3.3e9
// points) with a synthetic evaluator. One iteration is a whole search; run
// it once:
//
//	go test ./optimizer -run '^$' -bench StrategyCost -benchtime 1x
//
// It reports the mean and the largest strategy time of an evaluation.
func BenchmarkStrategyCost(b *testing.B) {
	space, _, err := optimizer.Table2(optimizer.Table2Spec{Domain: []int{4096, 4096}, Loops: []int{4096}, Transposable: true, MaxWorkGroup: 1024})
	if err != nil {
		b.Fatal(err)
	}
	ev := autotune.EvaluatorFunc(func(_ context.Context, p autotune.Point) autotune.Result { return syntheticTime(p) })
	for _, name := range []string{strategies.Hybrid, strategies.Bayes} {
		for _, evals := range []int{300, 1500} {
			b.Run(fmt.Sprintf("%s/%d", name, evals), func(b *testing.B) {
				info, err := strategies.Lookup(name)
				if err != nil {
					b.Fatal(err)
				}
				var mean, worst time.Duration
				for range b.N {
					ts := &timedStrategy{s: info.New(space, autotune.NewRand(1), strategies.Options{})}
					rep, err := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: evals}, space, ts, ev)
					if err != nil {
						b.Fatal(err)
					}
					if rep.Evaluations != evals {
						b.Fatalf("%d evaluations, want %d", rep.Evaluations, evals)
					}
					var sum time.Duration
					worst = 0
					for _, d := range ts.evals {
						sum += d
						worst = max(worst, d)
					}
					mean = sum / time.Duration(len(ts.evals))
				}
				b.ReportMetric(float64(mean.Microseconds())/1000, "ms/eval")
				b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms/eval")
			})
		}
	}
}
