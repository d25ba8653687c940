package transforms

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hplopt/hplopt/ast"
)

// Params is one setting of the optimizer's parameters: the paper's Table 2.
// Entries for dimensions the kernel does not have are ignored (and printed
// as 0); the zero value of a field means "not set".
type Params struct {
	Global     [3]int // szx szy szz: work-items per dimension of the global domain
	Local      [3]int // lszx lszy lszz: work-items per work-group and dimension
	Block      [3]int // bszx bszy bszz: points per block of the block-cyclic distribution
	FullUnroll bool   // fullunroll: fully unroll the work distribution (point) loops
	// Interleave (interleave) places the points of a work-item's block lsz
	// apart instead of side by side, so that neighbouring work-items touch
	// neighbouring elements (coalesced global and conflict-free local
	// accesses). An extension of the paper's Table 2; false is the paper's
	// block-cyclic layout.
	Interleave bool
	// Chunk (vw) keeps runs of vw points side by side in an interleaved
	// block: point p of a work-item lies at (p/vw)*lsz*vw + lid*vw + p%vw,
	// so that a work-item reads vw neighbouring elements at once (a
	// 64-bit or 128-bit local-memory load) while neighbouring work-items
	// still read neighbouring runs. Along a dimension whose bsz is smaller,
	// the run is bsz long. 0 and 1 mean single points (the interleave
	// above); ignored without interleave. A further extension of Table 2.
	Chunk    int
	Tile     [3]int // tw0 tw1 tw2: tile size per compute loop, outermost first; 0 = no tiling
	Unroll   int    // uf: unroll factor of the innermost compute loop; 0 or 1 = none
	LocalMem bool   // lmem: stage arrays in local memory
	// LoopCopy (lcopy) keeps the copies into local memory as loops that
	// the OpenCL compiler is asked to unroll, instead of writing their
	// rounds out as straight-line code. Which is faster depends on the
	// compiler and the tile (docs/results/h100/layout-experiment); an
	// extension of Table 2, ignored without lmem.
	LoopCopy bool
	// Vec (vec) computes each run of vec neighbouring points along x as
	// one OpenCL vector (floatN): per-point values become vectors, reads
	// of consecutive elements vector loads, writes vector stores. The
	// runs of a work-item's points along x (bszx, or vw with interleave)
	// must be multiples of vec. 0 and 1 mean scalar code; an extension of
	// Table 2 (CPU devices vectorize this way; on a GPU it makes wide
	// loads and stores).
	Vec int
	// Pack (pack) reads the elements of local arrays that the unrolled
	// innermost loop body uses in aligned runs of 2 or 4 as one float2 or
	// float4 load each (rows of local arrays are then padded by 4, not 1,
	// so that runs stay aligned). Ignored without lmem; an extension.
	Pack bool
	// Transpose (ltrans) stores in local memory, transposed, the tiles of
	// arrays read along a compute loop (a[idy][k]: the counter in the last
	// subscript after a global id), so that the points of a work-item
	// along that id read neighbouring elements (and, with pack, vector
	// loads). Needs lmem; an extension.
	Transpose bool
	// Prefetch (prefetch) overlaps the copy of the next tile of the
	// staged arrays with the computation on the current one: 1 reads the
	// next tile into private registers before computing and stores it
	// into local memory after; 2 double-buffers the local arrays, copying
	// the next tile into the other half with one barrier per tile; 3 is 1
	// with no branch around the reads and the stores (the last step reads
	// its own tile again). 0: the copy and the computation alternate.
	// Needs lmem and a tiled loop; an extension.
	Prefetch int
	// Warp (warp) gives the point coordinates of a work-group's items in
	// sub-blocks of 32 consecutive work-items (a GPU warp) that are warp
	// items wide and 32/warp high, instead of rows of lszx items: the
	// warp's points form a compact 2D block. 0: rows. Two or more
	// dimensions; an extension.
	Warp int
	// Swizzle (gswz) launches the work-groups in bands of gswz rows of
	// groups, column by column within a band, instead of row by row, so
	// that groups running together share tiles in the L2 cache. 0 and 1:
	// row by row. Two or more dimensions; an extension.
	Swizzle int
	// Split (split) runs the outermost loop of the compute nest in split
	// contiguous parts, each on its own work-item: the work-group gets a
	// further launch dimension (y for a 1D kernel, z for a 2D one) of
	// split work-items, and the split work-items that share a position
	// along the kernel's dimensions accumulate one part of the loop each,
	// into private partial sums that part 0 adds up through local memory
	// in a fixed order before it alone runs the statements after the
	// nest. More work-items for a domain of few points. Legal when the
	// nest only accumulates (+=, -=) into private accumulators; 0 and 1:
	// off. An extension of Table 2.
	Split int
	// FTZ (ftz) builds the variant with the OpenCL option
	// -cl-denorms-are-zero (the variant's Kernel.Options): single-precision
	// denormals may be flushed to zero, so that a GPU's special-function
	// instructions (rsqrt, sqrt, division) run without the fix-up that
	// scales a denormal argument first (on the H100 three more
	// instructions beside each rsqrt). Results on denormal values differ
	// by rounding; every variant is checked. An extension.
	FTZ bool
	// Fission (fission) separates the statements of the tile loop by the
	// groups of local arrays they use together: the terms of an
	// accumulation of a sum of products over different tiles
	// (c += a[y][k]*b[x][k] + b[y][k]*a[x][k]). 1 gives each group a tile
	// loop of its own, staging half the tiles; 2 keeps one tile loop whose
	// step runs the groups' steps in turn (each its own copies, prefetch,
	// computation and barriers). 0: off. Needs lmem and a tile loop; an
	// extension.
	Fission int
	// CopyOffsets (coff) writes the element a work-item copies into local
	// memory in each round of a copy as the work-item's own element plus a
	// constant: where the round's offset r*wg is a multiple of a local
	// index's stride, (flat + r*wg) / stride becomes flat/stride +
	// r*wg/stride, and its remainder by the tile's extent flat/stride %
	// ext when the constant is a multiple of the extent. The compiler
	// cannot do this itself: the indices are signed and it does not know
	// that the flat local id is never negative, so it computes each
	// round's indices and addresses anew (on the H100, SYR2K's tile loops
	// spent their time waiting on those instructions). Needs lmem; an
	// extension.
	CopyOffsets bool
}

// Name is the name of one optimizer parameter, as the command line, the
// search space and the reports spell it. The parameters are defined once,
// here: their names are the constants below and their meanings Defs.
type Name string

// The parameters of the paper's Table 2 and hplopt's extensions to it.
const (
	SzX, SzY, SzZ    Name = "szx", "szy", "szz"    // work-items per dimension of the global domain
	LszX, LszY, LszZ Name = "lszx", "lszy", "lszz" // work-items per work-group and dimension
	BszX, BszY, BszZ Name = "bszx", "bszy", "bszz" // points per block (coarsening) per dimension
	FullUnroll       Name = "fullunroll"           // unroll the loops over the points of a block
	Interleave       Name = "interleave"           // place a work-item's points lsz apart
	VW               Name = "vw"                   // runs of vw points side by side in an interleaved block
	Tw0, Tw1, Tw2    Name = "tw0", "tw1", "tw2"    // tile size per compute loop, outermost first
	UF               Name = "uf"                   // unroll factor of the innermost compute loop
	LMem             Name = "lmem"                 // stage arrays in local memory
	LCopy            Name = "lcopy"                // copies into local memory as loops, not straight-line code
	Vec              Name = "vec"                  // runs of vec points along x computed as one vector
	Pack             Name = "pack"                 // local reads in aligned runs as float2/float4 loads
	LTrans           Name = "ltrans"               // tiles read along a compute loop stored transposed
	Prefetch         Name = "prefetch"             // copy the next tile during the current one: 1 registers, 2 double buffers, 3 registers unguarded
	Warp             Name = "warp"                 // work-items of a warp in warp x 32/warp sub-blocks
	Gswz             Name = "gswz"                 // work-groups launched in bands of gswz rows
	Split            Name = "split"                // the outermost compute loop run in split parts by split work-items
	FTZ              Name = "ftz"                  // build with -cl-denorms-are-zero
	Fission          Name = "fission"              // one tile loop per group of local arrays used together
	COff             Name = "coff"                 // a copy's rounds as the work-item's element plus constants
)

// Global, Local and Block return the name of the global size, the local
// size and the block size along dimension d (0 = x, 1 = y, 2 = z).
func Global(d int) Name { return [3]Name{SzX, SzY, SzZ}[d] }

// Local returns the name of the local size along dimension d.
func Local(d int) Name { return [3]Name{LszX, LszY, LszZ}[d] }

// Block returns the name of the block size along dimension d.
func Block(d int) Name { return [3]Name{BszX, BszY, BszZ}[d] }

// Tile returns the name of the tile size of compute loop i (0 outermost).
func Tile(i int) Name { return [3]Name{Tw0, Tw1, Tw2}[i] }

// Def describes one parameter.
type Def struct {
	Name Name
	// Bool marks a flag (0 or 1); the others are non-negative integers.
	Bool bool
	// Dim is the global dimension the parameter belongs to (0 to 2), or
	// needs (1 for the parameters that need two dimensions), or -1; Loop
	// the compute loop (0 to 2) it belongs to or needs, or -1.
	Dim, Loop int
	// Doc says what the parameter does, in one line.
	Doc string
}

// defs lists every parameter in the fixed order of Names, reports and
// the command line.
var defs = []Def{
	{SzX, false, 0, -1, "global size along x (work-items)"},
	{SzY, false, 1, -1, "global size along y (work-items)"},
	{SzZ, false, 2, -1, "global size along z (work-items)"},
	{LszX, false, 0, -1, "local size along x (work-items per work-group)"},
	{LszY, false, 1, -1, "local size along y (work-items per work-group)"},
	{LszZ, false, 2, -1, "local size along z (work-items per work-group)"},
	{BszX, false, 0, -1, "points per block along x (coarsening)"},
	{BszY, false, 1, -1, "points per block along y (coarsening)"},
	{BszZ, false, 2, -1, "points per block along z (coarsening)"},
	{FullUnroll, true, -1, -1, "unroll the loops over the points of a block"},
	{Interleave, true, -1, -1, "place a work-item's points lsz apart (extension)"},
	{VW, false, -1, -1, "with interleave, keep runs of vw points side by side (extension)"},
	{Tw0, false, -1, 0, "tile size of compute loop 0 (outermost), 0 = not tiled"},
	{Tw1, false, -1, 1, "tile size of compute loop 1, 0 = not tiled"},
	{Tw2, false, -1, 2, "tile size of compute loop 2, 0 = not tiled"},
	{UF, false, -1, -1, "unroll factor of the innermost compute loop"},
	{LMem, true, -1, -1, "stage arrays in local memory"},
	{LCopy, true, -1, -1, "with lmem, copy tiles in loops the compiler unrolls instead of straight-line code (extension)"},
	{Vec, false, 0, -1, "compute runs of vec points along x as OpenCL vectors (extension)"},
	{Pack, true, -1, 0, "with lmem, read local elements in aligned runs as float2/float4 (extension)"},
	{LTrans, true, -1, 0, "with lmem, store tiles read along a compute loop transposed (extension)"},
	{Prefetch, false, -1, 0, "with lmem, copy the next tile during the current one: 1 registers, 2 double buffers, 3 registers with no branch (extension; the search tries 0 to 2)"},
	{Warp, false, 1, -1, "work-items of a 32-item warp in warp x 32/warp sub-blocks, 0 = rows (extension)"},
	{Gswz, false, 1, -1, "launch work-groups in bands of gswz rows (extension)"},
	{Split, false, -1, 0, "run the outermost compute loop in split parts on split work-items of a group, partial sums added in local memory, 1 = off (extension)"},
	{FTZ, true, -1, -1, "build with -cl-denorms-are-zero: denormals flushed, special functions without their fix-up (extension)"},
	{Fission, false, -1, 0, "with lmem, the tile loop's statements by groups of local arrays used together (the terms of a sum of products over different tiles): 1 a loop per group, 2 one loop, the groups' steps in turn (extension)"},
	{COff, true, -1, -1, "with lmem, each round of a copy into local memory as the work-item's element plus constants (extension)"},
}

// Defs returns the definitions of every parameter, in their fixed order.
func Defs() []Def { return append([]Def(nil), defs...) }

// Names returns the parameter names in their fixed order.
func Names() []Name {
	out := make([]Name, len(defs))
	for i, d := range defs {
		out[i] = d.Name
	}
	return out
}

// Lookup returns the parameter named s, or an error listing the known names.
func Lookup(s string) (Name, error) {
	for _, d := range defs {
		if string(d.Name) == s {
			return d.Name, nil
		}
	}
	return "", fmt.Errorf("transforms: unknown parameter %q (known: %s)", s, knownNames())
}

func knownNames() string {
	var b strings.Builder
	for i, d := range defs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(d.Name))
	}
	return b.String()
}

func (p *Params) field(name Name) (*int, *bool) {
	switch name {
	case SzX, SzY, SzZ:
		return &p.Global[name[2]-'x'], nil
	case LszX, LszY, LszZ:
		return &p.Local[name[3]-'x'], nil
	case BszX, BszY, BszZ:
		return &p.Block[name[3]-'x'], nil
	case Tw0, Tw1, Tw2:
		return &p.Tile[name[2]-'0'], nil
	case UF:
		return &p.Unroll, nil
	case VW:
		return &p.Chunk, nil
	case Vec:
		return &p.Vec, nil
	case Prefetch:
		return &p.Prefetch, nil
	case Warp:
		return &p.Warp, nil
	case Gswz:
		return &p.Swizzle, nil
	case Split:
		return &p.Split, nil
	case Pack:
		return nil, &p.Pack
	case LTrans:
		return nil, &p.Transpose
	case FullUnroll:
		return nil, &p.FullUnroll
	case Interleave:
		return nil, &p.Interleave
	case LMem:
		return nil, &p.LocalMem
	case LCopy:
		return nil, &p.LoopCopy
	case FTZ:
		return nil, &p.FTZ
	case Fission:
		return &p.Fission, nil
	case COff:
		return nil, &p.CopyOffsets
	}
	return nil, nil
}

// Get returns the value of the named parameter (booleans as 0 or 1).
func (p Params) Get(name Name) (int, error) {
	i, b := p.field(name)
	switch {
	case (name == VW || name == Vec || name == Gswz || name == Split) && *i == 0:
		return 1, nil // unset: single points, scalars, the driver's order, one part
	case i != nil:
		return *i, nil
	case b != nil:
		if *b {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("transforms: unknown parameter %q (known: %s)", name, knownNames())
}

// Set sets the named parameter (booleans from 0 or 1).
func (p *Params) Set(name Name, v int) error {
	i, b := p.field(name)
	switch {
	case i != nil:
		if v < 0 {
			return fmt.Errorf("transforms: parameter %s = %d: must not be negative", name, v)
		}
		if (name == VW || name == Vec || name == Gswz || name == Split) && v == 1 {
			v = 0 // one canonical form for single points, scalars, the driver's order, one part
		}
		*i = v
	case b != nil:
		if v != 0 && v != 1 {
			return fmt.Errorf("transforms: parameter %s = %d: must be 0 or 1", name, v)
		}
		*b = v == 1
	default:
		return fmt.Errorf("transforms: unknown parameter %q (known: %s)", name, knownNames())
	}
	return nil
}

// Map returns the parameters as name to value, for the dimensions and loops
// given (dims 1..3, loops 0..3).
func (p Params) Map(dims, loops int) map[string]int {
	m := map[string]int{}
	for _, n := range Relevant(dims, loops) {
		v, _ := p.Get(n)
		m[string(n)] = v
	}
	return m
}

// Relevant lists the parameters that matter for a kernel of the given
// number of global dimensions and compute loops, in their fixed order.
func Relevant(dims, loops int) []Name {
	var out []Name
	for _, d := range defs {
		switch {
		case d.Dim >= dims, d.Loop >= loops, d.Name == UF && loops == 0:
			continue
		}
		out = append(out, d.Name)
	}
	return out
}

// ParseParams reads "name=value,name=value" into p, on top of the values p
// already has. Values are integers, or true/false for flags.
func ParseParams(s string, p *Params) error {
	pins, err := parse(s, false)
	if err != nil {
		return err
	}
	for _, kv := range pins {
		if err := p.Set(kv.name, kv.v); err != nil {
			return err
		}
	}
	return nil
}

// ParsePins reads a list of pinned parameters, "name=value,name=value", as
// the command line's --params gives it: every entry must be name=value
// with a known name, a name may appear once, and each value must be one
// the parameter can take (non-negative; 0 or 1 for a flag). The empty
// string pins nothing.
func ParsePins(s string) (map[Name]int, error) {
	pins, err := parse(s, true)
	if err != nil {
		return nil, err
	}
	out := map[Name]int{}
	for _, kv := range pins {
		var p Params
		if err := p.Set(kv.name, kv.v); err != nil {
			return nil, err
		}
		out[kv.name], _ = p.Get(kv.name)
	}
	return out, nil
}

type pin struct {
	name Name
	v    int
}

// parse splits "name=value,..." into pins; strict rejects empty entries
// and repeated names.
func parse(s string, strict bool) ([]pin, error) {
	var out []pin
	seen := map[Name]bool{}
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			if strict {
				return nil, fmt.Errorf("transforms: parameters %q: empty entry (want name=value,name=value)", s)
			}
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("transforms: parameter %q: want name=value", kv)
		}
		n, err := Lookup(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		if strict && seen[n] {
			return nil, fmt.Errorf("transforms: parameter %s given twice", n)
		}
		seen[n] = true
		val = strings.TrimSpace(val)
		v, err := strconv.Atoi(val)
		if err != nil {
			b, berr := strconv.ParseBool(val)
			if berr != nil {
				return nil, fmt.Errorf("transforms: parameter %s: %q is not a number", n, val)
			}
			v = 0
			if b {
				v = 1
			}
		}
		out = append(out, pin{n, v})
	}
	return out, nil
}

// Complete turns a partial setting into a whole one for prob: the
// parameters given keep their values; an unset block size is 1, an unset
// local size the single-point launch's (Baseline), and an unset global
// size gives every block to one work-item.
func Complete(prob *Problem, given map[Name]int) (Params, error) {
	p := Baseline(prob)
	for _, d := range defs {
		if v, ok := given[d.Name]; ok {
			if err := p.Set(d.Name, v); err != nil {
				return p, err
			}
		}
	}
	for d := range prob.Domain {
		if _, ok := given[Global(d)]; !ok {
			if p.Block[d] <= 0 || p.Local[d] <= 0 {
				return p, illegal("%s and %s must be at least 1", Block(d), Local(d))
			}
			blocks := (prob.Domain[d] + p.Block[d] - 1) / p.Block[d]
			p.Global[d] = (blocks + p.Local[d] - 1) / p.Local[d] * p.Local[d]
		}
	}
	return p, nil
}

// Format prints the given map of parameters as name=value pairs in the
// fixed order.
func Format(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	order := map[string]int{}
	for i, d := range defs {
		order[string(d.Name)] = i
	}
	sort.Slice(keys, func(i, j int) bool { return order[keys[i]] < order[keys[j]] })
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%d", k, m[k])
	}
	return b.String()
}

// DenormsAreZero is the OpenCL build option of a variant built with ftz.
const DenormsAreZero = "-cl-denorms-are-zero"

// specialFuncs are the math builtins that a GPU computes on its
// special-function units (or in sequences built on them), whose
// single-precision forms scale a denormal argument first unless denormals
// may be flushed.
var specialFuncs = map[string]bool{
	"sqrt": true, "rsqrt": true, "exp": true, "exp2": true, "exp10": true, "log": true, "log2": true, "log10": true,
	"sin": true, "cos": true, "tan": true, "pow": true, "powr": true, "pown": true, "rootn": true, "cbrt": true, "hypot": true,
	"asin": true, "acos": true, "atan": true, "atan2": true, "sinh": true, "cosh": true, "tanh": true,
}

// SpecialFunctions reports whether prob's kernel computes a special
// function (sqrt, rsqrt, exp, sin and the like, in any of their native_
// or half_ forms) or divides floating-point values: where ftz can act.
func SpecialFunctions(prob *Problem) bool {
	types := kernelTypes(prob.Kernel)
	found := false
	ast.Inspect(prob.Kernel.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Decl:
			types[n.Name] = n.Type
		case *ast.Call:
			f := strings.TrimPrefix(strings.TrimPrefix(n.Func, "native_"), "half_")
			found = found || specialFuncs[f]
		case *ast.Binary:
			found = found || (n.Op == ast.Div && typeOf(n, types).IsFloat())
		}
		return !found
	})
	return found
}
