package bench

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/hplopt/hplopt/autotune"
)

var (
	classColors = map[string]color.Color{
		"tiny": color.RGBA{120, 120, 120, 255},
		"S":    color.RGBA{31, 119, 180, 255},
		"M":    color.RGBA{255, 127, 14, 255},
		"L":    color.RGBA{44, 160, 44, 255},
		"":     color.RGBA{148, 103, 189, 255},
	}
	strategyColors = map[string]color.Color{
		"random":     color.RGBA{214, 39, 40, 255},
		"genetic":    color.RGBA{31, 119, 180, 255},
		"exhaustive": color.RGBA{44, 160, 44, 255},
	}
	strategyGlyphs = map[string]draw.GlyphDrawer{
		"random":     draw.TriangleGlyph{},
		"genetic":    draw.CircleGlyph{},
		"exhaustive": draw.SquareGlyph{},
	}
)

// WritePlots writes speedup.png (every run's speedup, by kernel, size and
// strategy) and one progress-KERNEL.png per kernel (the best speedup found
// so far against tuning time, a panel per size, a line per strategy) into
// dir, and returns the files written.
func WritePlots(dir string, recs []*Record) ([]string, error) {
	var files []string
	if f := filepath.Join(dir, "speedup.png"); true {
		if err := speedupPlot(recs, f); err != nil {
			return files, err
		}
		files = append(files, f)
	}
	var order []string
	byKernel := map[string][]*Record{}
	for _, r := range recs {
		if _, ok := byKernel[r.Kernel]; !ok {
			order = append(order, r.Kernel)
		}
		byKernel[r.Kernel] = append(byKernel[r.Kernel], r)
	}
	for _, k := range order {
		f := filepath.Join(dir, "progress-"+k+".png")
		if err := progressPlot(byKernel[k], f); err != nil {
			return files, err
		}
		files = append(files, f)
	}
	return files, nil
}

func speedupPlot(recs []*Record, file string) error {
	p := plot.New()
	p.Title.Text = "Tuned kernel over single-point kernel"
	p.Y.Label.Text = "speedup (log scale)"
	p.Y.Scale = plot.LogScale{}
	var kernels []string
	kx := map[string]int{}
	type series struct{ class, strategy string }
	var keys []series
	pts := map[series]plotter.XYs{}
	var lo, hi float64 = 1, 1
	for _, r := range recs {
		if _, ok := kx[r.Name()]; !ok {
			kx[r.Name()] = len(kernels)
			kernels = append(kernels, r.Name())
		}
		sp := r.Speedup()
		if sp <= 0 {
			continue
		}
		lo, hi = math.Min(lo, sp), math.Max(hi, sp)
		s := series{r.Class, r.Strategy}
		if _, ok := pts[s]; !ok {
			keys = append(keys, s)
		}
		off := 0.12*float64(classRank(r.Class)-2) + 0.04*float64(2*strategyRank(r.Strategy)-1)
		pts[s] = append(pts[s], plotter.XY{X: float64(kx[r.Name()]) + off, Y: sp})
	}
	if len(kernels) == 0 {
		return fmt.Errorf("bench: no runs to plot")
	}
	ticks := make([]plot.Tick, len(kernels))
	for i, k := range kernels {
		ticks[i] = plot.Tick{Value: float64(i), Label: k}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.6, float64(len(kernels))-0.4
	p.Y.Min, p.Y.Max = math.Min(0.5, lo/1.3), hi*1.5
	p.Y.Tick.Marker = logTicks(p.Y.Min, p.Y.Max)
	one, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: 1}, {X: p.X.Max, Y: 1}})
	if err != nil {
		return err
	}
	one.Color = color.Gray{160}
	one.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(one, plotter.NewGrid())
	for _, s := range keys {
		sc, err := plotter.NewScatter(pts[s])
		if err != nil {
			return err
		}
		sc.Color = classColors[s.class]
		if g, ok := strategyGlyphs[s.strategy]; ok {
			sc.Shape = g
		}
		sc.Radius = vg.Points(4)
		p.Add(sc)
		name := s.class
		if name == "" {
			name = "custom"
		}
		p.Legend.Add(name+" "+s.strategy, sc)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	return p.Save(vg.Length(max(16, 2*len(kernels)+6))*vg.Centimeter, 12*vg.Centimeter, file)
}

// logTicks labels 1, 2 and 5 times the powers of ten between lo and hi.
func logTicks(lo, hi float64) plot.ConstantTicks {
	var t []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v >= lo && v <= hi {
				t = append(t, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
			}
		}
	}
	return t
}

// bestSoFar is the speedup of the best correct variant found by each time.
func bestSoFar(r *Record) plotter.XYs {
	rep := r.Report
	if rep == nil || rep.BaselineMs <= 0 {
		return nil
	}
	var xy plotter.XYs
	best := math.Inf(1)
	for _, h := range rep.History {
		if h.Outcome != autotune.OK || h.Ms <= 0 || h.Ms >= best {
			continue
		}
		t := h.ElapsedMs / 1e3
		if len(xy) > 0 {
			xy = append(xy, plotter.XY{X: t, Y: xy[len(xy)-1].Y}) // a step
		}
		best = h.Ms
		xy = append(xy, plotter.XY{X: t, Y: rep.BaselineMs / best})
	}
	if len(xy) > 0 {
		end := math.Max(rep.ElapsedS, xy[len(xy)-1].X)
		xy = append(xy, plotter.XY{X: end, Y: xy[len(xy)-1].Y})
	}
	return xy
}

func progressPlot(recs []*Record, file string) error {
	var classes []string
	byClass := map[string][]*Record{}
	for _, r := range recs {
		c := r.Class
		if c == "" {
			c = r.Size
		}
		if _, ok := byClass[c]; !ok {
			classes = append(classes, c)
		}
		byClass[c] = append(byClass[c], r)
	}
	row := make([]*plot.Plot, len(classes))
	for i, c := range classes {
		p := plot.New()
		r0 := byClass[c][0]
		p.Title.Text = fmt.Sprintf("%s %s", r0.Paper, classLabel(r0))
		p.X.Label.Text = "tuning time (s)"
		if i == 0 {
			p.Y.Label.Text = "best speedup so far"
		}
		p.Add(plotter.NewGrid())
		for _, r := range byClass[c] {
			xy := bestSoFar(r)
			if len(xy) == 0 {
				continue
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return err
			}
			if col, ok := strategyColors[r.Strategy]; ok {
				l.Color = col
			}
			l.Width = vg.Points(1.5)
			p.Add(l)
			p.Legend.Add(r.Strategy, l)
		}
		p.Legend.Top = false
		p.Legend.Left = false
		p.X.Min, p.Y.Min = 0, 0
		row[i] = p
	}
	w, h := vg.Length(9*len(classes))*vg.Centimeter, 8*vg.Centimeter
	img := vgimg.New(w, h)
	dc := draw.New(img)
	canvases := plot.Align([][]*plot.Plot{row}, draw.Tiles{Rows: 1, Cols: len(classes), PadX: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}, dc)
	for i := range row {
		row[i].Draw(canvases[0][i])
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteReport writes results.md, results.csv and the plots into dir.
func WriteReport(dir string, recs []*Record, opt Options) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	md := filepath.Join(dir, "results.md")
	f, err := os.Create(md)
	if err != nil {
		return nil, err
	}
	if err := WriteMarkdown(f, recs, opt); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	csvf := filepath.Join(dir, "results.csv")
	g, err := os.Create(csvf)
	if err != nil {
		return nil, err
	}
	if err := WriteCSV(g, recs, opt.Ceiling); err != nil {
		g.Close()
		return nil, err
	}
	if err := g.Close(); err != nil {
		return nil, err
	}
	files := []string{md, csvf}
	pl, err := WritePlots(dir, recs)
	return append(files, pl...), err
}
