package replay

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/records"
)

// Records is a Source over the evaluations a records database holds for
// one problem, a space measured densely or exhaustively (hplopt tune -s
// exhaustive --params PINS): each point recorded is a row, with its
// outcome (a failure stays one) and time; a point never measured is not in
// the table, so a strategy that proposes it gets Illegal. A point recorded
// more than once (several runs) takes its latest evaluation, but for a
// timeout after a time measured: a timeout's limit is its run's (say,
// a multiple of the best time that run had found), not the point's, so a
// run that stopped a slow point early does not erase the time an earlier
// run measured for it in full. A row's cost
// is the wall time from the end of the evaluation measured before it in
// its run (in measurement order) to its own end, the first's from its
// start: the evaluation's share of the search's time, as the CSV tables'
// cost_ms.
type Records struct {
	problem records.Problem
	params  []string
	rows    []Row
	start   []map[string]int
}

var _ Source = (*Records)(nil)

// FromRecords reads the problem of db that query names (an ID or a prefix
// of one, or the name of a kernel, as the records key names it, with a
// single problem recorded; "" for the only problem of db) as a Source.
// Its parameters are ordered as in order (the space's order: Table 2's),
// those order lacks after them by name.
func FromRecords(db *records.DB, query string, order []string) (*Records, error) {
	var ps []records.Problem
	var err error
	if query == "" {
		ps, err = db.Problems()
	} else {
		ps, err = db.Find(query)
	}
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	switch len(ps) {
	case 0:
		if query == "" {
			return nil, fmt.Errorf("replay: %s: no problem recorded", db.Path())
		}
		return nil, fmt.Errorf("replay: %s: no recorded problem has an ID starting with %q or kernel %q", db.Path(), query, query)
	case 1:
	default:
		var list []string
		for _, p := range ps {
			list = append(list, fmt.Sprintf("%s (%s %s, %d evaluations)", p.ID[:12], p.Key.Kernel, p.Key.Sizes(), p.Evaluations))
		}
		return nil, fmt.Errorf("replay: %s: %q names %d problems, give an ID prefix: %s", db.Path(), query, len(ps), strings.Join(list, "; "))
	}
	r := &Records{problem: ps[0]}
	evals, err := db.Evaluations(r.problem.ID)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if len(evals) == 0 {
		return nil, fmt.Errorf("replay: problem %s (%s %s) has no evaluations", r.problem.ID[:12], r.problem.Key.Kernel, r.problem.Key.Sizes())
	}
	names := map[string]bool{}
	for _, e := range evals {
		for n := range e.Params {
			names[n] = true
		}
	}
	for _, n := range order {
		if names[n] {
			r.params = append(r.params, n)
			delete(names, n)
		}
	}
	rest := make([]string, 0, len(names))
	for n := range names {
		rest = append(rest, n)
	}
	slices.Sort(rest)
	r.params = append(r.params, rest...)

	cost := costs(evals)
	index := map[string]int{} // point -> row
	for i, e := range evals {
		row := Row{Values: make([]int, len(r.params)), Outcome: e.Outcome, Cost: cost[i]}
		for k, n := range r.params {
			v, ok := e.Params[n]
			if !ok {
				return nil, fmt.Errorf("replay: problem %s: evaluation %d of run %s has no %s: the runs searched different spaces", r.problem.ID[:12], e.Seq, e.Run, n)
			}
			row.Values[k] = v
		}
		if e.Outcome == autotune.OK {
			row.Ms = e.Ms
		}
		key := e.Point()
		if j, ok := index[key]; ok {
			if row.Outcome != autotune.Timeout || r.rows[j].Outcome != autotune.OK {
				r.rows[j] = row
			}
			continue
		}
		index[key] = len(r.rows)
		r.rows = append(r.rows, row)
	}
	runs, err := db.Runs(r.problem.ID)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	// The start points of the latest run that recorded them.
	for i := len(runs) - 1; i >= 0 && r.start == nil; i-- {
		var set struct {
			Start []string `json:"start"`
		}
		if json.Unmarshal(runs[i].Settings, &set) != nil {
			continue
		}
		for _, s := range set.Start {
			m, err := ParsePoint(s)
			if err != nil {
				return nil, fmt.Errorf("replay: problem %s: run %s: start point %v", r.problem.ID[:12], runs[i].ID, err)
			}
			r.start = append(r.start, m)
		}
	}
	return r, nil
}

// costs returns each evaluation's share of its run's wall time: from the
// end of the one measured before it in the run to its own end (the first
// from its start), rounded to the microsecond.
func costs(evals []records.Evaluation) []time.Duration {
	out := make([]time.Duration, len(evals))
	byRun := map[string][]int{}
	for i, e := range evals {
		byRun[e.Run] = append(byRun[e.Run], i)
	}
	for _, idx := range byRun {
		slices.SortStableFunc(idx, func(a, b int) int { return evals[a].Order - evals[b].Order })
		for j, i := range idx {
			from := evals[i].Started
			if j > 0 {
				from = evals[idx[j-1]].Ended
			}
			out[i] = max(0, evals[i].Ended.Sub(from)).Round(time.Microsecond)
		}
	}
	return out
}

// Problem returns the recorded problem.
func (r *Records) Problem() records.Problem { return r.problem }

// Params returns the parameters' names.
func (r *Records) Params() []string { return slices.Clone(r.params) }

// Labels returns nil: recorded parameters are integers.
func (r *Records) Labels(int) []string { return nil }

// Rows returns a row per point recorded.
func (r *Records) Rows() ([]Row, error) { return r.rows, nil }

// Start returns the start points recorded with the problem's latest run
// (nil for runs recorded before hplopt kept them).
func (r *Records) Start() []map[string]int { return r.start }

// Meta returns what WriteCSV writes of the problem as the table's
// metadata: its ID, kernel, sizes, device and search-space version.
func (r *Records) Meta() [][2]string {
	k := r.problem.Key
	return [][2]string{{"problem", r.problem.ID}, {"kernel", k.Kernel}, {"sizes", k.Sizes()}, {"device", k.Device.String()}, {"space", k.Space}}
}

// WriteCSV writes src as a CSV table that ReadCSV reads back to the same
// rows and start points: the metadata lines meta ("# NAME: VALUE"), a
// "# start: ..." line per start point, the header (the parameters, time_ms,
// cost_ms) and a row per point. Times are written exactly (the shortest
// decimal that reads back to the same float64), costs in milliseconds to
// the microsecond.
func WriteCSV(w io.Writer, src Source, meta [][2]string) error {
	rows, err := src.Rows()
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	var b strings.Builder
	for _, m := range meta {
		fmt.Fprintf(&b, "# %s: %s\n", m[0], strings.ReplaceAll(m[1], "\n", " "))
	}
	for _, s := range src.Start() {
		fmt.Fprintf(&b, "# start: %s\n", records.PointKey(s))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	params := src.Params()
	cw := csv.NewWriter(w)
	cw.Write(append(params, "time_ms", "cost_ms"))
	for _, r := range rows {
		rec := make([]string, 0, len(params)+2)
		for k, v := range r.Values {
			if l := src.Labels(k); l != nil && v >= 0 && v < len(l) {
				rec = append(rec, l[v])
			} else {
				rec = append(rec, strconv.Itoa(v))
			}
		}
		t := "fail"
		switch {
		case r.Outcome == autotune.OK:
			t = strconv.FormatFloat(r.Ms, 'g', -1, 64)
		case r.Outcome != autotune.Launch:
			t = r.Outcome.String()
		}
		rec = append(rec, t, strconv.FormatFloat(float64(r.Cost.Round(time.Microsecond))/float64(time.Millisecond), 'f', 3, 64))
		cw.Write(rec)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	return nil
}
