package records_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/records"
)

// twoProblems returns a database with two problems: one run of three
// evaluations of 256x256, one of two of 512x512.
func twoProblems(t *testing.T) *records.DB {
	t.Helper()
	db := open(t)
	record(t, db, key(256, 256), eval(1, 8, 3), eval(2, 8, 0), eval(4, 16, 1.5))
	record(t, db, key(512, 512), eval(1, 8, 12), eval(4, 16, 6))
	return db
}

func export(t *testing.T, db *records.DB, f records.Format, ids ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := db.Export(&buf, f, ids...); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCheckT4(t *testing.T) {
	for _, bad := range []string{
		`{"schema_version": 1, "results": []}`,
		`{"schema_version": "1.0.0", "results": [{"times": {}, "invalidity": "correct", "correctness": 1}]}`,
		`{"schema_version": "1.0.0", "results": [{"configuration": {}, "times": {}, "invalidity": "ok", "correctness": 1}]}`,
		`{"schema_version": "1.0.0", "results": [{"configuration": {}, "times": {"runtimes": 3}, "invalidity": "correct", "correctness": 1}]}`,
	} {
		if records.CheckT4([]byte(bad)) == nil {
			t.Errorf("checkT4 accepts %s", bad)
		}
	}
}

func TestExportT4(t *testing.T) {
	db := twoProblems(t)
	data := export(t, db, records.T4)
	if err := records.CheckT4(data); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	var f struct {
		Results []struct {
			Configuration map[string]int
			Invalidity    string
			Correctness   float64
			Times         struct {
				CompilationTime float64 `json:"compilation_time"`
				Runtimes        []float64
			}
			Measurements []struct {
				Name  string
				Value float64
				Unit  string
			}
			Objectives []string
		}
		Metadata struct {
			Environment struct {
				DeviceQuery  map[string][]records.Device `json:"device_query"`
				Requirements []string
			}
		}
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Results) != 5 {
		t.Fatalf("%d results, want 5", len(f.Results))
	}
	ok, failed := f.Results[0], f.Results[1]
	if ok.Invalidity != "correct" || ok.Correctness != 1 || ok.Configuration["uf"] != 1 || ok.Times.CompilationTime != 12.5 ||
		len(ok.Times.Runtimes) != 3 || len(ok.Measurements) != 1 || ok.Measurements[0] != (struct {
		Name  string
		Value float64
		Unit  string
	}{"time", 3, "ms"}) || !slices.Equal(ok.Objectives, []string{"time"}) {
		t.Errorf("an OK evaluation in T4: %+v", ok)
	}
	if failed.Invalidity != "compile" || failed.Correctness != 0 || len(failed.Measurements) != 0 {
		t.Errorf("a compile failure in T4: %+v", failed)
	}
	if d := f.Metadata.Environment.DeviceQuery["opencl"]; len(d) != 1 || d[0] != pocl {
		t.Errorf("device_query: %+v", f.Metadata.Environment.DeviceQuery)
	}
	if !slices.Equal(f.Metadata.Environment.Requirements, []string{"hplopt test"}) {
		t.Errorf("requirements %v", f.Metadata.Environment.Requirements)
	}
}

// TestImport exports from one database and imports into another, in both
// importable formats, twice: the second import adds nothing.
func TestImport(t *testing.T) {
	src := twoProblems(t)
	want := export(t, src, records.JSON)
	for _, f := range []records.Format{records.JSON, records.T4} {
		dst := open(t)
		data := export(t, src, f)
		n, err := dst.Import(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if n != (records.Imported{Problems: 2, Runs: 2, Evaluations: 5}) {
			t.Errorf("%s: imported %+v", f, n)
		}
		if got := export(t, dst, records.JSON); !bytes.Equal(got, want) {
			t.Errorf("%s: the records differ after the round trip:\n%s\nwant\n%s", f, got, want)
		}
		n, err = dst.Import(bytes.NewReader(data))
		if err != nil || n != (records.Imported{Skipped: 5}) {
			t.Errorf("%s: importing again: %+v %v", f, n, err)
		}
	}
}

func TestImportErrors(t *testing.T) {
	src := twoProblems(t)
	data := string(export(t, src, records.JSON))
	k := key(256, 256)
	for name, in := range map[string]string{
		"not JSON":       "kernel,time\n",
		"another format": `{"results": []}`,
		"foreign T4":     `{"schema_version": "1.0.0", "results": [{"configuration": {"x": 1}, "times": {}, "invalidity": "correct", "correctness": 1}]}`,
		"edited key":     strings.Replace(data, `"hash": "5f1e2d"`, `"hash": "edited"`, 1),
		"newer":          strings.Replace(data, fmt.Sprintf(`"version": %d`, records.Version), `"version": 99`, 1),
		"bad outcome":    strings.Replace(data, `"outcome": "compile"`, `"outcome": "exploded"`, 1),
	} {
		dst := open(t)
		if in == data {
			t.Fatalf("%s: the test's edit did not apply", name)
		}
		if _, err := dst.Import(strings.NewReader(in)); err == nil || !strings.HasPrefix(err.Error(), "records: import") {
			t.Errorf("%s: error %v", name, err)
		}
		if ps, _ := dst.Problems(); len(ps) != 0 {
			t.Errorf("%s: a failed import left %d problems", name, len(ps))
		}
	}
	if !strings.Contains(data, `"id": "`+k.ID()+`"`) {
		t.Errorf("the JSON export does not carry the problem's ID")
	}
}

func TestExportCSV(t *testing.T) {
	db := twoProblems(t)
	rows, err := csv.NewReader(bytes.NewReader(export(t, db, records.CSV, key(256, 256).ID()))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || rows[0][0] != "problem" {
		t.Fatalf("%d rows: %v", len(rows), rows)
	}
	col := func(name string) int { return slices.Index(rows[0], name) }
	if r := rows[2]; r[col("outcome")] != "compile" || r[col("params")] != "lx=8,uf=2" || r[col("error")] != "error: too many registers" {
		t.Errorf("row 2: %v", r)
	}
	if r := rows[1]; r[col("times_ms")] != "3.3000000000000003;3;2.7" || r[col("ms")] != "3" {
		t.Errorf("row 1: %v", r)
	}
	if _, err := records.ParseFormat("xml"); err == nil {
		t.Errorf("ParseFormat(xml) succeeds")
	}
}
