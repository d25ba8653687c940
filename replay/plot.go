package replay

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// WritePlot writes a PNG (or SVG, PDF, by the file's extension) of the
// median fraction of the optimum against evaluations, a line per strategy,
// with random search's expected fraction (optimum / Table.ExpectedRandom)
// dashed.
func WritePlot(file string, t *Table, results []*Result) error {
	if len(results) == 0 {
		return fmt.Errorf("replay: nothing to plot")
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %d points, median of %d seeds", t.Name(), t.Len(), results[0].Seeds)
	p.X.Label.Text = "evaluations"
	p.Y.Label.Text = "fraction of the optimum"
	p.Y.Min, p.Y.Max = 0, 1.02
	p.Add(plotter.NewGrid())
	n := 0
	for i, r := range results {
		xy := make(plotter.XYs, len(r.Curve))
		for j, c := range r.Curve {
			xy[j] = plotter.XY{X: float64(c.Evaluations), Y: c.MedianFraction}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("replay: plot: %w", err)
		}
		l.Color = plotutil.Color(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(r.Strategy, l)
		n = max(n, r.Evaluations)
	}
	xy := make(plotter.XYs, n)
	for j := range xy {
		xy[j] = plotter.XY{X: float64(j + 1), Y: t.Optimum() / t.ExpectedRandom(j+1)}
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return fmt.Errorf("replay: plot: %w", err)
	}
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	l.Color = plotutil.Color(len(results))
	p.Add(l)
	p.Legend.Add("random (expected)", l)
	p.Legend.Top = false
	p.Legend.Left = false
	if err := p.Save(18*vg.Centimeter, 12*vg.Centimeter, file); err != nil {
		return fmt.Errorf("replay: plot: %w", err)
	}
	return nil
}
