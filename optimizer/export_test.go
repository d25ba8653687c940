package optimizer

import (
	"context"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/transforms"
)

// Search runs the search Tune runs for ps, with set, the seeds of a CPU
// device if cpu, and the evaluator ev instead of the device.
func Search(ctx context.Context, ps *transforms.Problem, set Settings, cpu bool, ev autotune.Evaluator) (*autotune.Report, error) {
	return SearchFrom(ctx, ps, set, cpu, ev)
}

// Measurer is the evaluator's view of the device.
type Measurer = measurer

// SearchOn runs the search Tune runs for ps with set, the seeds of a CPU
// device if cpu, and Tune's evaluator measuring on m (a fake device),
// whose single-point kernel took base ms (0: unknown).
func SearchOn(ctx context.Context, ps *transforms.Problem, set Settings, cpu bool, m Measurer, base float64) (*autotune.Report, error) {
	set = set.withDefaults()
	s, err := newSearch(ps, set, cpu)
	if err != nil {
		return nil, err
	}
	ev := newEvaluator(ps, s.toParams, m, set.Order == OrderReady, 2*set.builds()+4, base, set.slowLimit())
	return s.run(ctx, set, ev, set.Time)
}

// SearchStrategy is Search, also returning the strategy searched with.
func SearchStrategy(ctx context.Context, ps *transforms.Problem, set Settings, cpu bool, ev autotune.Evaluator) (*autotune.Report, autotune.Strategy, error) {
	set = set.withDefaults()
	s, err := newSearch(ps, set, cpu)
	if err != nil {
		return nil, nil, err
	}
	rep, err := s.run(ctx, set, ev, set.Time)
	return rep, s.strategy, err
}

// NewSpace returns the Table 2 space Tune searches for ps with pins fixed.
func NewSpace(ps *transforms.Problem, fixed map[transforms.Name]int) (*autotune.Space, error) {
	s, err := newSearch(ps, Settings{Fixed: fixed}.withDefaults(), false)
	if err != nil {
		return nil, err
	}
	return s.space, nil
}

// SearchOnBackground is SearchOn with the evaluator's background
// generator, as Tune runs it; m must be safe for concurrent use.
func SearchOnBackground(ctx context.Context, ps *transforms.Problem, set Settings, cpu bool, m Measurer, base float64) (*autotune.Report, error) {
	set = set.withDefaults()
	s, err := newSearch(ps, set, cpu)
	if err != nil {
		return nil, err
	}
	ev := newEvaluator(ps, s.toParams, m, set.Order == OrderReady, 2*set.builds()+4, base, set.slowLimit())
	stop := ev.background(4) // several, whatever the host
	defer stop()
	return s.run(ctx, set, ev, set.Time)
}

// SearchFrom is Search starting from first (the records' settings) before
// the start points.
func SearchFrom(ctx context.Context, ps *transforms.Problem, set Settings, cpu bool, ev autotune.Evaluator, first ...map[string]int) (*autotune.Report, error) {
	set = set.withDefaults()
	s, err := newSearch(ps, set, cpu, first...)
	if err != nil {
		return nil, err
	}
	return s.run(ctx, set, ev, set.Time)
}
