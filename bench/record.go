// Package bench is the benchmark suite's bookkeeping: one Record per tuning
// run (kernel, size class, strategy), saved as JSON as soon as the run ends,
// and the reports made from a set of records: a Markdown and a CSV table,
// the mean speedups beside the paper's Table 4, the comparison with a
// cuBLAS reference, and PNG plots. `hplopt bench` runs the suite and calls
// it; `hplopt bench --report DIR` remakes the reports from saved records.
package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/kernels"
)

// Record is one tuning run of the suite.
type Record struct {
	Kernel   string  `json:"kernel"`           // command-line name: "matmul"
	Paper    string  `json:"paper"`            // the paper's name: "MATMUL"
	Class    string  `json:"class"`            // size class: tiny, S, M, L ("" for a custom size)
	Size     string  `json:"size"`             // "n=1024x1024 k=1024"
	Strategy string  `json:"strategy"`         // random, genetic, exhaustive
	BudgetS  float64 `json:"budget_s"`         // the search's time budget
	FLOPs    float64 `json:"flops"`            // useful work of one launch
	Bytes    float64 `json:"bytes"`            // least memory traffic of one launch
	RSqrts   float64 `json:"rsqrts,omitempty"` // reciprocal square roots of one launch
	Device   string  `json:"device"`
	Date     string  `json:"date"`              // RFC 3339, when the run ended
	Command  string  `json:"command,omitempty"` // the hplopt command line that ran it
	Error    string  `json:"error,omitempty"`   // why the run gave no result
	// Report is the tuner's JSON report (history included); nil when the
	// run failed before the search started.
	Report *autotune.JSONReport `json:"report,omitempty"`
}

// Key names the record's run; it is also its file name without ".json".
func (r *Record) Key() string {
	class := r.Class
	if class == "" {
		class = strings.NewReplacer(" ", "_", "=", "").Replace(r.Size)
	}
	return r.Kernel + "-" + class + "-" + r.Strategy
}

// BaselineMs is the single-point kernel's time, 0 if unknown.
// Name is the kernel's name in tables and plots: the paper's name for its
// eight benchmarks ("MATMUL"), the kernel's own otherwise ("mvt").
func (r *Record) Name() string {
	if r.Paper != "" {
		return r.Paper
	}
	return r.Kernel
}

func (r *Record) BaselineMs() float64 {
	if r.Report == nil {
		return 0
	}
	return r.Report.BaselineMs
}

// BestMs is the best variant's time, 0 when no variant ran correctly.
func (r *Record) BestMs() float64 {
	if r.Report == nil || r.Report.BestParams == nil || len(r.Report.BestParams) == 0 {
		return 0
	}
	return r.Report.BestMs
}

// Speedup is the single-point time over the best time, 0 without a result.
func (r *Record) Speedup() float64 {
	if b, t := r.BaselineMs(), r.BestMs(); b > 0 && t > 0 {
		return b / t
	}
	return 0
}

// Save writes r as DIR/runs/KEY.json.
func Save(dir string, r *Record) error {
	runs := filepath.Join(dir, "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(runs, "."+r.Key()+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(runs, r.Key()+".json"))
}

// Load reads the records saved under each directory's runs/ folder. A run
// saved in more than one directory counts once, from the last directory.
// Records come back in suite order: kernels as the paper lists them, then
// size class, then strategy.
func Load(dirs ...string) ([]*Record, error) {
	byKey := map[string]*Record{}
	var errs []error
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "runs", "*.json"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			errs = append(errs, fmt.Errorf("bench: no run records in %s", filepath.Join(dir, "runs")))
			continue
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			var r Record
			if err := json.Unmarshal(data, &r); err != nil {
				errs = append(errs, fmt.Errorf("bench: %s: %v", f, err))
				continue
			}
			if r.Kernel == "" || r.Strategy == "" {
				errs = append(errs, fmt.Errorf("bench: %s: not a run record (no kernel or strategy)", f))
				continue
			}
			byKey[r.Key()] = &r
		}
	}
	recs := make([]*Record, 0, len(byKey))
	for _, r := range byKey {
		recs = append(recs, r)
	}
	Sort(recs)
	return recs, errors.Join(errs...)
}

// Sort puts records in suite order.
func Sort(recs []*Record) {
	sort.SliceStable(recs, func(i, j int) bool {
		a, b := recs[i], recs[j]
		if ka, kb := kernelRank(a.Kernel), kernelRank(b.Kernel); ka != kb {
			return ka < kb
		}
		if ca, cb := classRank(a.Class), classRank(b.Class); ca != cb {
			return ca < cb
		}
		if a.Size != b.Size {
			return a.Size < b.Size
		}
		return strategyRank(a.Strategy) < strategyRank(b.Strategy)
	})
}

func kernelRank(name string) int {
	for i, n := range kernels.Names() {
		if n == name {
			return i
		}
	}
	return 1 << 20
}

// Classes are the size classes in order.
var Classes = []string{"tiny", "S", "M", "L"}

func classRank(c string) int {
	for i, n := range Classes {
		if n == c {
			return i
		}
	}
	return len(Classes)
}

func strategyRank(s string) int {
	switch s {
	case "random":
		return 0
	case "genetic":
		return 1
	case "exhaustive":
		return 2
	}
	return 3
}
