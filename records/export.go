package records

import (
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hplopt/hplopt/autotune"
)

// Format is a format of Export.
type Format string

// The formats of Export. JSON and T4 can be imported back.
const (
	// JSON is hplopt's own format: every problem with its key, its runs
	// and their evaluations, nested.
	JSON Format = "json"
	// T4 is the auto-tuning community's results format, schema 1.0.0
	// (Kernel Tuner's kernel_tuner/schema/T4/1.0.0): one result per
	// evaluation, with hplopt's keys and runs in an "hplopt" member.
	T4 Format = "t4"
	// CSV is one line per evaluation, for spreadsheets.
	CSV Format = "csv"
)

// Formats lists the formats of Export.
var Formats = []Format{JSON, T4, CSV}

// ParseFormat returns the format named s.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == strings.ToLower(s) {
			return f, nil
		}
	}
	return "", fmt.Errorf("records: unknown export format %q (one of json, t4, csv)", s)
}

// dumpFormat names hplopt's JSON export, in its "format" member.
const dumpFormat = "hplopt-records"

// dump is hplopt's JSON export.
type dump struct {
	Format   string        `json:"format"`  // dumpFormat
	Version  int           `json:"version"` // the schema version of the database that wrote it
	Problems []dumpProblem `json:"problems"`
}

type dumpProblem struct {
	ID    string    `json:"id"`
	Key   Key       `json:"key"`
	Stale bool      `json:"stale,omitempty"`
	Runs  []dumpRun `json:"runs"`
}

type dumpRun struct {
	Run
	Evaluations []Evaluation `json:"evaluations,omitempty"`
}

// dump collects the records of the problems given by ID (every problem if
// none is given).
func (db *DB) dump(ids []string) (*dump, error) {
	ps, err := db.Problems()
	if err != nil {
		return nil, err
	}
	d := &dump{Format: dumpFormat, Version: Version, Problems: []dumpProblem{}}
	for _, p := range ps {
		if len(ids) > 0 && !slices.Contains(ids, p.ID) {
			continue
		}
		runs, err := db.Runs(p.ID)
		if err != nil {
			return nil, err
		}
		evals, err := db.Evaluations(p.ID)
		if err != nil {
			return nil, err
		}
		dp := dumpProblem{ID: p.ID, Key: p.Key.canonical(), Stale: p.Stale, Runs: []dumpRun{}}
		for _, r := range runs {
			dr := dumpRun{Run: r, Evaluations: []Evaluation{}}
			for _, e := range evals {
				if e.Run == r.ID {
					dr.Evaluations = append(dr.Evaluations, e)
				}
			}
			dp.Runs = append(dp.Runs, dr)
		}
		d.Problems = append(d.Problems, dp)
	}
	return d, nil
}

// Export writes the records of the problems given by ID (every problem if
// none is given) to w in format f.
func (db *DB) Export(w io.Writer, f Format, ids ...string) error {
	d, err := db.dump(ids)
	if err != nil {
		return err
	}
	var v any
	switch f {
	case JSON:
		v = d
	case T4:
		v = d.t4()
	case CSV:
		return d.csv(w)
	default:
		return fmt.Errorf("records: unknown export format %q", f)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("records: export: %w", err)
	}
	return nil
}

// csvHeader names the columns of the CSV export.
var csvHeader = []string{"problem", "kernel", "device", "sizes", "space", "stale", "run", "strategy", "seed", "seq", "order",
	"params", "outcome", "ms", "times_ms", "build_ms", "check_ms", "started", "ended", "error"}

func (d *dump) csv(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, p := range d.Problems {
		for _, r := range p.Runs {
			for _, e := range r.Evaluations {
				times := make([]string, len(e.Times))
				for i, t := range e.Times {
					times[i] = num(t)
				}
				cw.Write([]string{p.ID, p.Key.Kernel, p.Key.Device.Name, p.Key.Sizes(), p.Key.Space, strconv.FormatBool(p.Stale),
					r.ID, r.Strategy, strconv.FormatUint(r.Seed, 10), strconv.Itoa(e.Seq), strconv.Itoa(e.Order),
					e.Point(), e.Outcome.String(), num(e.Ms), strings.Join(times, ";"), num(e.BuildMs), num(e.CheckMs),
					e.Started.Format(time.RFC3339Nano), e.Ended.Format(time.RFC3339Nano), e.Err})
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("records: export: %w", err)
	}
	return nil
}

// T4 results. The schema (Kernel Tuner's kernel_tuner/schema/T4/1.0.0/
// results-schema.json) requires of each result configuration (object),
// times (object), invalidity (one of timeout, compile, runtime,
// correctness, constraints, correct) and correctness (number); times may
// hold compilation_time, runtimes, framework, search_algorithm and
// validation; measurements are {name, value, unit}; objectives is an array.
// The metadata follows the T4 metadata schema (hardware, environment with
// device_query and requirements). Times are in ms, as Kernel Tuner writes
// them.

// t4Version is the T4 schema version written.
const t4Version = "1.0.0"

// t4Objective is the measurement hplopt minimizes.
const t4Objective = "time"

type t4File struct {
	SchemaVersion string     `json:"schema_version"`
	Results       []t4Result `json:"results"`
	Metadata      t4Metadata `json:"metadata"`
	// HPLOpt carries what T4 has no place for: the problems (keys) and
	// runs (without their evaluations, which are the results) the results
	// belong to, so that hplopt can import them back.
	HPLOpt dump `json:"hplopt"`
}

type t4Result struct {
	Timestamp     string          `json:"timestamp"`
	Configuration map[string]int  `json:"configuration"`
	Times         t4Times         `json:"times"`
	Invalidity    string          `json:"invalidity"`
	Correctness   float64         `json:"correctness"`
	Measurements  []t4Measurement `json:"measurements"`
	Objectives    []string        `json:"objectives"`
	HPLOpt        t4ResultExtra   `json:"hplopt"`
}

type t4Times struct {
	CompilationTime float64   `json:"compilation_time"`
	Runtimes        []float64 `json:"runtimes"`
	Validation      float64   `json:"validation"`
}

type t4Measurement struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// t4ResultExtra places a result in hplopt's records.
type t4ResultExtra struct {
	Problem string    `json:"problem"`
	Run     string    `json:"run"`
	Seq     int       `json:"seq"`
	Order   int       `json:"order"`
	Error   string    `json:"error,omitempty"`
	Ended   time.Time `json:"ended"`
}

type t4Metadata struct {
	Hardware struct {
		HardwareDescription []map[string]string `json:"hardware_description"`
	} `json:"hardware"`
	Environment struct {
		DeviceQuery  map[string][]Device `json:"device_query"`
		Requirements []string            `json:"requirements"`
	} `json:"environment"`
}

// invalidity maps outcomes to T4's invalidity vocabulary, one to one.
var invalidity = map[autotune.Outcome]string{
	autotune.OK:      "correct",
	autotune.Illegal: "constraints",
	autotune.Compile: "compile",
	autotune.Launch:  "runtime",
	autotune.Wrong:   "correctness",
	autotune.Timeout: "timeout",
}

func (d *dump) t4() *t4File {
	f := &t4File{SchemaVersion: t4Version, Results: []t4Result{}, HPLOpt: dump{Format: dumpFormat, Version: d.Version, Problems: []dumpProblem{}}}
	f.Metadata.Hardware.HardwareDescription = []map[string]string{}
	f.Metadata.Environment.DeviceQuery = map[string][]Device{"opencl": {}}
	f.Metadata.Environment.Requirements = []string{}
	hosts, tools := map[string]bool{}, map[string]bool{}
	for _, p := range d.Problems {
		if !slices.Contains(f.Metadata.Environment.DeviceQuery["opencl"], p.Key.Device) {
			f.Metadata.Environment.DeviceQuery["opencl"] = append(f.Metadata.Environment.DeviceQuery["opencl"], p.Key.Device)
		}
		tp := dumpProblem{ID: p.ID, Key: p.Key, Stale: p.Stale, Runs: []dumpRun{}}
		for _, r := range p.Runs {
			tp.Runs = append(tp.Runs, dumpRun{Run: r.Run})
			if r.Host != "" && !hosts[r.Host] {
				hosts[r.Host] = true
				f.Metadata.Hardware.HardwareDescription = append(f.Metadata.Hardware.HardwareDescription, map[string]string{"host": r.Host})
			}
			if r.Tool != "" && !tools[r.Tool] {
				tools[r.Tool] = true
				f.Metadata.Environment.Requirements = append(f.Metadata.Environment.Requirements, r.Tool)
			}
			for _, e := range r.Evaluations {
				res := t4Result{
					Timestamp:     e.Started.Format(time.RFC3339Nano),
					Configuration: orEmptyMap(e.Params),
					Times:         t4Times{CompilationTime: e.BuildMs, Runtimes: orEmpty(e.Times), Validation: e.CheckMs},
					Invalidity:    invalidity[e.Outcome],
					Measurements:  []t4Measurement{},
					Objectives:    []string{t4Objective},
					HPLOpt:        t4ResultExtra{Problem: p.ID, Run: r.ID, Seq: e.Seq, Order: e.Order, Error: e.Err, Ended: e.Ended},
				}
				if e.Outcome == autotune.OK {
					res.Correctness = 1
					res.Measurements = append(res.Measurements, t4Measurement{Name: t4Objective, Value: e.Ms, Unit: "ms"})
				}
				f.Results = append(f.Results, res)
			}
		}
		f.HPLOpt.Problems = append(f.HPLOpt.Problems, tp)
	}
	return f
}

// fromT4 turns a T4 file written by Export back into a dump.
func fromT4(f *t4File) (*dump, error) {
	if f.HPLOpt.Format != dumpFormat {
		return nil, errors.New("a T4 file without hplopt's problem keys (written by another tool?): the kernel and device its results belong to are unknown")
	}
	outcome := map[string]autotune.Outcome{}
	for o, s := range invalidity {
		outcome[s] = o
	}
	d := &f.HPLOpt
	runs := map[string]*dumpRun{}
	for i := range d.Problems {
		for j := range d.Problems[i].Runs {
			r := &d.Problems[i].Runs[j]
			runs[d.Problems[i].ID+"/"+r.ID] = r
		}
	}
	for i, res := range f.Results {
		x := res.HPLOpt
		r := runs[x.Problem+"/"+x.Run]
		if r == nil {
			return nil, fmt.Errorf("result %d: run %s of problem %s is not in the file's hplopt.problems", i, x.Run, x.Problem)
		}
		o, ok := outcome[res.Invalidity]
		if !ok {
			return nil, fmt.Errorf("result %d: unknown invalidity %q", i, res.Invalidity)
		}
		started, err := time.Parse(time.RFC3339Nano, res.Timestamp)
		if err != nil {
			return nil, fmt.Errorf("result %d: timestamp: %w", i, err)
		}
		e := Evaluation{Seq: x.Seq, Order: x.Order, Params: res.Configuration, Outcome: o, Err: x.Error, Times: res.Times.Runtimes,
			BuildMs: res.Times.CompilationTime, CheckMs: res.Times.Validation, Started: started, Ended: x.Ended}
		for _, m := range res.Measurements {
			if m.Name == t4Objective {
				e.Ms = m.Value
			}
		}
		r.Evaluations = append(r.Evaluations, e)
	}
	return d, nil
}

// Imported counts what DB.Import added; records already present are
// skipped, so importing a file twice adds nothing the second time.
type Imported struct {
	Problems, Runs, Evaluations int
	// Skipped counts the evaluations already recorded.
	Skipped int
}

// Import adds the records of a file written by Export in format JSON or T4
// (told apart by their content) to the database, in one transaction.
// Records already present (the same problem, run or run and sequence
// number) are kept as they are.
func (db *DB) Import(r io.Reader) (Imported, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Imported{}, fmt.Errorf("records: import: %w", err)
	}
	var probe struct {
		Format        string `json:"format"`
		SchemaVersion string `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return Imported{}, fmt.Errorf("records: import: not a JSON export: %w", err)
	}
	var d *dump
	switch {
	case probe.Format == dumpFormat:
		d = new(dump)
		err = json.Unmarshal(data, d)
	case probe.SchemaVersion != "":
		var f t4File
		if err = json.Unmarshal(data, &f); err == nil {
			d, err = fromT4(&f)
		}
	default:
		err = errors.New(`neither hplopt's JSON export (no "format": "hplopt-records") nor T4 (no "schema_version")`)
	}
	if err == nil && d.Version > Version {
		err = fmt.Errorf("written by a newer hplopt (schema version %d > %d)", d.Version, Version)
	}
	if err != nil {
		return Imported{}, fmt.Errorf("records: import: %w", err)
	}
	return db.load(d)
}

// load inserts a dump, skipping what is already recorded.
func (db *DB) load(d *dump) (Imported, error) {
	var n Imported
	err := db.tx("import", func(tx *sql.Tx) error {
		add, err := tx.Prepare(insertEvaluationSQL)
		if err != nil {
			return err
		}
		defer add.Close()
		for _, p := range d.Problems {
			if err := p.Key.Validate(); err != nil {
				return fmt.Errorf("problem %s: %w", p.ID, err)
			}
			if id := p.Key.ID(); id != p.ID {
				return fmt.Errorf("problem %s: its key's ID is %s (the key was edited, or hashed by another hplopt)", p.ID, id)
			}
			created := time.Now()
			if len(p.Runs) > 0 {
				created = p.Runs[0].Started
			}
			added, err := insertProblem(tx, p.Key, created, p.Stale)
			if err != nil {
				return err
			}
			if added {
				n.Problems++
			}
			for _, r := range p.Runs {
				r.Run.Problem = p.ID
				if r.ID == "" {
					return fmt.Errorf("problem %s: a run without an ID", p.ID)
				}
				added, err := insertRun(tx, r.Run)
				if err != nil {
					return err
				}
				if added {
					n.Runs++
				} else {
					var owner string
					if err := tx.QueryRow("SELECT problem FROM runs WHERE id = ?", r.ID).Scan(&owner); err != nil {
						return err
					}
					if owner != p.ID {
						return fmt.Errorf("run %s: recorded here for problem %s, in the file for %s", r.ID, owner, p.ID)
					}
				}
				for _, e := range r.Evaluations {
					e.Run, e.Problem = r.ID, p.ID
					if e.Order == 0 {
						e.Order = e.Seq
					}
					if err := e.check(); err != nil {
						return fmt.Errorf("run %s, evaluation %d: %w", r.ID, e.Seq, err)
					}
					if e.Seq <= 0 {
						return fmt.Errorf("run %s: an evaluation without a sequence number", r.ID)
					}
					args, err := evaluationArgs(e)
					if err != nil {
						return err
					}
					added, err := inserted(add.Exec(args...))
					if err != nil {
						return err
					}
					if added {
						n.Evaluations++
					} else {
						n.Skipped++
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return Imported{}, err
	}
	return n, nil
}
