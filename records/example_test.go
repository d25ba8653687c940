package records_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/records"
)

// A tuner records each evaluation as it is measured; a later process looks
// the problem up and takes its best verified setting, or, for a shape never
// tuned, starts from those of the nearest recorded shapes.
func Example() {
	dir, _ := os.MkdirTemp("", "records")
	defer os.RemoveAll(dir)
	db, err := records.Open(filepath.Join(dir, "records.db"), records.Options{})
	if err != nil {
		fmt.Printf("%v: the search goes on in memory\n", err)
		return
	}
	defer db.Close()

	dev := records.Device{Platform: "PoCL", Name: "cpu", Vendor: "AMD", Driver: "6.0", OpenCL: "OpenCL 3.0"}
	key := func(n int) records.Key {
		return records.Key{Kernel: "axpy", Hash: "3fa9", Device: dev, Global: []int{n}, Space: "table2-v1",
			Args: []records.Arg{{Name: "x", Type: "float32", Shape: []int{n}}, {Name: "y", Type: "float32", Shape: []int{n}}}}
	}
	rec, err := db.Begin(key(1<<20), records.Run{Strategy: "random", Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	rec.Add(records.Evaluation{Params: map[string]int{"lx": 64}, Outcome: autotune.OK, Times: []float64{0.52, 0.50, 0.51}, Ms: 0.51})
	rec.Add(records.Evaluation{Params: map[string]int{"lx": 2048}, Outcome: autotune.Illegal, Err: "work-group too large"})
	rec.Add(records.Evaluation{Params: map[string]int{"lx": 256}, Outcome: autotune.OK, Times: []float64{0.40, 0.41, 0.42}, Ms: 0.41})
	rec.End("max-evals")

	best, ok, _ := db.Best(key(1 << 20).ID())
	fmt.Println(ok, best.Point(), best.Ms)
	near, _ := db.Nearest(key(3<<20), 1)
	fmt.Println(near[0].Problem.Key.Sizes(), near[0].Best.Point())
	// Output:
	// true lx=256 0.41
	// 1048576 x[1048576] y[1048576] lx=256
}
