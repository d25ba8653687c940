package transforms

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
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
}

// names lists every parameter name in a fixed order.
var names = []string{"szx", "szy", "szz", "lszx", "lszy", "lszz", "bszx", "bszy", "bszz", "fullunroll", "interleave", "vw", "tw0", "tw1", "tw2", "uf", "lmem", "lcopy"}

// Names returns the parameter names in their fixed order.
func Names() []string { return append([]string(nil), names...) }

func (p *Params) field(name string) (*int, *bool) {
	switch name {
	case "szx", "szy", "szz":
		return &p.Global[name[2]-'x'], nil
	case "lszx", "lszy", "lszz":
		return &p.Local[name[3]-'x'], nil
	case "bszx", "bszy", "bszz":
		return &p.Block[name[3]-'x'], nil
	case "tw0", "tw1", "tw2":
		return &p.Tile[name[2]-'0'], nil
	case "uf":
		return &p.Unroll, nil
	case "vw":
		return &p.Chunk, nil
	case "fullunroll":
		return nil, &p.FullUnroll
	case "interleave":
		return nil, &p.Interleave
	case "lmem":
		return nil, &p.LocalMem
	case "lcopy":
		return nil, &p.LoopCopy
	}
	return nil, nil
}

// Get returns the value of the named parameter (booleans as 0 or 1).
func (p Params) Get(name string) (int, error) {
	i, b := p.field(name)
	switch {
	case name == "vw" && *i == 0:
		return 1, nil // unset: single points
	case i != nil:
		return *i, nil
	case b != nil:
		if *b {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("transforms: unknown parameter %q (known: %s)", name, strings.Join(names, ", "))
}

// Set sets the named parameter (booleans from 0 or 1).
func (p *Params) Set(name string, v int) error {
	i, b := p.field(name)
	switch {
	case i != nil:
		if v < 0 {
			return fmt.Errorf("transforms: parameter %s = %d: must not be negative", name, v)
		}
		if name == "vw" && v == 1 {
			v = 0 // one canonical form for single points
		}
		*i = v
	case b != nil:
		if v != 0 && v != 1 {
			return fmt.Errorf("transforms: parameter %s = %d: must be 0 or 1", name, v)
		}
		*b = v == 1
	default:
		return fmt.Errorf("transforms: unknown parameter %q (known: %s)", name, strings.Join(names, ", "))
	}
	return nil
}

// Map returns the parameters as name to value, for the dimensions and loops
// given (dims 1..3, loops 0..3).
func (p Params) Map(dims, loops int) map[string]int {
	m := map[string]int{}
	for _, n := range Relevant(dims, loops) {
		v, _ := p.Get(n)
		m[n] = v
	}
	return m
}

// Relevant lists the parameter names that matter for a kernel of the given
// number of global dimensions and compute loops.
func Relevant(dims, loops int) []string {
	var out []string
	for _, n := range names {
		switch {
		case strings.HasPrefix(n, "tw"):
			if int(n[2]-'0') >= loops {
				continue
			}
		case n == "uf":
			if loops == 0 {
				continue
			}
		case n[len(n)-1] >= 'x' && n[len(n)-1] <= 'z' && n != "fullunroll" && n != "interleave" && n != "vw" && n != "lcopy":
			if int(n[len(n)-1]-'x') >= dims {
				continue
			}
		}
		out = append(out, n)
	}
	return out
}

// ParseParams reads "name=value,name=value" into p, on top of the values p
// already has.
func ParseParams(s string, p *Params) error {
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("transforms: parameter %q: want name=value", kv)
		}
		v, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil {
			if b, berr := strconv.ParseBool(strings.TrimSpace(val)); berr == nil {
				v = 0
				if b {
					v = 1
				}
			} else {
				return fmt.Errorf("transforms: parameter %s: %q is not a number", name, val)
			}
		}
		if err := p.Set(strings.TrimSpace(name), v); err != nil {
			return err
		}
	}
	return nil
}

// Format prints the given map of parameters as name=value pairs in the
// fixed order.
func Format(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	order := map[string]int{}
	for i, n := range names {
		order[n] = i
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
