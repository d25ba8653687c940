package records

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
)

// BenchmarkAdd measures the cost of recording one evaluation, committed
// on its own, as Recorder.Add does: with the package's synchronous=NORMAL
// (WAL), and for comparison with synchronous=FULL (an fsync per commit).
func BenchmarkAdd(b *testing.B) {
	for _, sync := range []string{"NORMAL", "FULL"} {
		b.Run("synchronous="+sync, func(b *testing.B) {
			db, err := Open(filepath.Join(b.TempDir(), "bench.db"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			if _, err := db.sql.Exec("PRAGMA synchronous = " + sync); err != nil {
				b.Fatal(err)
			}
			k := Key{Kernel: "matmul", Hash: "h", Device: Device{Name: "dev"}, Global: []int{1024, 1024}, Space: "v1"}
			rec, err := db.Begin(k, Run{Strategy: "random"})
			if err != nil {
				b.Fatal(err)
			}
			now := time.Now()
			e := Evaluation{Params: map[string]int{"lx": 16, "ly": 16, "uf": 4, "bx": 64, "by": 64, "tm": 1}, Outcome: autotune.OK,
				Times: []float64{1.25, 1.5, 1.3, 1.1, 1.2}, Ms: 1.25, BuildMs: 40, CheckMs: 2, Started: now, Ended: now}
			b.ResetTimer()
			for range b.N {
				if _, err := rec.Add(e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
