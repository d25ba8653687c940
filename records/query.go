package records

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hplopt/hplopt/autotune"
)

// Problem is a recorded problem with a summary of its records.
type Problem struct {
	ID      string
	Key     Key
	Stale   bool      // recorded under a search-space version that is not current (see Retire)
	Created time.Time // when it was first recorded
	// Runs and Evaluations count its records; Last is when its last
	// evaluation ended (zero if it has none).
	Runs        int
	Evaluations int
	Last        time.Time
	// Best is its best verified (OK) evaluation, nil if it has none.
	Best *Evaluation
}

type scanner interface{ Scan(dest ...any) error }

const runColumns = "id, problem, strategy, seed, settings, tool, host, started, ended, stopped, baseline_ms"

func scanRun(s scanner) (Run, error) {
	var r Run
	var seed int64
	var settings, started, ended string
	if err := s.Scan(&r.ID, &r.Problem, &r.Strategy, &seed, &settings, &r.Tool, &r.Host, &started, &ended, &r.Stopped, &r.BaselineMs); err != nil {
		return r, err
	}
	r.Seed, r.Started, r.Ended = uint64(seed), parseTime(started), parseTime(ended)
	if settings != "" {
		r.Settings = json.RawMessage(settings)
	}
	return r, nil
}

// evaluationColumns are read from evaluations e joined with their runs r.
const evaluationColumns = "e.run, e.problem, e.seq, e.ord, e.params, e.outcome, e.error, e.times, coalesce(e.ms, 0), e.build_ms, e.check_ms, e.started, e.ended, r.strategy, r.seed"

func scanEvaluation(s scanner, extra ...any) (Evaluation, error) {
	var e Evaluation
	var params, outcome, times, started, ended string
	var seed int64
	dest := append([]any{&e.Run, &e.Problem, &e.Seq, &e.Order, &params, &outcome, &e.Err, &times, &e.Ms, &e.BuildMs, &e.CheckMs, &started, &ended, &e.Strategy, &seed}, extra...)
	if err := s.Scan(dest...); err != nil {
		return e, err
	}
	e.Seed, e.Started, e.Ended = uint64(seed), parseTime(started), parseTime(ended)
	if err := e.Outcome.UnmarshalText([]byte(outcome)); err != nil {
		return e, &Error{Kind: ErrBroken, Err: fmt.Errorf("evaluation %d of run %s: %w", e.Seq, e.Run, err)}
	}
	if err := json.Unmarshal([]byte(params), &e.Params); err != nil {
		return e, &Error{Kind: ErrBroken, Err: fmt.Errorf("evaluation %d of run %s: parameters: %w", e.Seq, e.Run, err)}
	}
	if err := json.Unmarshal([]byte(times), &e.Times); err != nil {
		return e, &Error{Kind: ErrBroken, Err: fmt.Errorf("evaluation %d of run %s: times: %w", e.Seq, e.Run, err)}
	}
	if len(e.Times) == 0 {
		e.Times = nil
	}
	return e, nil
}

// collect runs a query and scans each row with scan.
func collect[T any](db *DB, op string, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.sql.Query(query, args...)
	if err != nil {
		return nil, db.wrap(op, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, db.wrap(op, err)
		}
		out = append(out, v)
	}
	return out, db.wrap(op, rows.Err())
}

// problems returns the problems selected by where (a condition on the
// problems p), with their summaries, ordered by kernel and creation.
func (db *DB) problems(where string, args ...any) ([]Problem, error) {
	ps, err := collect(db, "query", func(s scanner) (Problem, error) {
		var p Problem
		var key, created, last string
		if err := s.Scan(&p.ID, &key, &p.Stale, &created, &p.Runs, &p.Evaluations, &last); err != nil {
			return p, err
		}
		p.Created, p.Last = parseTime(created), parseTime(last)
		if err := json.Unmarshal([]byte(key), &p.Key); err != nil {
			return p, &Error{Kind: ErrBroken, Err: fmt.Errorf("problem %s: key: %w", p.ID, err)}
		}
		return p, nil
	}, `SELECT p.id, p.key, p.stale, p.created,
		(SELECT count(*) FROM runs r WHERE r.problem = p.id),
		(SELECT count(*) FROM evaluations e WHERE e.problem = p.id),
		(SELECT coalesce(max(e.ended), '') FROM evaluations e WHERE e.problem = p.id)
		FROM problems p WHERE `+where+` ORDER BY p.kernel, p.created, p.id`, args...)
	if err != nil || len(ps) == 0 {
		return ps, err
	}
	// SQLite takes the other columns of a min() aggregate from the row
	// with the minimum: the best evaluation of each problem.
	best, err := collect(db, "query", func(s scanner) (Evaluation, error) { var m float64; return scanEvaluation(s, &m) },
		`SELECT `+evaluationColumns+`, min(e.ms) FROM evaluations e JOIN runs r ON r.id = e.run
		WHERE e.problem IN (SELECT p.id FROM problems p WHERE `+where+`) AND e.outcome = ? AND e.ms IS NOT NULL
		GROUP BY e.problem`, append(slices.Clone(args), autotune.OK.String())...)
	if err != nil {
		return nil, err
	}
	byID := map[string]*Evaluation{}
	for i := range best {
		byID[best[i].Problem] = &best[i]
	}
	for i := range ps {
		ps[i].Best = byID[ps[i].ID]
	}
	return ps, nil
}

// Problems returns every recorded problem with a summary of its records,
// ordered by kernel name and creation.
func (db *DB) Problems() ([]Problem, error) { return db.problems("1") }

// Find returns the problems whose ID starts with q, or else those of the
// kernel named q.
func (db *DB) Find(q string) ([]Problem, error) {
	if q == "" {
		return nil, errors.New("records: find: nothing to look for")
	}
	ps, err := db.problems("substr(p.id, 1, ?) = ?", len(q), q)
	if err != nil || len(ps) > 0 {
		return ps, err
	}
	return db.problems("p.kernel = ?", q)
}

// Runs returns the runs of a problem, oldest first.
func (db *DB) Runs(problem string) ([]Run, error) {
	return collect(db, "query", scanRun, "SELECT "+runColumns+" FROM runs WHERE problem = ? ORDER BY started, id", problem)
}

// Evaluations returns every recorded evaluation of a problem (a Key.ID),
// run by run (oldest first) in sequence order: what a resumed search feeds
// its strategy instead of measuring again.
func (db *DB) Evaluations(problem string) ([]Evaluation, error) {
	return collect(db, "query", func(s scanner) (Evaluation, error) { return scanEvaluation(s) },
		"SELECT "+evaluationColumns+" FROM evaluations e JOIN runs r ON r.id = e.run WHERE e.problem = ? ORDER BY r.started, r.id, e.seq", problem)
}

// Best returns the best verified (OK) evaluation of a problem (a Key.ID),
// and false if it has none.
func (db *DB) Best(problem string) (Evaluation, bool, error) {
	es, err := collect(db, "query", func(s scanner) (Evaluation, error) { return scanEvaluation(s) },
		"SELECT "+evaluationColumns+" FROM evaluations e JOIN runs r ON r.id = e.run WHERE e.problem = ? AND e.outcome = ? AND e.ms IS NOT NULL ORDER BY e.ms, e.started LIMIT 1",
		problem, autotune.OK.String())
	if err != nil || len(es) == 0 {
		return Evaluation{}, false, err
	}
	return es[0], true, nil
}

// Neighbour is a recorded problem of a family, its best verified
// evaluation and its distance to the shape asked about.
type Neighbour struct {
	Problem  Problem
	Best     Evaluation
	Distance float64 // Distance of its shape to the key's
}

// family returns the problems of k's family that have a verified best,
// with their distance to k.
func (db *DB) family(k Key) ([]Neighbour, error) {
	return db.neighbours(k, nil, "p.family = ?", k.Family())
}

// neighbours returns the problems that where selects and keep (nil: all)
// accepts that have a verified best, with their distance to k.
func (db *DB) neighbours(k Key, keep func(Key) bool, where string, args ...any) ([]Neighbour, error) {
	ps, err := db.problems(where, args...)
	if err != nil {
		return nil, err
	}
	shape := k.Shape()
	var out []Neighbour
	for _, p := range ps {
		if p.Best != nil && (keep == nil || keep(p.Key)) {
			out = append(out, Neighbour{Problem: p, Best: *p.Best, Distance: Distance(shape, p.Key.Shape())})
		}
	}
	return out, nil
}

// nearestFirst sorts out by distance, then by tie, then by problem ID,
// and keeps the first n (all if n <= 0).
func nearestFirst(out []Neighbour, n int, tie func(a, b Neighbour) int) []Neighbour {
	slices.SortStableFunc(out, func(a, b Neighbour) int {
		return cmp.Or(cmp.Compare(a.Distance, b.Distance), tie(a, b), strings.Compare(a.Problem.ID, b.Problem.ID))
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// A search of a shape never tuned starts from the best settings of the
// NearestShapes recorded shapes of its family nearest to it (Nearest),
// else of the KinShapes nearest of its kin (Kin): the optimizer's rule,
// which replay.Nearest replays.
const (
	NearestShapes = 3
	KinShapes     = 2
)

// Nearest returns the best verified settings of the n recorded shapes of
// k's family nearest to k's (all of them if n <= 0), nearest first: where a
// search of a shape never tuned starts. k's own problem, if recorded, comes
// first at distance 0. Records of another search-space version are of
// another family and never returned.
func (db *DB) Nearest(k Key, n int) ([]Neighbour, error) {
	out, err := db.family(k)
	if err != nil {
		return nil, err
	}
	return nearestFirst(out, n, func(a, b Neighbour) int { return 0 }), nil
}

// Kin returns the best verified settings of the n recorded shapes of k's
// kin (Key.Kin) on other devices or drivers than k's, nearest first, those
// of k's device name (another driver) before the others at equal distance
// (all of them if n <= 0): where a search of a family never recorded
// starts. Records of another search-space version or another OpenCL
// platform are never returned.
func (db *DB) Kin(k Key, n int) ([]Neighbour, error) {
	kin, fam, name := k.Kin(), k.Family(), k.canonical().Device.Name
	out, err := db.neighbours(k, func(pk Key) bool { return pk.Kin() == kin && pk.Family() != fam }, "p.kernel = ?", k.canonical().Kernel)
	if err != nil {
		return nil, err
	}
	other := func(n Neighbour) int { // another device name than k's
		if n.Problem.Key.Device.Name == name {
			return 0
		}
		return 1
	}
	return nearestFirst(out, n, func(a, b Neighbour) int { return cmp.Compare(other(a), other(b)) }), nil
}

// Rule returns the best verified settings of every recorded shape of k's
// family, ordered by shape (smallest first, comparing the Key.Shape vectors
// value by value): the decision rule the records imply, from which a
// caller derives size ranges. Distance is to k's shape.
func (db *DB) Rule(k Key) ([]Neighbour, error) {
	out, err := db.family(k)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b Neighbour) int {
		return cmp.Or(slices.Compare(a.Problem.Key.Shape(), b.Problem.Key.Shape()), strings.Compare(a.Problem.ID, b.Problem.ID))
	})
	return out, nil
}

// Retire marks stale every problem recorded under a search-space version
// other than current, and as current those recorded under it; it returns
// the number of stale problems. The optimizer calls it with its version.
func (db *DB) Retire(current string) (int, error) {
	if _, err := db.sql.Exec("UPDATE problems SET stale = (space <> ?)", current); err != nil {
		return 0, db.wrap("retire", err)
	}
	var n int
	err := db.sql.QueryRow("SELECT count(*) FROM problems WHERE stale").Scan(&n)
	return n, db.wrap("retire", err)
}

// Prune says which records DB.Prune drops. Each criterion given narrows
// the selection; at least one must be given.
type Prune struct {
	Stale  bool      // only stale problems (see Retire)
	Before time.Time // only runs started before this time (default: any time)
	Kernel string    // only the problems of this kernel (default: any kernel)
}

// Pruned counts what DB.Prune dropped.
type Pruned struct {
	Problems, Runs, Evaluations int
}

// Prune drops the records p selects: whole problems, or with p.Before only
// their runs started before it (a problem left without runs goes too),
// each run with its evaluations. Then it compacts the file (VACUUM).
func (db *DB) Prune(p Prune) (Pruned, error) {
	var where []string
	var args []any
	if p.Stale {
		where = append(where, "p.stale")
	}
	if p.Kernel != "" {
		where = append(where, "p.kernel = ?")
		args = append(args, p.Kernel)
	}
	if len(where) == 0 && p.Before.IsZero() {
		return Pruned{}, errors.New("records: prune: no criterion given (stale, before a date, or a kernel)")
	}
	where = append(where, "1")
	problems := "SELECT p.id FROM problems p WHERE " + strings.Join(where, " AND ")
	runs := "SELECT r.id FROM runs r WHERE r.problem IN (" + problems + ")"
	runArgs := args
	if !p.Before.IsZero() {
		runs += " AND r.started < ?"
		runArgs = append(slices.Clone(args), fmtTime(p.Before))
	}
	var n Pruned
	err := db.tx("prune", func(tx *sql.Tx) error {
		if err := tx.QueryRow("SELECT count(*) FROM evaluations WHERE run IN ("+runs+")", runArgs...).Scan(&n.Evaluations); err != nil {
			return err
		}
		res, err := tx.Exec("DELETE FROM runs WHERE id IN ("+runs+")", runArgs...)
		if err != nil {
			return err
		}
		r, _ := res.RowsAffected()
		n.Runs = int(r)
		cond := problems
		if !p.Before.IsZero() { // only the problems left without runs
			cond += " AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.problem = p.id)"
		}
		if res, err = tx.Exec("DELETE FROM problems WHERE id IN ("+cond+")", args...); err != nil {
			return err
		}
		r, _ = res.RowsAffected()
		n.Problems = int(r)
		return nil
	})
	if err != nil {
		return Pruned{}, err
	}
	if _, err := db.sql.Exec("VACUUM"); err != nil {
		return n, db.wrap("prune (compacting)", err)
	}
	_, err = db.sql.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	return n, db.wrap("prune (checkpoint)", err)
}
