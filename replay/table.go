// Package replay runs search strategies against recorded measurements
// instead of a device, as Kernel Tuner's simulation mode does: a Table is a
// recorded space (the rows of a Source, such as a CSV file), its Evaluator
// returns the recorded times without measuring anything, and Replay runs
// each strategy of the registry (package strategies) through the same
// autotune.Tune loop and stop conditions as a live search, for many seeds,
// and scores it: the fraction of the optimum reached after each number of
// evaluations and the methodology score of the auto-tuning community
// against random search's expected best.
//
// It does not use OpenCL.
package replay

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hplopt/hplopt/autotune"
)

// Row is one recorded point.
type Row struct {
	// Values has one value per parameter, in the order of the Source's
	// Params (a string-valued parameter's value is the index of its label).
	Values []int
	// Outcome is OK for a measured time, else the failure.
	Outcome autotune.Outcome
	// Ms is the measured time in milliseconds when Outcome is OK.
	Ms float64
	// Cost is what evaluating the point took (build, runs, check), the
	// simulated time a replay charges for it; 0 when not recorded (the
	// replay then charges Ms, or nothing for a failure).
	Cost time.Duration
}

// result returns the row's outcome, with its time when it has one.
func (r Row) result() autotune.Result {
	res := autotune.Result{Outcome: r.Outcome}
	if r.Outcome == autotune.OK {
		res.Ms = r.Ms
	}
	return res
}

// Source is recorded measurements of a space: its parameters and rows. A
// CSV file is one (ReadCSV), the records of a problem in a records
// database another (FromRecords).
type Source interface {
	// Params names the parameters, in the order of the space.
	Params() []string
	// Labels returns the names of a string-valued parameter's values,
	// indexed by value, or nil for an integer parameter.
	Labels(param int) []string
	// Rows returns the recorded points.
	Rows() ([]Row, error)
	// Start returns the settings a live search of the problem starts
	// from (the single-point setting and the canonical shapes:
	// optimizer.StartPoints), parameter name to value, or nil when they
	// are not known. Replay gives those in the table to the strategies.
	Start() []map[string]int
}

// CSV is a Source read from a table with a header row, one column per
// parameter (integer or string values; strings are numbered in order of
// first appearance), a column time_ms holding the measured time in
// milliseconds or "fail" (or an outcome's name: compile, launch, wrong,
// timeout, illegal), and optionally a column cost_ms with the time the
// evaluation took. Lines starting with # are comments; those before the
// header of the form "# NAME: VALUE" are the table's metadata (Meta), and
// each "# start: NAME=V,NAME=V,..." gives a start point (Start), as
// WriteCSV writes them.
type CSV struct {
	name   string
	params []string
	labels [][]string
	rows   []Row
	meta   [][2]string
	start  []map[string]int
}

// OpenCSV reads the CSV table in file.
func OpenCSV(file string) (*CSV, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	return ReadCSV(f, file)
}

// ReadCSV reads a CSV table from r; name says where it comes from in
// errors.
func ReadCSV(r io.Reader, name string) (*CSV, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("replay: %s: %w", name, err)
	}
	c := &CSV{name: name}
	if err := c.readMeta(string(data)); err != nil {
		return nil, err
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("replay: %s: empty table, want a header row", name)
	}
	if err != nil {
		return nil, fmt.Errorf("replay: %s: %w", name, err)
	}
	timeCol, costCol := -1, -1
	var paramCols []int
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		switch {
		case h == "":
			return nil, fmt.Errorf("replay: %s: header column %d has no name", name, i+1)
		case seen[h]:
			return nil, fmt.Errorf("replay: %s: header names column %q twice", name, h)
		case h == "time_ms":
			timeCol = i
		case h == "cost_ms":
			costCol = i
		default:
			c.params = append(c.params, h)
			paramCols = append(paramCols, i)
		}
		seen[h] = true
	}
	if timeCol < 0 {
		return nil, fmt.Errorf("replay: %s: no time_ms column (header: %s)", name, strings.Join(header, ","))
	}
	if len(c.params) == 0 {
		return nil, fmt.Errorf("replay: %s: no parameter columns", name)
	}
	// Read every cell first: a column is integer-valued if all its cells
	// are integers.
	var cells [][]string
	var lines []int
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("replay: %s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		cells, lines = append(cells, rec), append(lines, line)
	}
	if len(cells) == 0 {
		return nil, fmt.Errorf("replay: %s: no rows", name)
	}
	c.labels = make([][]string, len(c.params))
	index := make([]map[string]int, len(c.params))
	for k, col := range paramCols {
		for _, rec := range cells {
			if _, err := strconv.Atoi(strings.TrimSpace(rec[col])); err != nil {
				index[k] = map[string]int{}
				break
			}
		}
	}
	for i, rec := range cells {
		row := Row{Values: make([]int, len(c.params))}
		for k, col := range paramCols {
			v := strings.TrimSpace(rec[col])
			if index[k] == nil {
				row.Values[k], _ = strconv.Atoi(v)
				continue
			}
			if v == "" {
				return nil, fmt.Errorf("replay: %s:%d: no value for %s", name, lines[i], c.params[k])
			}
			j, ok := index[k][v]
			if !ok {
				j = len(c.labels[k])
				index[k][v] = j
				c.labels[k] = append(c.labels[k], v)
			}
			row.Values[k] = j
		}
		if err := parseTime(&row, strings.TrimSpace(rec[timeCol])); err != nil {
			return nil, fmt.Errorf("replay: %s:%d: time_ms: %v", name, lines[i], err)
		}
		if costCol >= 0 {
			v := strings.TrimSpace(rec[costCol])
			ms, err := strconv.ParseFloat(v, 64)
			if err != nil || ms < 0 || math.IsInf(ms, 0) || math.IsNaN(ms) {
				return nil, fmt.Errorf("replay: %s:%d: cost_ms %q: want a time in milliseconds", name, lines[i], v)
			}
			row.Cost = time.Duration(math.Round(ms * float64(time.Millisecond)))
		}
		c.rows = append(c.rows, row)
	}
	return c, nil
}

// readMeta reads the "# NAME: VALUE" lines before the header.
func (c *CSV) readMeta(data string) error {
	for i, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		text, ok := strings.CutPrefix(line, "#")
		if !ok {
			return nil
		}
		key, val, ok := strings.Cut(text, ":")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			continue // a plain comment
		}
		if key == "start" {
			m, err := ParsePoint(val)
			if err != nil {
				return fmt.Errorf("replay: %s:%d: start: %v", c.name, i+1, err)
			}
			c.start = append(c.start, m)
			continue
		}
		c.meta = append(c.meta, [2]string{key, val})
	}
	return nil
}

// ParsePoint reads a point written as records.PointKey writes it:
// NAME=VALUE pairs, comma-separated, integer values.
func ParsePoint(s string) (map[string]int, error) {
	m := map[string]int{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if k = strings.TrimSpace(k); !ok || k == "" || err != nil {
			return nil, fmt.Errorf("%q: want NAME=INTEGER pairs separated by commas", s)
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("%q: %s given twice", s, k)
		}
		m[k] = n
	}
	return m, nil
}

// Meta returns the table's metadata lines ("# NAME: VALUE" before the
// header, start points aside), in order.
func (c *CSV) Meta() [][2]string { return slices.Clone(c.meta) }

// Start returns the start points the table's metadata gives.
func (c *CSV) Start() []map[string]int { return c.start }

// parseTime reads a time_ms cell into row.
func parseTime(row *Row, v string) error {
	if v == "fail" {
		row.Outcome = autotune.Launch
		return nil
	}
	var o autotune.Outcome
	if err := o.UnmarshalText([]byte(v)); err == nil && o != autotune.OK {
		row.Outcome = o
		return nil
	}
	ms, err := strconv.ParseFloat(v, 64)
	if err != nil || ms <= 0 || math.IsInf(ms, 0) || math.IsNaN(ms) {
		return fmt.Errorf("%q: want a positive time in milliseconds or fail", v)
	}
	row.Outcome, row.Ms = autotune.OK, ms
	return nil
}

// Name returns where the table was read from.
func (c *CSV) Name() string { return c.name }

// Params returns the parameter columns' names, in column order.
func (c *CSV) Params() []string { return slices.Clone(c.params) }

// Labels returns a string column's values in order of first appearance
// (nil for an integer column).
func (c *CSV) Labels(param int) []string { return c.labels[param] }

// Rows returns the table's rows.
func (c *CSV) Rows() ([]Row, error) { return c.rows, nil }

// Table is a recorded space: the set of rows of a Source. Its Space holds
// exactly the recorded points: each parameter's range is the values
// recorded among the rows that share the values of the parameters before it
// (in increasing order; a string parameter's in order of its labels), so a
// strategy moving through ranges and Repair stays on recorded points.
type Table struct {
	name   string
	params []string
	labels [][]string
	rows   map[string]Row
	space  *autotune.Space
	valid  []float64 // the recorded times, ascending
	start  []autotune.Point
	meta   [][2]string // the source's metadata (Meta), when it has any
}

// Load builds the table of src; name says where it comes from. Every row
// must have one value per parameter, and no point may be recorded twice.
func Load(src Source, name string) (*Table, error) {
	params := src.Params()
	if len(params) == 0 {
		return nil, fmt.Errorf("replay: %s: no parameters", name)
	}
	rows, err := src.Rows()
	if err != nil {
		return nil, fmt.Errorf("replay: %s: %w", name, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("replay: %s: no rows", name)
	}
	t := &Table{name: name, params: params, labels: make([][]string, len(params)), rows: make(map[string]Row, len(rows))}
	for k := range params {
		t.labels[k] = src.Labels(k)
	}
	// ranges[k] maps the values of the parameters before k to k's values.
	ranges := make([]map[string][]int, len(params))
	for k := range ranges {
		ranges[k] = map[string][]int{}
	}
	for i, r := range rows {
		if len(r.Values) != len(params) {
			return nil, fmt.Errorf("replay: %s: row %d has %d values for %d parameters", name, i+1, len(r.Values), len(params))
		}
		key := valuesKey(r.Values)
		if _, dup := t.rows[key]; dup {
			return nil, fmt.Errorf("replay: %s: row %d records %s again", name, i+1, t.describe(r.Values))
		}
		t.rows[key] = r
		for k := range params {
			pre := valuesKey(r.Values[:k])
			if !slices.Contains(ranges[k][pre], r.Values[k]) {
				ranges[k][pre] = append(ranges[k][pre], r.Values[k])
			}
		}
		if r.Outcome == autotune.OK {
			t.valid = append(t.valid, r.Ms)
		}
	}
	slices.Sort(t.valid)
	ps := make([]autotune.Param, len(params))
	for k, name := range params {
		for _, r := range ranges[k] {
			slices.Sort(r)
		}
		rk := ranges[k]
		before := slices.Clone(params[:k])
		ps[k] = autotune.Param{Name: name, Deps: before, Range: func(p autotune.Point) []int {
			vals := make([]int, k)
			for i := range vals {
				vals[i] = p.Value(i)
			}
			return rk[valuesKey(vals)]
		}}
	}
	if t.space, err = autotune.NewSpace(ps...); err != nil {
		return nil, fmt.Errorf("replay: %s: %w", name, err)
	}
	t.start = t.points(src.Start(), nil)
	if m, ok := src.(interface{ Meta() [][2]string }); ok {
		t.meta = m.Meta()
	}
	return t, nil
}

// points returns settings ms as a live search takes them: repaired into
// the space, those naming a parameter it lacks or in seen (keys; nil:
// none) dropped, without repeats.
func (t *Table) points(ms []map[string]int, seen map[string]bool) []autotune.Point {
	if seen == nil {
		seen = map[string]bool{}
	}
	var out []autotune.Point
	for _, m := range ms {
		if p, err := t.space.PointOf(m); err == nil {
			if p = t.space.Repair(p); !seen[p.Key()] {
				seen[p.Key()] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// seeds returns the points a search of the table starts from: records
// (Config.Records) as points, then the start points when start, without
// repeats.
func (t *Table) seeds(records []map[string]int, start bool) []autotune.Point {
	seen := map[string]bool{}
	out := t.points(records, seen)
	if start {
		for _, p := range t.start {
			if !seen[p.Key()] {
				seen[p.Key()] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// Start returns the start points of the source (Source.Start), repaired
// into the table's space, without repeats: what a live search of the
// recorded space starts from.
func (t *Table) Start() []autotune.Point { return slices.Clone(t.start) }

// LoadCSV reads and loads the CSV table in file.
func LoadCSV(file string) (*Table, error) {
	c, err := OpenCSV(file)
	if err != nil {
		return nil, err
	}
	return Load(c, file)
}

// valuesKey is autotune.Point.Key of values not yet a point.
func valuesKey(vals []int) string {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(v))
	}
	return b.String()
}

// describe prints values as name=value pairs, with labels.
func (t *Table) describe(vals []int) string {
	parts := make([]string, len(vals))
	for k, v := range vals {
		parts[k] = t.describeOne(k, v)
	}
	return strings.Join(parts, ",")
}

// describeOne prints parameter k's value v as name=value, with its label.
func (t *Table) describeOne(k, v int) string {
	s := strconv.Itoa(v)
	if l := t.labels[k]; l != nil && v >= 0 && v < len(l) {
		s = l[v]
	}
	return t.params[k] + "=" + s
}

// Name returns where the table comes from.
func (t *Table) Name() string { return t.name }

// Space returns the recorded space.
func (t *Table) Space() *autotune.Space { return t.space }

// Len returns the number of recorded points.
func (t *Table) Len() int { return len(t.rows) }

// Failed returns the number of recorded failures.
func (t *Table) Failed() int { return len(t.rows) - len(t.valid) }

// Optimum returns the fastest recorded time (+Inf when every point
// failed).
func (t *Table) Optimum() float64 {
	if len(t.valid) == 0 {
		return math.Inf(1)
	}
	return t.valid[0]
}

// Describe prints a point of the table as name=value pairs, string values
// by their labels.
func (t *Table) Describe(p autotune.Point) string { return t.describe(p.Values()) }

// Lookup returns the row recorded for p and whether there is one.
func (t *Table) Lookup(p autotune.Point) (Row, bool) {
	r, ok := t.rows[p.Key()]
	return r, ok
}

// ExpectedRandom returns the expected best time of n draws without
// replacement from the table's recorded times (failures left out), in
// closed form: with the m times sorted t_1 <= ... <= t_m, the best is t_i
// with probability C(m-i, n-1)/C(m, n). It is the optimum for n >= m and
// +Inf for n < 1 or a table without times.
func (t *Table) ExpectedRandom(n int) float64 {
	m := len(t.valid)
	if n < 1 || m == 0 {
		return math.Inf(1)
	}
	if n >= m {
		return t.valid[0]
	}
	// above is P(best >= t_i) = C(m-i+1, n)/C(m, n), by its ratio from i-1.
	e, above := 0.0, 1.0
	for i := 1; i <= m-n+1; i++ {
		next := above * float64(m-n-(i-1)) / float64(m-(i-1)) // P(best >= t_{i+1})
		e += t.valid[i-1] * (above - next)
		above = next
	}
	return e
}

// Evaluator returns recorded results: a point of the table gets its row's
// outcome and time; any other point is Illegal. It keeps a simulated clock:
// each evaluation advances it by its row's Cost (or, when not recorded, by
// its time; a failure by nothing). It is for one search at a time.
type Evaluator struct {
	t     *Table
	clock time.Duration
	noise float64    // Noisy's relative spread, 0 for none
	rng   *rand.Rand // Noisy's draws
}

// Noisy has the evaluator return each successful row's time multiplied by
// exp(noise * Z), Z a standard normal drawn from a source seeded by seed:
// measurement noise of relative spread about noise (0.02: about 2%), as a
// live search measures a variant a little faster or slower than its
// table's time each time. The simulated clock still advances by the
// rows' costs. noise 0 (the default) returns the recorded times.
func (e *Evaluator) Noisy(noise float64, seed uint64) {
	e.noise, e.rng = noise, rand.New(rand.NewPCG(seed, 0x6e6f697365))
}

// Evaluator returns an evaluator of the table with its clock at 0.
func (t *Table) Evaluator() *Evaluator { return &Evaluator{t: t} }

var errNotRecorded = errors.New("replay: point not in the table")

// Evaluate returns p's recorded result.
func (e *Evaluator) Evaluate(_ context.Context, p autotune.Point) autotune.Result {
	r, ok := e.t.Lookup(p)
	if !ok {
		return autotune.Result{Outcome: autotune.Illegal, Err: fmt.Errorf("%w: %s", errNotRecorded, e.t.Describe(p))}
	}
	cost := r.Cost
	if cost == 0 && r.Outcome == autotune.OK {
		cost = time.Duration(r.Ms * float64(time.Millisecond))
	}
	e.clock += cost
	res := r.result()
	res.Cost = autotune.Cost{Run: cost}
	if r.Outcome == autotune.OK && e.noise > 0 {
		res.Ms *= math.Exp(e.noise * e.rng.NormFloat64())
	}
	return res
}

// Clock returns the simulated time of the evaluations so far (for
// autotune.Settings.Clock).
func (e *Evaluator) Clock() time.Duration { return e.clock }

var _ autotune.Evaluator = (*Evaluator)(nil)

// ordered sorts a copy of xs.
func ordered[T cmp.Ordered](xs []T) []T {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}
