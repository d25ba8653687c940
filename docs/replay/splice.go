//go:build ignore

// Splice puts a strategy's replay made now in place of its entry in an
// every-strategy replay output made before, when only that strategy's code
// changed since: the lines of the output (TABLE.txt) that start with the
// strategy's name, its object in TABLE.json, and the plot TABLE.png drawn
// again from the spliced JSON by replay.WritePlot, as hplopt replay --plot
// draws it. Run from the repository root:
//
//	hplopt replay --table testdata/replay/TABLE.csv -e N --seeds 20 --at 20,2.5%,5% \
//	    -s opening --json NEW.json > NEW.txt
//	go run docs/replay/splice.go testdata/replay/TABLE.csv docs/replay/TABLE NEW
//
// (docs/replay/splice.sh does it for every table.) Given no NEW it draws
// the plot again from TABLE.json alone, which checks that the plot is the
// one the JSON gives.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hplopt/hplopt/replay"
)

func main() {
	if len(os.Args) != 3 && len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: go run docs/replay/splice.go TABLE.csv OUTPUT [NEW]  (OUTPUT.txt, .json, .png; NEW.txt, .json)")
		os.Exit(2)
	}
	if err := splice(os.Args[1], os.Args[2], os.Args[3:]...); err != nil {
		fmt.Fprintln(os.Stderr, "splice:", err)
		os.Exit(1)
	}
}

func splice(table, output string, fresh ...string) error {
	t, err := replay.LoadCSV(table)
	if err != nil {
		return err
	}
	var results []*replay.Result
	if err := readJSON(output+".json", &results); err != nil {
		return err
	}
	if len(fresh) == 1 {
		var add []*replay.Result
		if err := readJSON(fresh[0]+".json", &add); err != nil {
			return err
		}
		if len(add) != 1 {
			return fmt.Errorf("%s.json: %d strategies, want 1", fresh[0], len(add))
		}
		name, n := add[0].Strategy, 0
		for i, r := range results {
			if r.Strategy == name {
				results[i] = add[0]
				n++
			}
		}
		switch n {
		case 0: // replayed before the strategy was there: added last
			results = append(results, add[0])
		case 1:
		default:
			return fmt.Errorf("%s.json: %d entries of %s, want 1", output, n, name)
		}
		if err := spliceText(output+".txt", fresh[0]+".txt", name); err != nil {
			return err
		}
		data, err := json.MarshalIndent(results, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(output+".json", append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	return replay.WritePlot(output+".png", t, results)
}

func readJSON(file string, v any) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// spliceText replaces the lines of file that are the strategy's (starting
// with "NAME " or "NAME@") with those of fresh, in order, or when file has
// none adds each after the last line of its kind (the last strategy's
// line, or the last line of its budget, "...@N "); every line of fresh
// that starts with # must be in file as it is.
func spliceText(file, fresh, name string) error {
	old, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	add, err := os.ReadFile(fresh)
	if err != nil {
		return err
	}
	own := func(l string) bool { return strings.HasPrefix(l, name+" ") || strings.HasPrefix(l, name+"@") }
	var mine []string
	for _, l := range strings.Split(strings.TrimSuffix(string(add), "\n"), "\n") {
		if own(l) {
			mine = append(mine, l)
		} else if strings.HasPrefix(l, "#") && !bytes.Contains(old, []byte(l+"\n")) {
			return fmt.Errorf("%s: line %q is not in %s: not the same replay", fresh, l, file)
		}
	}
	lines := strings.Split(strings.TrimSuffix(string(old), "\n"), "\n")
	if !slices.ContainsFunc(lines, own) {
		return os.WriteFile(file, []byte(strings.Join(insert(lines, mine), "\n")+"\n"), 0o644)
	}
	var out []string
	i := 0
	for _, l := range lines {
		if own(l) {
			if i == len(mine) {
				return fmt.Errorf("%s has more %s lines than %s", file, name, fresh)
			}
			l = mine[i]
			i++
		}
		out = append(out, l)
	}
	if i != len(mine) {
		return fmt.Errorf("%s has %d %s lines, %s %d", file, i, name, fresh, len(mine))
	}
	return os.WriteFile(file, []byte(strings.Join(out, "\n")+"\n"), 0o644)
}

// insert adds each of a strategy's lines (NAME ... or NAME@N ...) after the
// last line of lines of the same kind: another strategy's line of the
// same budget.
func insert(lines, mine []string) []string {
	kind := func(l string) string { // "" for the budget's own line, "@N" for the others
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "$") {
			return "-"
		}
		word, _, _ := strings.Cut(l, " ")
		if _, at, ok := strings.Cut(word, "@"); ok {
			return "@" + at
		}
		return ""
	}
	for _, m := range mine {
		k, last := kind(m), -1
		for j, l := range lines {
			if kind(l) == k {
				last = j
			}
		}
		if last < 0 {
			lines = append(lines, m)
			continue
		}
		lines = slices.Insert(lines, last+1, m)
	}
	return lines
}
