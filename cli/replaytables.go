package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hplopt/hplopt/replay"
	"github.com/hplopt/hplopt/strategies"
)

// tablesReport is what hplopt replay --tables --json writes.
type tablesReport struct {
	Strategy  string  `json:"strategy"`
	Settings  string  `json:"settings,omitempty"`
	FirstSeed int     `json:"first_seed"`
	Seeds     int     `json:"seeds"`
	Share     float64 `json:"share"`
	// Tuned are the --tuned globs; each standing names the tables its
	// searches started from.
	Tuned      string            `json:"tuned,omitempty"`
	TunedFound bool              `json:"tuned_found,omitempty"`
	TunedSeed  int               `json:"tuned_seed,omitempty"`
	Tables     []replay.Standing `json:"tables"`
	All        replay.Tally      `json:"all"`
	Subset     *replay.Tally     `json:"subset,omitempty"`
	// Missed names the tables that do not meet the target.
	Missed []string `json:"missed"`
}

// tableFiles returns the files the comma-separated globs of flag match,
// sorted, each once; an error names a glob that matches none.
func tableFiles(flag, globs string) ([]string, error) {
	var files []string
	for _, g := range strings.Split(globs, ",") {
		g = strings.TrimSpace(g)
		if g == "" {
			continue
		}
		m, err := filepath.Glob(g)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", flag, g, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s %s: no file matches", flag, g)
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

// replayTables is hplopt replay --tables: one strategy replayed on every
// table the globs match, each with cfg.Share of its rows, and how each
// stands against the target (replay.Stand), then the counts over every
// table and over the subset. A table that cannot be loaded or replayed
// ends it with an error before anything is replayed or after every other
// table; an interrupt prints the tables replayed so far.
func replayTables(cfg *replayConfig, stdout, stderr io.Writer) int {
	tables, err := loadTables("--tables", cfg.Tables, nil)
	var subset []string
	if err == nil && cfg.Subset != "" {
		if subset, err = replay.ReadNames(cfg.Subset); err != nil {
			err = fmt.Errorf("--subset: %w", err)
		}
	}
	var before *tablesReport
	if err == nil && cfg.Against != "" {
		before, err = readTablesReport(cfg.Against)
	}
	var tuned []*replay.Table
	if err == nil && cfg.Tuned != "" {
		tuned, err = cfg.tunedTables(tables)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hplopt replay: %v\n", err)
		return 1
	}
	records := make([][]map[string]int, len(tables))
	from := make([][]string, len(tables))
	for i, t := range tables {
		if tuned != nil {
			records[i], from[i] = replay.Nearest(t, tuned)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	run := func(i int) replay.Config {
		c := cfg.Run
		c.Evaluations = replay.EveryBudget(tables[i].Len(), cfg.Share)
		c.Records = records[i]
		return c
	}
	done := 0
	results, errs := replay.ReplayTables(ctx, tables, cfg.Parallel, run, func(i int, err error) {
		done++
		if err == nil {
			fmt.Fprintf(stderr, "replayed %d of %d: %s\n", done, len(tables), filepath.Base(tables[i].Name()))
		}
	})
	first, seeds := cfg.Run.SeedRange()
	rep := tablesReport{Strategy: cfg.Run.Strategies[0], FirstSeed: first, Seeds: seeds, Share: cfg.Share, Tuned: cfg.Tuned, TunedFound: cfg.TunedFound}
	if cfg.TunedFound {
		rep.TunedSeed = cfg.TunedSeed
	}
	// The strategy's name in full and its settings, from a replay.
	if i := slices.IndexFunc(results, func(r *replay.Result) bool { return r != nil }); i >= 0 {
		rep.Strategy, rep.Settings = results[i].Strategy, results[i].Settings
	}
	var failed []error
	for i, r := range results {
		if errs[i] != nil {
			if !errors.Is(errs[i], context.Canceled) {
				failed = append(failed, fmt.Errorf("%s: %w", tables[i].Name(), errs[i]))
			}
			continue
		}
		s := replay.Stand(tables[i], r)
		for _, f := range from[i] {
			s.Tuned = append(s.Tuned, filepath.Base(f))
		}
		rep.Tables = append(rep.Tables, s)
	}
	var sub replay.Tally
	rep.Missed = []string{}
	for _, s := range rep.Tables {
		rep.All.Add(s)
		if slices.Contains(subset, s.Table) {
			sub.Add(s)
		}
		if !s.Met() {
			rep.Missed = append(rep.Missed, s.Table)
		}
	}
	if cfg.Subset != "" {
		rep.Subset = &sub
	}
	name := rep.Strategy
	if rep.Settings != "" {
		name += " (" + rep.Settings + ")"
	}
	fmt.Fprintf(stdout, "# %s, seeds %d to %d, a budget of %.3g of each table's rows (at least 20 evaluations); the target: a median of at least %.2f of the optimum after %.3g%% of the rows, and beating random search from 20 evaluations\n",
		name, first, first+seeds-1, cfg.Share, replay.TargetFraction, 100*replay.TargetShare)
	if cfg.Tuned != "" {
		started := 0
		for _, s := range rep.Tables {
			if len(s.Tuned) > 0 {
				started++
			}
		}
		fmt.Fprintf(stdout, "# --tuned %s%s: the searches of %d of the %d tables first start from the best of the nearest of those tables of their kernel (the JSON's tuned names them); the others as without\n", cfg.Tuned, cfg.foundNote(), started, len(rep.Tables))
	}
	if cfg.Run.Noise > 0 {
		fmt.Fprintf(stdout, "# %s\n", cfg.noiseLine())
	}
	for _, line := range replay.StandingLines(rep.Tables) {
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintln(stdout, rep.All.Line("every table"))
	if rep.Subset != nil {
		fmt.Fprintln(stdout, rep.Subset.Line("the tables of "+cfg.Subset))
	}
	fmt.Fprintf(stdout, "met the target: %d of %d", rep.All.Met, rep.All.Tables)
	if rep.Subset != nil {
		fmt.Fprintf(stdout, " (%d of the %d of %s)", rep.Subset.Met, rep.Subset.Tables, cfg.Subset)
	}
	if len(rep.Missed) > 0 {
		fmt.Fprintf(stdout, "; missed: %s", strings.Join(rep.Missed, ", "))
	}
	fmt.Fprintln(stdout)
	if before != nil {
		compareTables(stdout, cfg.Against, before, &rep)
	}
	if cfg.JSON != "" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err == nil {
			err = os.WriteFile(cfg.JSON, append(data, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "hplopt replay: %v\n", err)
			return 1
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(stderr, "hplopt replay: %v\n", errors.Join(failed...))
		return 1
	}
	if len(rep.Tables) < len(tables) {
		fmt.Fprintf(stderr, "hplopt replay: interrupted: %d of %d tables replayed\n", len(rep.Tables), len(tables))
		return 1
	}
	return 0
}

// readTablesReport reads an earlier --tables --json output.
func readTablesReport(file string) (*tablesReport, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--against: %w", err)
	}
	var r tablesReport
	if err := json.Unmarshal(data, &r); err != nil || r.Tables == nil {
		if err == nil {
			err = errors.New("no tables")
		}
		return nil, fmt.Errorf("--against %s: not a replay --tables --json output: %v", file, err)
	}
	return &r, nil
}

// compareTables prints, for the tables in both reports, those whose
// median after 2.5% (to the printed three decimals) or whose beating
// random search changed, each with whether it now meets the target or
// no longer does, then the counts gained and lost.
func compareTables(w io.Writer, file string, before, now *tablesReport) {
	old := map[string]replay.Standing{}
	for _, s := range before.Tables {
		old[s.Table] = s
	}
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	name := before.Strategy
	if before.Settings != "" {
		name += " (" + before.Settings + ")"
	}
	if before.Tuned != "" {
		name += ", --tuned " + before.Tuned
		if before.TunedFound {
			name += fmt.Sprintf(" --tuned-found (seed %d)", max(1, before.TunedSeed))
		}
	}
	fmt.Fprintf(w, "# against %s: %s, seeds %d to %d, a budget of %.3g; each changed table: the median after 2.5%% and whether it beats random search, before -> now\n",
		file, name, before.FirstSeed, before.FirstSeed+before.Seeds-1, before.Share)
	gained, lost, both := 0, 0, 0
	for _, s := range now.Tables {
		b, ok := old[s.Table]
		if !ok {
			continue
		}
		both++
		if fmt.Sprintf("%.3f", b.Fraction) == fmt.Sprintf("%.3f", s.Fraction) && b.BeatsRandom == s.BeatsRandom {
			continue
		}
		note := ""
		switch {
		case s.Met() && !b.Met():
			note, gained = " (now meets the target)", gained+1
		case b.Met() && !s.Met():
			note, lost = " (no longer meets it)", lost+1
		}
		fmt.Fprintf(w, "%s: %.3f %s -> %.3f %s%s\n", s.Table, b.Fraction, yes(b.BeatsRandom), s.Fraction, yes(s.BeatsRandom), note)
	}
	fmt.Fprintf(w, "against %s: of the %d tables in both, %d gained the target, %d lost it\n", file, both, gained, lost)
}

// loadTables loads the CSV tables the globs of flag match (tableFiles),
// taking those of loaded (by name) instead of loading them again.
func loadTables(flag, globs string, loaded []*replay.Table) ([]*replay.Table, error) {
	files, err := tableFiles(flag, globs)
	if err != nil {
		return nil, err
	}
	var out []*replay.Table
	for _, f := range files {
		if i := slices.IndexFunc(loaded, func(t *replay.Table) bool { return t.Name() == f }); i >= 0 {
			out = append(out, loaded[i])
			continue
		}
		t, err := replay.LoadCSV(f)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// tunedTables loads the --tuned tables (loadTables, taking those of
// loaded), with --tuned-found each cut to the rows one search of the
// default measured (replay.Searched: seed --tuned-seed, a tenth of the
// table).
func (cfg *replayConfig) tunedTables(loaded []*replay.Table) ([]*replay.Table, error) {
	tables, err := loadTables("--tuned", cfg.Tuned, loaded)
	if err != nil || !cfg.TunedFound {
		return tables, err
	}
	out := make([]*replay.Table, len(tables))
	for i, t := range tables {
		if out[i], err = replay.Searched(t, strategies.Default, 0.1, uint64(cfg.TunedSeed)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// noiseLine says how --noise replays.
func (cfg *replayConfig) noiseLine() string {
	return fmt.Sprintf("--noise %g: each evaluation measures its row's time times exp(%g*Z), Z standard normal; a search's best is the recorded time of the point it measured fastest; random search's expected best stays that of the recorded times (a stricter bar: it would pick by noisy times too)", cfg.Run.Noise, cfg.Run.Noise)
}

// tunedLine says which tables a search with --tuned first starts from.
func (cfg *replayConfig) tunedLine(from []string) string {
	if len(from) == 0 {
		return "--tuned" + cfg.foundNote() + ": no table of this kernel's family or kin but its own problem's has a row with its pins: the searches start as without"
	}
	names := make([]string, len(from))
	for i, f := range from {
		names[i] = filepath.Base(f)
	}
	return "--tuned" + cfg.foundNote() + ": the searches first start from the best of " + strings.Join(names, ", ") + ", carried to these sizes, as a live search from its tuning records"
}

// foundNote is what --tuned-found adds to the --tuned lines.
func (cfg *replayConfig) foundNote() string {
	if !cfg.TunedFound {
		return ""
	}
	return fmt.Sprintf(" --tuned-found (of each, the rows one search of the default measured, seed %d)", cfg.TunedSeed)
}
