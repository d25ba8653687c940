// Package records keeps every measurement of hplopt's tuner in a SQLite
// database, so that a tuned result outlives the process: a search that was
// killed resumes from what it measured, a problem already tuned reuses its
// best verified variant, a shape never tuned starts from the best settings
// of the nearest recorded shapes, and results move between machines by
// export and import.
//
// # The database
//
// One file, by default records.db in hplopt's directory under the user's
// cache directory ([DefaultPath]: $XDG_CACHE_HOME/hplopt/records.db, else
// ~/.cache/hplopt/records.db on Linux). The package reads no environment
// variable itself except through DefaultPath; the command line decides
// between --db PATH, HPLOPT_DB and the default. SQLite is reached through
// modernc.org/sqlite (pure Go). The database runs in WAL mode with
// synchronous=NORMAL, foreign keys on and a busy timeout (5 s by default),
// so several processes may record into one database at once. Its schema
// version is PRAGMA user_version; [Open] migrates an older schema and
// refuses a newer one.
//
// Tables:
//
//   - problems: one row per [Key]: its ID, family, kernel, search-space
//     version, the key itself as canonical JSON, its shape and a stale flag.
//   - runs: one row per tuning run ([Run]): problem, strategy, seed, the
//     settings as JSON, tool version, host, start, end, stop reason and
//     the time of the kernel as written (the single-point kernel).
//   - evaluations: one row per evaluation ([Evaluation]): run, sequence
//     number, measurement order, parameters (canonical JSON and a canonical
//     name=value string), outcome, failure message, every timed launch,
//     the time that counts, build and check time, start and end.
//
// # Durability
//
// [Recorder.Add] commits every evaluation in its own transaction before it
// returns. In WAL mode with synchronous=NORMAL a commit appends to the
// write-ahead log without waiting for the disk: about 0.1 ms per
// evaluation (BenchmarkAdd: 75 to 97 µs on a 2-core AMD EPYC, against 0.8
// to 1.4 ms with synchronous=FULL, an fsync per commit), far below the
// milliseconds to seconds an evaluation takes, so nothing is batched. The
// committed rows survive the process being killed at any moment (SIGKILL
// loses at most the evaluation in flight); only an operating-system crash or
// power loss may roll back the last commits.
//
// # Problems, families and staleness
//
// A [Key] identifies a tuning problem: the kernel's name and structural
// hash, the device, the index space, the arguments' types and shapes, the
// scalar values the generated code depends on, and the version of the
// optimizer's search space. [Key.ID] hashes all of it; [Key.Family] hashes
// all but the sizes, so that [DB.Nearest] can find the recorded shapes
// closest to one never tuned. Records made under another search-space
// version never match a current key; [DB.Retire] marks them stale, and
// [DB.Prune] drops them.
//
// # Errors
//
// Trouble with the database itself (not a records database or corrupt,
// locked by another process past the busy timeout, read-only, written by a
// newer hplopt) comes back as an [*Error] whose Kind is one of [ErrBroken],
// [ErrLocked], [ErrReadOnly] and [ErrNewer] (test with errors.Is). A tuner
// turns it into a warning ("records: ...: the search goes on in memory")
// and tunes without records.
package records
