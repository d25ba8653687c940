package transforms_test

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/transforms"
)

// randomParams draws a setting, legal or not: powers of two and odd values
// for every parameter, global sizes that give a work-item one block or
// several.
func randomParams(r *rand.Rand, size kernels.Size) transforms.Params {
	var p transforms.Params
	pick := func(xs ...int) int { return xs[r.IntN(len(xs))] }
	for d, n := range size.N {
		p.Local[d] = pick(1, 2, 4, 8, 16)
		p.Block[d] = pick(1, 1, 2, 3, 4)
		blocks := (n + p.Block[d] - 1) / p.Block[d]
		if r.IntN(3) == 0 {
			blocks = (blocks + 2) / 3
		}
		p.Global[d] = (blocks + p.Local[d] - 1) / p.Local[d] * p.Local[d]
	}
	p.FullUnroll = r.IntN(2) == 0
	p.Interleave = r.IntN(2) == 0
	p.Chunk = pick(0, 1, 2, 2, 4)
	for i, l := range size.K {
		p.Tile[i] = pick(0, 0, 1, 2, 3, 4, 8, l)
	}
	p.Unroll = pick(1, 1, 2, 3, 4)
	p.LocalMem = r.IntN(2) == 0
	p.LoopCopy = r.IntN(2) == 0
	// The extensions of issue 17, each left at its default about half the
	// time, drawn among the values the setting's geometry allows
	// (dropExtension takes back those the kernel cannot have).
	some := func(xs []int) int {
		if len(xs) == 0 || r.IntN(2) == 0 {
			return 0
		}
		return xs[r.IntN(len(xs))]
	}
	run := p.Block[0]
	if p.Interleave {
		run = min(run, max(1, p.Chunk))
	}
	var vecs []int
	for _, w := range []int{2, 4, 8} {
		if run%w == 0 {
			vecs = append(vecs, w)
		}
	}
	p.Vec = some(vecs)
	p.Pack = p.LocalMem && r.IntN(2) == 0
	p.Transpose = p.LocalMem && r.IntN(2) == 0
	if p.LocalMem && p.Tile != [3]int{} {
		p.Prefetch = some([]int{1, 2, 3})
		p.Fission = some([]int{1, 2})
	}
	p.CopyOffsets = p.LocalMem && r.IntN(2) == 0
	if len(size.N) >= 2 {
		var warps, bands []int
		x, y := p.Local[0], p.Local[1]
		for _, w := range []int{1, 2, 4, 8, 16} {
			if w < min(x, 32) && x%w == 0 && y%(32/w) == 0 {
				warps = append(warps, w)
			}
		}
		for _, g := range []int{2, 4} {
			if p.Global[0]/x >= 2 && (p.Global[1]/y)%g == 0 {
				bands = append(bands, g)
			}
		}
		p.Warp, p.Swizzle = some(warps), some(bands)
	}
	if len(size.N) < 3 && len(size.K) > 0 {
		p.Split = some([]int{2, 3, 4, 8})
	}
	return p
}

// dropExtension resets one of the extension parameters p sets, at random,
// and reports whether there was one: an illegal setting is tried again
// without it, so that most settings keep some extensions and few draws are
// wasted on combinations the kernel cannot have.
func dropExtension(r *rand.Rand, p *transforms.Params) bool {
	var set []func()
	if p.Vec > 1 {
		set = append(set, func() { p.Vec = 0 })
	}
	if p.Pack {
		set = append(set, func() { p.Pack = false })
	}
	if p.Transpose {
		set = append(set, func() { p.Transpose = false })
	}
	if p.Prefetch > 0 {
		set = append(set, func() { p.Prefetch = 0 })
	}
	if p.Warp > 0 {
		set = append(set, func() { p.Warp = 0 })
	}
	if p.Swizzle > 1 {
		set = append(set, func() { p.Swizzle = 0 })
	}
	if p.Split > 1 {
		set = append(set, func() { p.Split = 0 })
	}
	if p.Fission > 0 {
		set = append(set, func() { p.Fission = 0 })
	}
	if p.CopyOffsets {
		set = append(set, func() { p.CopyOffsets = false })
	}
	if len(set) == 0 {
		return false
	}
	set[r.IntN(len(set))]()
	return true
}

// settingsPerSize is how many legal settings of each kernel are run at each
// of its two sizes; HPLOPT_PROPERTY_SETTINGS overrides it.
func settingsPerSize() int {
	if n, err := strconv.Atoi(os.Getenv("HPLOPT_PROPERTY_SETTINGS")); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return 8
	}
	return 100
}

// oddSize grows every extent of s to an odd number that powers of two do
// not divide.
func oddSize(s kernels.Size) kernels.Size {
	var out kernels.Size
	for _, n := range s.N {
		out.N = append(out.N, (n+n/4+3)|1)
	}
	for _, k := range s.K {
		out.K = append(out.K, (k+2)|1)
	}
	return out
}

// suiteSettings is how many legal settings of each suite kernel
// (kernels.Suite) are run at each of its sizes: -suite-settings, else 3
// under -short and 6 otherwise.
var suiteSettingsFlag = flag.Int("suite-settings", 0, "legal settings run per size of each suite kernel in TestRandomSettingsSuite (0: 3 under -short, else 6)")

func suiteSettings() int {
	switch {
	case *suiteSettingsFlag > 0:
		return *suiteSettingsFlag
	case testing.Short():
		return 3
	}
	return 6
}

// TestRandomSettingsMatchReference is the correctness bar of the passes:
// random legal settings of each of the eight kernels, at its tiny size and
// at an odd size that tiles and blocks do not divide, are generated, checked
// for the invariants after every pass (ApplyChecked), run on the OpenCL
// device and compared with the CPU reference: 200 settings per kernel (16
// under -short).
func TestRandomSettingsMatchReference(t *testing.T) {
	randomSettings(t, kernels.All(), settingsPerSize())
}

// TestRandomSettingsSuite is TestRandomSettingsMatchReference for the suite
// of kernels users write (kernels.Suite: bounds guards, int arguments in
// subscripts, stencils staged with their halo, triangular loops), with few
// settings per kernel (suiteSettings) to keep it quick; -suite-settings 100
// runs many more.
func TestRandomSettingsSuite(t *testing.T) {
	randomSettings(t, kernels.Suite(), suiteSettings())
}

// randomSettings runs per random legal settings of each benchmark of bs at
// its tiny size and at an odd size, checked against the reference.
func randomSettings(t *testing.T, bs []*kernels.Benchmark, per int) {
	s, err := opencl.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, b := range bs {
		t.Run(b.Name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(b.Name)), 7))
			legal, illegal := 0, 0
			uses := map[string]int{} // legal settings using each extension of issue 17
			sizes := []kernels.Size{b.Sizes["tiny"]}
			if odd, ok := oddSizeOf(b); ok {
				sizes = append(sizes, odd)
			}
			for si, size := range sizes {
				in, err := b.Instance(size, int64(si)+1)
				if err != nil {
					t.Fatal(err)
				}
				prob := problemOf(t, in, s.Device)
				if err := prob.Analyze(); err != nil { // once, as a tuner does
					t.Fatal(err)
				}
				var batch []*transforms.Variant
				var settings []transforms.Params
				for tries := 0; len(batch) < per && tries < 100*per; tries++ {
					p := randomParams(r, size)
					v, err := transforms.ApplyChecked(prob, p)
					for errors.Is(err, transforms.ErrIllegal) && dropExtension(r, &p) {
						v, err = transforms.ApplyChecked(prob, p)
					}
					if errors.Is(err, transforms.ErrIllegal) {
						illegal++
						continue
					}
					if err != nil {
						t.Fatalf("%s %s: %v", size, p, err)
					}
					if err := transforms.Check(v.Kernel, prob.LocalMem); err != nil {
						t.Fatalf("%s %s: %v", size, p, err)
					}
					batch = append(batch, v)
					settings = append(settings, p)
					for name, on := range map[string]bool{"vec": p.Vec > 1, "pack": p.Pack, "ltrans": p.Transpose, "prefetch": p.Prefetch > 0, "warp": p.Warp > 0, "gswz": p.Swizzle > 1, "split": p.Split > 1, "fission": p.Fission > 0, "coff": p.CopyOffsets} {
						if on {
							uses[name]++
						}
					}
				}
				legal += len(batch)
				runBatch(t, s, in, size, batch, settings)
			}
			t.Logf("%d legal settings run and checked (of them with vec %d, pack %d, ltrans %d, prefetch %d, warp %d, gswz %d, split %d, fission %d, coff %d), %d illegal ones rejected",
				legal, uses["vec"], uses["pack"], uses["ltrans"], uses["prefetch"], uses["warp"], uses["gswz"], uses["split"], uses["fission"], uses["coff"], illegal)
			if legal < len(sizes)*per {
				t.Errorf("only %d legal settings found, want %d", legal, len(sizes)*per)
			}
		})
	}
}

// oddSizeOf returns b's tiny size grown to odd extents (oddSize), made to
// fit b's constraints (square domains, a loop over all the points) where
// it does not; false when it cannot.
func oddSizeOf(b *kernels.Benchmark) (kernels.Size, bool) {
	odd := oddSize(b.Sizes["tiny"])
	if b.Validate(odd) == nil {
		return odd, true
	}
	if len(odd.K) > 0 { // NBODY's and BICG's loops run over all the points
		odd.K = []int{odd.N[0]}
		if b.Validate(odd) == nil {
			return odd, true
		}
	}
	for d := range odd.N { // square domains
		odd.N[d] = odd.N[0]
	}
	return odd, b.Validate(odd) == nil
}

// runBatch builds the variants as one program (PoCL compiles a program once;
// -cl-opt-disable keeps its per-kernel code generation quick), runs each on
// fresh copies of the inputs and compares its outputs with the reference.
func runBatch(t *testing.T, s *opencl.Session, in *kernels.Instance, size kernels.Size, vs []*transforms.Variant, ps []transforms.Params) {
	t.Helper()
	runBatchOn(t, s, in.Bench.Kernel.Params(), in.Args, in.Reference(), size, vs, ps)
}

// runBatchOn is runBatch for a kernel with the given parameters, arguments
// and reference outputs by name.
func runBatchOn(t *testing.T, s *opencl.Session, params []*ast.Param, args []any, want map[string][]float32, size any, vs []*transforms.Variant, ps []transforms.Params) {
	t.Helper()
	const chunk = 25
	init := map[string][]float32{}
	bufs := make([]*opencl.Buffer, len(params))
	for i, a := range args {
		if a, ok := a.(*hpl.Array); ok {
			data := append([]float32(nil), a.ReadFloat32s()...)
			init[params[i].Name] = data
			b, err := s.Context.NewBuffer(4 * len(data))
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			bufs[i] = b
		}
	}
	for start := 0; start < len(vs); start += chunk {
		group := vs[start:min(start+chunk, len(vs))]
		var src strings.Builder
		for j, v := range group {
			k := ast.Clone(v.Kernel)
			k.Name = fmt.Sprintf("%s_%d", k.Name, j)
			code, err := codegen.Source(k)
			if err != nil {
				t.Fatal(err)
			}
			src.WriteString(code)
		}
		prog, err := s.Context.Build(src.String(), "-cl-opt-disable")
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range group {
			setting := ps[start+j]
			k, err := prog.Kernel(fmt.Sprintf("%s_%d", v.Kernel.Name, j))
			if err != nil {
				t.Fatal(err)
			}
			for i, a := range args {
				switch a := a.(type) {
				case *hpl.Array:
					if err := opencl.WriteSlice(s.Queue, bufs[i], init[params[i].Name]); err != nil {
						t.Fatal(err)
					}
					err = k.SetArgBuffer(i, bufs[i])
				case int32:
					err = k.SetArgInt32(i, a)
				case float32:
					err = k.SetArgFloat32(i, a)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Queue.Run(k, v.Global, v.Local); err != nil {
				t.Fatalf("%s %s: %v", size, setting, err)
			}
			for i, p := range params {
				w, ok := want[p.Name]
				if !ok {
					continue
				}
				got := make([]float32, len(w))
				if err := opencl.ReadSlice(s.Queue, bufs[i], got); err != nil {
					t.Fatal(err)
				}
				for e := range w {
					if d := math.Abs(float64(got[e] - w[e])); !(d <= 1e-3*math.Max(1, math.Abs(float64(w[e])))) {
						code, _ := codegen.Source(v.Kernel)
						t.Fatalf("%s %s: %s[%d] = %v, want %v\n%s", size, setting, p.Name, e, got[e], w[e], code)
					}
				}
			}
			k.Close()
		}
		prog.Close()
	}
}
