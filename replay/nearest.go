package replay

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/records"
	"github.com/hplopt/hplopt/strategies"
	"github.com/hplopt/hplopt/transforms"
)

// Nearest returns what a live search of t would start from, beside t's
// start points, if the problems of others had been tuned before it and
// their best kept in the tuning records (Config.Records), with the tables
// each named: the best recorded setting of the records.NearestShapes (3)
// tables of others nearest to t in shape (records.Distance) among those
// of t's family (the same kernel, device, driver and search-space
// version, sizes of the same arguments), else of the records.KinShapes
// (2) nearest of its kin (the same but another device or driver of the
// platform), as the optimizer starts a search, carried to t's index space
// (transforms.Carry). Of each problem it takes the fastest row of its
// tables (its sizes measured with other pins too) that holds the value of
// each parameter t holds at one value (t's pins), as a live search with
// those pins takes the fastest recorded setting that has them, and leaves
// out a problem with none; t's own problem is left out too. Tables
// without the metadata (the problem, kernel, sizes, device and space that
// WriteCSV writes) or with a string-valued parameter (whose values are
// numbered per table) give none and get none.
func Nearest(t *Table, others []*Table) (seeds []map[string]int, from []string) {
	me, ok := t.identity()
	if !ok {
		return nil, nil
	}
	pins := t.pins()
	type near struct {
		best map[string]int
		ms   float64
		from string // the table of best
		id   identity
		dist float64
	}
	// A problem's best that holds the pins: the fastest such row of its
	// tables (its sizes measured with other pins too), as a live search
	// with pins takes the fastest recorded setting that has them.
	problems := map[string]*near{}
	var order []string
	for _, o := range others {
		id, ok := o.identity()
		if !ok || id.problem == me.problem || id.kernel != me.kernel || id.space != me.space || id.layout != me.layout || id.platform != me.platform {
			continue
		}
		best, ms, ok := o.bestHolding(pins)
		if !ok {
			continue
		}
		if p, seen := problems[id.problem]; !seen {
			problems[id.problem] = &near{best, ms, o.name, id, records.Distance(me.shape, id.shape)}
			order = append(order, id.problem)
		} else if ms < p.ms {
			p.best, p.ms, p.from = best, ms, o.name
		}
	}
	var family, kin []near
	for _, id := range order {
		if n := *problems[id]; n.id.device == me.device {
			family = append(family, n)
		} else {
			kin = append(kin, n)
		}
	}
	take, n := family, records.NearestShapes
	if len(family) == 0 {
		take, n = kin, records.KinShapes
	}
	// Nearest first; of the kin, another driver of t's device before
	// other devices at equal distance.
	slices.SortStableFunc(take, func(a, b near) int {
		other := func(x near) int {
			if x.id.name == me.name {
				return 0
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.dist, b.dist), cmp.Compare(other(a), other(b)), strings.Compare(a.id.problem, b.id.problem))
	})
	for _, x := range take[:min(n, len(take))] {
		seeds = append(seeds, transforms.Carry(x.best, x.id.global, me.global))
		from = append(from, x.from)
	}
	return seeds, from
}

// identity is what a table's metadata says of its problem.
type identity struct {
	problem, kernel, space string
	device, name, platform string    // the device as records.Device.String writes it, its name and platform
	layout                 string    // the sizes with every number replaced by #: the arguments
	global                 []int     // the index space
	shape                  []float64 // records.Key.Shape
}

var (
	number    = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?`)
	deviceRow = regexp.MustCompile(`^(.*) \((.*), driver (.*)\)$`)
)

// identity reads the table's metadata; ok is false when it lacks any of
// problem, kernel, sizes, device and space.
func (t *Table) identity() (id identity, ok bool) {
	for _, l := range t.labels {
		if l != nil {
			return identity{}, false
		}
	}
	m := map[string]string{}
	for _, kv := range t.meta {
		m[kv[0]] = kv[1]
	}
	id.problem, id.kernel, id.space, id.device = m["problem"], m["kernel"], m["space"], m["device"]
	sizes := m["sizes"]
	if id.problem == "" || id.kernel == "" || id.space == "" || id.device == "" || sizes == "" {
		return identity{}, false
	}
	if d := deviceRow.FindStringSubmatch(id.device); d != nil {
		id.name, id.platform = d[1], d[2]
	} else {
		id.name = id.device
	}
	global, _, _ := strings.Cut(sizes, " ")
	for _, f := range strings.Split(global, "x") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return identity{}, false
		}
		id.global = append(id.global, n)
	}
	for _, f := range number.FindAllString(sizes, -1) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return identity{}, false
		}
		id.shape = append(id.shape, v)
	}
	id.layout = number.ReplaceAllString(sizes, "#")
	return id, true
}

// pins returns the parameters the table holds at one value, with it.
func (t *Table) pins() map[string]int {
	var first []int // a row's values
	varies := make([]bool, len(t.params))
	for _, r := range t.rows {
		if first == nil {
			first = r.Values
		}
		for k, v := range r.Values {
			varies[k] = varies[k] || v != first[k]
		}
	}
	out := map[string]int{}
	for k, name := range t.params {
		if first != nil && !varies[k] {
			out[name] = first[k]
		}
	}
	return out
}

// bestHolding returns the fastest recorded row that has each of pins'
// values (a parameter the table lacks holds any), as parameter name to
// value, with its time; ok is false when there is none.
func (t *Table) bestHolding(pins map[string]int) (best map[string]int, ms float64, ok bool) {
	var row *Row
	for _, r := range t.rows {
		if r.Outcome != autotune.OK || row != nil && (r.Ms > row.Ms || r.Ms == row.Ms && valuesKey(r.Values) > valuesKey(row.Values)) {
			continue
		}
		holds := true
		for k, name := range t.params {
			if v, pinned := pins[name]; pinned && r.Values[k] != v {
				holds = false
				break
			}
		}
		if holds {
			row = &r
		}
	}
	if row == nil {
		return nil, 0, false
	}
	best = map[string]int{}
	for k, name := range t.params {
		best[name] = row.Values[k]
	}
	return best, row.Ms, true
}

// Searched returns the rows of t that one search of strategy measured
// (seed seed, share of t's rows as its budget, at least 20 evaluations,
// from t's start points), as a table with t's metadata and no start
// points: what the tuning records hold of t after that search, for
// Nearest to take as a problem tuned before instead of every row of t.
func Searched(t *Table, strategy string, share float64, seed uint64) (*Table, error) {
	info, err := strategies.Lookup(strategy)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	rep, err := t.search(context.Background(), Config{Evaluations: EveryBudget(t.Len(), share)}, info, seed)
	if err != nil {
		return nil, fmt.Errorf("replay: %s: %w", t.name, err)
	}
	src := measured{t: t}
	seen := map[string]bool{}
	for _, e := range rep.History {
		if r, ok := t.Lookup(e.Point); ok && !seen[e.Point.Key()] {
			seen[e.Point.Key()] = true
			src.rows = append(src.rows, r)
		}
	}
	if len(src.rows) == 0 {
		return nil, fmt.Errorf("replay: %s: a search of %s measured no row", t.name, info.Name)
	}
	return Load(src, t.name)
}

// measured is a Source of some rows of a table, with its metadata.
type measured struct {
	t    *Table
	rows []Row
}

func (m measured) Params() []string        { return slices.Clone(m.t.params) }
func (m measured) Labels(k int) []string   { return m.t.labels[k] }
func (m measured) Rows() ([]Row, error)    { return m.rows, nil }
func (m measured) Start() []map[string]int { return nil }
func (m measured) Meta() [][2]string       { return slices.Clone(m.t.meta) }
