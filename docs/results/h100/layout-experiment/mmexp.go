//go:build ignore

// mmexp times the hand-written SGEMM OpenCL kernels of this layout experiment
// (the table in README.md beside it was measured with it).
// Each .cl file starts with "// GLOBAL gx gy" and "// LOCAL lx ly" lines;
// the kernel is named mxm(c, a, b, limk).
package main

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/hplopt/hplopt/opencl"
)

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	s, err := opencl.Open(os.Getenv("DEV"))
	if err != nil {
		panic(err)
	}
	r := rand.New(rand.NewSource(1))
	a := make([]float32, n*n)
	b := make([]float32, n*n)
	for i := range a {
		a[i] = r.Float32()*2 - 1
		b[i] = r.Float32()*2 - 1
	}
	ba, _ := s.Context.NewBuffer(4 * n * n)
	bb, _ := s.Context.NewBuffer(4 * n * n)
	bc, _ := s.Context.NewBuffer(4 * n * n)
	opencl.WriteSlice(s.Queue, ba, a)
	opencl.WriteSlice(s.Queue, bb, b)
	// reference on sampled points
	type pt struct{ i, j int }
	var pts []pt
	for t := 0; t < 400; t++ {
		pts = append(pts, pt{r.Intn(n), r.Intn(n)})
	}
	ref := make([]float64, len(pts))
	for t, p := range pts {
		var sum float64
		for k := 0; k < n; k++ {
			sum += float64(a[p.i*n+k]) * float64(b[k*n+p.j])
		}
		ref[t] = sum
	}
	c := make([]float32, n*n)
	optsets := strings.Split(os.Getenv("OPTS"), ";")
	var files []string
	for _, f := range os.Args[2:] {
		for _, o := range optsets {
			files = append(files, f+"|"+o)
		}
	}
	for _, fo := range files {
		f, opts, _ := strings.Cut(fo, "|")
		src, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		var g, l []int
		for _, line := range strings.Split(string(src), "\n") {
			fs := strings.Fields(line)
			if len(fs) == 4 && fs[0] == "//" && (fs[1] == "GLOBAL" || fs[1] == "LOCAL") {
				x, _ := strconv.Atoi(fs[2])
				y, _ := strconv.Atoi(fs[3])
				if fs[1] == "GLOBAL" {
					g = []int{x, y}
				} else {
					l = []int{x, y}
				}
			}
		}
		text := strings.ReplaceAll(string(src), "NSIZE", strconv.Itoa(n))
		p, err := s.Context.Build(text, opts)
		if err != nil {
			fmt.Printf("%s: build: %v\n", f, err)
			continue
		}
		if os.Getenv("VERBOSE") != "" {
			for _, line := range strings.Split(p.Log(), "\n") {
				if strings.Contains(line, "egister") || strings.Contains(line, "spill") {
					fmt.Println("   ", strings.TrimSpace(line))
				}
			}
		}
		k, _ := p.Kernel("mxm")
		k.SetArgBuffer(0, bc)
		k.SetArgBuffer(1, ba)
		k.SetArgBuffer(2, bb)
		k.SetArgInt32(3, int32(n))
		opencl.WriteSlice(s.Queue, bc, make([]float32, n*n))
		var ts []float64
		for i := 0; i < 12; i++ {
			ns, err := s.Queue.Run(k, g, l)
			if err != nil {
				fmt.Printf("%s: run: %v\n", f, err)
				break
			}
			ts = append(ts, float64(ns)/1e6)
		}
		if len(ts) == 0 {
			continue
		}
		opencl.ReadSlice(s.Queue, bc, c)
		maxErr := 0.0
		for t, p := range pts {
			e := math.Abs(float64(c[p.i*n+p.j]) - ref[t])
			if e > maxErr {
				maxErr = e
			}
		}
		sort.Float64s(ts)
		med := ts[len(ts)/2]
		fmt.Printf("%-28s %-28s median %.4f ms  min %.4f ms  %.2f TFLOP/s  maxerr %.2e\n", f, opts, med, ts[0], 2*float64(n)*float64(n)*float64(n)/med/1e9, maxErr)
		k.Close()
		p.Close()
	}
}
