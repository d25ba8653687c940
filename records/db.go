package records

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	mrand "math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DefaultPath returns where the records live unless the caller says
// otherwise: hplopt/records.db under the user's cache directory
// (os.UserCacheDir: $XDG_CACHE_HOME, else ~/.cache on Linux;
// ~/Library/Caches on macOS; %LocalAppData% on Windows). It is the only
// place the package reads the environment.
func DefaultPath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("records: no cache directory for the default database: %w", err)
	}
	return filepath.Join(dir, "hplopt", "records.db"), nil
}

// The kinds of [Error]: what is wrong with the database as a whole. Test
// with errors.Is.
var (
	// ErrBroken: the file is not a records database (not SQLite, or
	// another program's SQLite database), or it is corrupt.
	ErrBroken = errors.New("records: not a records database, or corrupt")
	// ErrLocked: another process held the database locked past the busy
	// timeout.
	ErrLocked = errors.New("records: locked by another process")
	// ErrReadOnly: the database file or its directory cannot be written.
	ErrReadOnly = errors.New("records: read-only")
	// ErrNewer: the database was written by a newer hplopt, with a schema
	// this one does not know.
	ErrNewer = errors.New("records: written by a newer hplopt")
)

// Error is a failure of the records database: the operation, the
// database's path, the kind (ErrBroken, ErrLocked, ErrReadOnly, ErrNewer,
// or nil for other failures) and the cause. A tuner that gets one warns
// and searches on in memory.
type Error struct {
	Op   string // what was being done: "open", "add", "query", ...
	Path string // the database file
	Kind error  // ErrBroken, ErrLocked, ErrReadOnly, ErrNewer or nil
	Err  error  // the cause
}

// Error prints "records: OP PATH: KIND: CAUSE".
func (e *Error) Error() string {
	msg := "records: " + e.Op + " " + e.Path
	if e.Kind != nil {
		msg += ": " + strings.TrimPrefix(e.Kind.Error(), "records: ")
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the kind and the cause, for errors.Is and errors.As.
func (e *Error) Unwrap() []error { return []error{e.Kind, e.Err} }

// Options are the settings of [Open]; the zero value works.
type Options struct {
	// BusyTimeout is how long a statement waits for another process's
	// lock before it fails with ErrLocked. Default (0): 5 s.
	BusyTimeout time.Duration
	// ReadOnly opens an existing database for queries only: nothing is
	// created, migrated or written. Default false: the database and its
	// directory are created if missing, and an older schema is migrated.
	ReadOnly bool
}

// DB is an open records database. Its methods may be called from several
// goroutines; several processes may open the same file.
type DB struct {
	sql  *sql.DB
	path string
	ro   bool
}

// schema is the list of migrations: schema[i] takes a database from
// version i to i+1 (PRAGMA user_version). Append, never edit.
var schema = [...]string{
	`CREATE TABLE problems (
		id      TEXT PRIMARY KEY,   -- Key.ID
		family  TEXT NOT NULL,      -- Key.Family
		kernel  TEXT NOT NULL,
		space   TEXT NOT NULL,      -- search-space version
		key     TEXT NOT NULL,      -- the key, canonical JSON
		shape   TEXT NOT NULL,      -- Key.Shape, JSON
		stale   INTEGER NOT NULL DEFAULT 0,
		created TEXT NOT NULL
	);
	CREATE INDEX problems_family ON problems(family);
	CREATE INDEX problems_kernel ON problems(kernel);
	CREATE TABLE runs (
		id       TEXT PRIMARY KEY,
		problem  TEXT NOT NULL REFERENCES problems(id) ON DELETE CASCADE,
		strategy TEXT NOT NULL,
		seed     INTEGER NOT NULL,  -- uint64 stored as its int64 bits
		settings TEXT NOT NULL,     -- JSON, '' if none
		tool     TEXT NOT NULL,
		host     TEXT NOT NULL,
		started  TEXT NOT NULL,
		ended    TEXT NOT NULL,     -- '' until the run ends
		stopped  TEXT NOT NULL      -- stop reason, '' until the run ends
	);
	CREATE INDEX runs_problem ON runs(problem);
	CREATE TABLE evaluations (
		run      TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		seq      INTEGER NOT NULL,  -- 1, 2, ... in proposal order
		problem  TEXT NOT NULL REFERENCES problems(id) ON DELETE CASCADE,
		ord      INTEGER NOT NULL,  -- position in measurement order
		params   TEXT NOT NULL,     -- canonical JSON object
		point    TEXT NOT NULL,     -- canonical name=value,... string
		outcome  TEXT NOT NULL,     -- autotune.Outcome's name
		error    TEXT NOT NULL,
		times    TEXT NOT NULL,     -- JSON list of ms, every timed launch
		ms       REAL,              -- the time that counts; NULL unless ok
		build_ms REAL NOT NULL,
		check_ms REAL NOT NULL,
		started  TEXT NOT NULL,
		ended    TEXT NOT NULL,
		PRIMARY KEY (run, seq)
	) WITHOUT ROWID;
	CREATE INDEX evaluations_problem ON evaluations(problem, outcome, ms);`,
	// 2: the single-point kernel's time measured by a run, which a reused
	// best is compared with.
	`ALTER TABLE runs ADD COLUMN baseline_ms REAL NOT NULL DEFAULT 0;`,
	// 3: a build stopped at its time limit is a timeout, no longer a
	// compile failure (the compiler said nothing about the variant, and a
	// later search measures it again: see autotune.Timeout); the
	// evaluations recorded before are relabelled by the runner's message.
	`UPDATE evaluations SET outcome = 'timeout'
		WHERE outcome = 'compile' AND error LIKE 'runner: %build of % did not finish within %';`,
}

// applicationID marks a SQLite file as a records database (PRAGMA
// application_id): "hplo".
const applicationID = 0x68706c6f

// Version is the schema version this package writes.
const Version = len(schema)

// Open opens the records database at path, creating it (and its directory)
// if missing and migrating an older schema, unless o.ReadOnly. An error
// from Open is an [*Error]; its Kind says what is wrong.
func Open(path string, o Options) (*DB, error) {
	if path == "" {
		return nil, &Error{Op: "open", Path: `""`, Err: errors.New("no database path given")}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &Error{Op: "open", Path: path, Err: err}
	}
	db := &DB{path: abs, ro: o.ReadOnly}
	fail := func(err error) (*DB, error) {
		if db.sql != nil {
			db.sql.Close()
		}
		return nil, db.wrap("open", err)
	}
	if o.ReadOnly {
		if _, err := os.Stat(abs); err != nil {
			return fail(err)
		}
	} else if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fail(err)
	}
	busy := o.BusyTimeout
	if busy <= 0 {
		busy = 5 * time.Second
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	if o.ReadOnly {
		q.Set("mode", "ro")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Set("_txlock", "immediate")
	}
	dsn := (&url.URL{Scheme: "file", Path: abs, RawQuery: q.Encode()}).String()
	// Processes creating one database at once can see SQLite's locks, or
	// the other's journal vanishing, before the busy handler applies:
	// such an Open is tried again until the busy timeout.
	deadline := time.Now().Add(busy)
	for {
		if db.sql, err = sql.Open("sqlite", dsn); err != nil {
			return fail(err)
		}
		// One connection: writes of one process are serialized here, and
		// SQLite's locks serialize them across processes.
		db.sql.SetMaxOpenConns(1)
		err := db.migrate()
		if err == nil {
			return db, nil
		}
		if !transient(err) || time.Now().After(deadline) {
			return fail(err)
		}
		db.sql.Close()
		time.Sleep(time.Duration(5+mrand.IntN(20)) * time.Millisecond)
	}
}

// transient reports whether err may go away when tried again: a lock, or
// an I/O error of a file another process just changed.
func transient(err error) bool {
	var se *sqlite.Error
	return kind(err) == ErrLocked || errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_IOERR
}

// migrate checks the schema version and brings it up to date, in one
// transaction that takes the write lock first (so that it also proves the
// database writable, and two processes never migrate at once).
func (db *DB) migrate() error {
	ctx := context.Background()
	if db.ro {
		v, err := db.version(ctx, db.sql)
		if err != nil {
			return err
		}
		if v < Version {
			return fmt.Errorf("schema version %d is older than %d: open it once for writing to migrate it", v, Version)
		}
		return nil
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	v, err := db.version(ctx, tx)
	if err != nil {
		return err
	}
	for ; v < Version; v++ {
		if _, err := tx.Exec(schema[v]); err != nil {
			return fmt.Errorf("migrating the schema to version %d: %w", v+1, err)
		}
	}
	// Setting the version even when unchanged writes page 1: a read-only
	// file fails here, at Open, not at the first evaluation.
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", applicationID, Version)); err != nil {
		return err
	}
	return tx.Commit()
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// version returns the schema version of the database, after checking that
// it is a records database (or an empty one) and not a newer one.
func (db *DB) version(ctx context.Context, q querier) (int, error) {
	var v, app, tables int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, err
	}
	if err := q.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return 0, err
	}
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
		return 0, err
	}
	switch {
	case app != applicationID && (app != 0 || tables > 0):
		return 0, &Error{Kind: ErrBroken, Err: fmt.Errorf("a SQLite database of another program (application id %#x, %d schema objects)", app, tables)}
	case v > Version:
		return 0, &Error{Kind: ErrNewer, Err: fmt.Errorf("schema version %d, this hplopt knows up to %d", v, Version)}
	}
	return v, nil
}

// Path returns the database file's absolute path.
func (db *DB) Path() string { return db.path }

// Close closes the database.
func (db *DB) Close() error {
	if err := db.sql.Close(); err != nil {
		return db.wrap("close", err)
	}
	return nil
}

// wrap turns err into an *Error of operation op on db, with its kind found
// from SQLite's result code or the system error. nil stays nil; an *Error
// made without op and path gets them.
func (db *DB) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Path == "" {
			return &Error{Op: op, Path: db.path, Kind: e.Kind, Err: e.Err}
		}
		return err
	}
	return &Error{Op: op, Path: db.path, Kind: kind(err), Err: err}
}

// kind classifies an error of SQLite or of the file system.
func kind(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return ErrLocked
		case sqlite3.SQLITE_READONLY:
			return ErrReadOnly
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return ErrBroken
		case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM:
			return ErrReadOnly
		}
		return nil
	}
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return ErrReadOnly
	}
	return nil
}
