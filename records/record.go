package records

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hplopt/hplopt/autotune"
)

// Run is one tuning run of a problem.
type Run struct {
	// ID identifies the run on every machine; Begin makes a random one
	// when it is empty.
	ID string `json:"id"`
	// Problem is the ID of the run's problem; Begin sets it.
	Problem string `json:"-"`
	// Strategy and Seed are the search strategy's name and seed.
	Strategy string `json:"strategy"`
	Seed     uint64 `json:"seed"`
	// Settings are the run's settings as JSON; optional.
	Settings json.RawMessage `json:"settings,omitempty"`
	// Tool is the version of the tool that ran it; Host the host's name.
	Tool string `json:"tool"`
	Host string `json:"host"`
	// Started is when the run began (Begin sets time.Now when it is zero);
	// Ended when it ended, zero until End (and for ever for a killed run).
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
	// Stopped says why the run ended (autotune.StopReason's name); empty
	// until End.
	Stopped string `json:"stopped,omitempty"`
	// BaselineMs is the time of the kernel as written (the single-point
	// kernel) measured by the run, in ms; 0 if unknown. A reused best is
	// run only if it beat it.
	BaselineMs float64 `json:"baseline_ms,omitzero"`
}

// Evaluation is one evaluation of a point: one row of the records.
type Evaluation struct {
	// Run and Problem are the IDs of its run and problem; the Recorder
	// sets them.
	Run     string `json:"-"`
	Problem string `json:"-"`
	// Seq numbers the run's evaluations 1, 2, ... in the order their
	// points were proposed; Add gives the next number when it is 0.
	Seq int `json:"seq"`
	// Order is the evaluation's position in the order of measurement,
	// which differs from Seq when points were measured out of proposal
	// order; Add sets it to Seq when it is 0.
	Order int `json:"order"`
	// Params is the point: parameter name to value.
	Params map[string]int `json:"params"`
	// Outcome is how the evaluation ended; Err why it failed (empty for
	// OK).
	Outcome autotune.Outcome `json:"outcome"`
	Err     string           `json:"error,omitempty"`
	// Times are every timed launch in ms; Ms is the time that counts (their
	// median), only for OK.
	Times []float64 `json:"times,omitempty"`
	Ms    float64   `json:"ms,omitzero"`
	// BuildMs is the time spent waiting for the variant's build; CheckMs
	// the time spent checking its outputs, in ms.
	BuildMs float64 `json:"build_ms,omitzero"`
	CheckMs float64 `json:"check_ms,omitzero"`
	// Started and Ended bound the evaluation.
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	// Strategy and Seed are those of the run; queries fill them in.
	Strategy string `json:"-"`
	Seed     uint64 `json:"-"`
}

// Point returns the evaluation's parameters as a canonical string:
// name=value pairs sorted by name, comma-separated.
func (e Evaluation) Point() string { return PointKey(e.Params) }

// PointKey returns the canonical string of a point: name=value pairs
// sorted by name, comma-separated ("" for no parameters).
func PointKey(params map[string]int) string {
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(params[n]))
	}
	return b.String()
}

// check reports what makes e unfit to store.
func (e Evaluation) check() error {
	if _, err := e.Outcome.MarshalText(); err != nil {
		return err
	}
	for _, t := range append([]float64{e.Ms, e.BuildMs, e.CheckMs}, e.Times...) {
		if math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
			return fmt.Errorf("time %g ms is not a finite, non-negative number", t)
		}
	}
	if e.Outcome == autotune.OK && len(e.Times) == 0 && e.Ms == 0 {
		return errors.New("an ok evaluation without a time")
	}
	if e.Seq < 0 || e.Order < 0 {
		return fmt.Errorf("negative sequence number %d or order %d", e.Seq, e.Order)
	}
	return nil
}

// timeFormat is how times are stored: UTC, fixed width, so that text
// order is time order.
const timeFormat = "2006-01-02T15:04:05.000000Z"

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeFormat)
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(timeFormat, s) // written by fmtTime; "" is the zero time
	return t
}

// NewRunID returns a random run ID (32 hex digits).
func NewRunID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// Recorder records the evaluations of one run as they are measured. Its
// methods may be called from several goroutines.
type Recorder struct {
	db   *DB
	mu   sync.Mutex
	run  Run
	next int       // the next sequence number
	add  *sql.Stmt // nil after End
}

// Begin starts recording a run of the problem k: it records the problem if
// it is new and the run, and returns the Recorder its evaluations go to.
// Begin with the ID of a run of the same problem already recorded goes on
// with that run (a resumed search): sequence numbers continue after its
// last evaluation, and its recorded fields are kept.
func (db *DB) Begin(k Key, r Run) (*Recorder, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if r.ID == "" {
		r.ID = NewRunID()
	}
	if r.Started.IsZero() {
		r.Started = time.Now()
	}
	if math.IsNaN(r.BaselineMs) || math.IsInf(r.BaselineMs, 0) || r.BaselineMs < 0 {
		return nil, fmt.Errorf("records: run %s: single-point time %g ms is not a finite, non-negative number", r.ID, r.BaselineMs)
	}
	if len(r.Settings) > 0 && !json.Valid(r.Settings) {
		return nil, fmt.Errorf("records: run %s: its settings are not valid JSON", r.ID)
	}
	r.Problem = k.ID()
	rec := &Recorder{db: db}
	err := db.tx("begin", func(tx *sql.Tx) error {
		if _, err := insertProblem(tx, k, r.Started, false); err != nil {
			return err
		}
		if _, err := insertRun(tx, r); err != nil {
			return err
		}
		got, err := scanRun(tx.QueryRow("SELECT "+runColumns+" FROM runs WHERE id = ?", r.ID))
		if err != nil {
			return err
		}
		if got.Problem != r.Problem {
			return fmt.Errorf("run %s belongs to another problem (%s)", r.ID, got.Problem)
		}
		rec.run = got
		return tx.QueryRow("SELECT coalesce(max(seq), 0) + 1 FROM evaluations WHERE run = ?", r.ID).Scan(&rec.next)
	})
	if err != nil {
		return nil, err
	}
	rec.add, err = db.sql.Prepare(insertEvaluationSQL)
	if err != nil {
		return nil, db.wrap("begin", err)
	}
	return rec, nil
}

// Run returns the run being recorded, as recorded.
func (r *Recorder) Run() Run {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.run
}

// Add records one evaluation and commits it before it returns. It fills
// Run and Problem, and Seq (the next number) and Order (Seq) when they are
// 0, and returns the evaluation as recorded.
func (r *Recorder) Add(e Evaluation) (Evaluation, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.add == nil {
		return e, fmt.Errorf("records: run %s: Add after End", r.run.ID)
	}
	e.Run, e.Problem, e.Strategy, e.Seed = r.run.ID, r.run.Problem, r.run.Strategy, r.run.Seed
	if e.Seq == 0 {
		e.Seq = r.next
	}
	if e.Order == 0 {
		e.Order = e.Seq
	}
	if err := e.check(); err != nil {
		return e, fmt.Errorf("records: run %s, evaluation %d: %w", e.Run, e.Seq, err)
	}
	args, err := evaluationArgs(e)
	if err != nil {
		return e, err
	}
	added, err := inserted(r.add.Exec(args...))
	if err != nil {
		return e, r.db.wrap("add", err)
	}
	if !added {
		return e, fmt.Errorf("records: run %s already has evaluation %d", e.Run, e.Seq)
	}
	r.next = max(r.next, e.Seq+1)
	return e, nil
}

// End records the end of the run and why it stopped (autotune.StopReason's
// name), and releases the Recorder. A run that is never ended (the process
// was killed) keeps its evaluations, with no end.
func (r *Recorder) End(stopped string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.add == nil {
		return nil
	}
	r.add.Close()
	r.add = nil
	r.run.Ended, r.run.Stopped = time.Now(), stopped
	_, err := r.db.sql.Exec("UPDATE runs SET ended = ?, stopped = ? WHERE id = ?", fmtTime(r.run.Ended), stopped, r.run.ID)
	return r.db.wrap("end", err)
}

// tx runs f in a transaction (which takes the write lock at once) and
// commits it if f returns nil.
func (db *DB) tx(op string, f func(*sql.Tx) error) error {
	tx, err := db.sql.BeginTx(context.Background(), nil)
	if err != nil {
		return db.wrap(op, err)
	}
	defer tx.Rollback()
	if err := f(tx); err != nil {
		return db.wrap(op, err)
	}
	return db.wrap(op, tx.Commit())
}

// insertProblem records the problem k unless it is recorded; it reports
// whether it did.
func insertProblem(tx *sql.Tx, k Key, created time.Time, stale bool) (bool, error) {
	shape, err := json.Marshal(k.Shape())
	if err != nil {
		return false, err
	}
	res, err := tx.Exec(`INSERT OR IGNORE INTO problems (id, family, kernel, space, key, shape, created, stale) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID(), k.Family(), k.Kernel, k.Space, k.JSON(), string(shape), fmtTime(created), stale)
	return inserted(res, err)
}

// inserted reports whether an INSERT OR IGNORE inserted its row.
func inserted(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// insertRun records r unless a run of its ID is recorded; it reports
// whether it did.
func insertRun(tx *sql.Tx, r Run) (bool, error) {
	res, err := tx.Exec(`INSERT OR IGNORE INTO runs (id, problem, strategy, seed, settings, tool, host, started, ended, stopped, baseline_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.Problem, r.Strategy, int64(r.Seed), string(r.Settings), r.Tool, r.Host, fmtTime(r.Started), fmtTime(r.Ended), r.Stopped, r.BaselineMs)
	return inserted(res, err)
}

const insertEvaluationSQL = `INSERT OR IGNORE INTO evaluations
	(run, seq, problem, ord, params, point, outcome, error, times, ms, build_ms, check_ms, started, ended)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// evaluationArgs returns the values of insertEvaluationSQL for e.
func evaluationArgs(e Evaluation) ([]any, error) {
	params, err := json.Marshal(orEmptyMap(e.Params)) // encoding/json sorts map keys: canonical
	if err != nil {
		return nil, err
	}
	times, err := json.Marshal(orEmpty(e.Times))
	if err != nil {
		return nil, err
	}
	var ms any // NULL unless OK
	if e.Outcome == autotune.OK {
		ms = e.Ms
	}
	return []any{e.Run, e.Seq, e.Problem, e.Order, string(params), e.Point(), e.Outcome.String(), e.Err, string(times), ms,
		e.BuildMs, e.CheckMs, fmtTime(e.Started), fmtTime(e.Ended)}, nil
}

func orEmptyMap(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}
