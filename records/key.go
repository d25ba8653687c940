package records

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Key identifies a tuning problem: records made for one key are reused
// only for the same key. Every field takes part in [Key.ID]; all but the
// sizes (Global, the arguments' shapes, Scalars) in [Key.Family].
type Key struct {
	// Kernel is the kernel's name.
	Kernel string `json:"kernel"`
	// Hash is the structural hash of the kernel (of its AST, not of a
	// debug text), as the caller computes it; opaque here.
	Hash string `json:"hash"`
	// Device is the OpenCL device the kernel runs on.
	Device Device `json:"device"`
	// Global is the index space: points per dimension, x first.
	Global []int `json:"global"`
	// Args are the kernel's arguments in order: their types and shapes.
	Args []Arg `json:"args"`
	// Scalars are the scalar values the generated code depends on, in any
	// order (the key sorts them by name). Scalars that do not change the
	// generated code must be left out, or they split the key.
	Scalars []Scalar `json:"scalars"`
	// Space is the version of the optimizer's search space. Records of
	// another version are never taken for current ones.
	Space string `json:"space"`
}

// Device is the identity of an OpenCL device, as the driver reports it.
type Device struct {
	Platform string `json:"platform"` // the platform's name
	Name     string `json:"name"`     // the device's name
	Vendor   string `json:"vendor"`   // the device's vendor
	Driver   string `json:"driver"`   // the driver's version
	OpenCL   string `json:"opencl"`   // the device's OpenCL version
}

// String returns the device's name with its platform and driver.
func (d Device) String() string {
	return fmt.Sprintf("%s (%s, driver %s)", d.Name, d.Platform, d.Driver)
}

// Arg is one kernel argument: its element type and its extents.
type Arg struct {
	Name  string `json:"name"`
	Type  string `json:"type"`  // the element type, e.g. float32
	Shape []int  `json:"shape"` // the extents, outermost first; empty for a scalar
}

// Scalar is a scalar argument value the specialization depends on, in the
// caller's text form (e.g. "3" or "0.5").
type Scalar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Validate reports what is missing or wrong in k: an empty kernel name,
// hash, device name or search-space version, a negative extent, or a
// scalar named twice.
func (k Key) Validate() error {
	var errs []error
	for _, f := range []struct{ name, v string }{{"kernel name", k.Kernel}, {"kernel hash", k.Hash}, {"device name", k.Device.Name}, {"search-space version", k.Space}} {
		if strings.TrimSpace(f.v) == "" {
			errs = append(errs, fmt.Errorf("no %s", f.name))
		}
	}
	neg := func(what string, s []int) {
		if slices.ContainsFunc(s, func(x int) bool { return x < 0 }) {
			errs = append(errs, fmt.Errorf("%s has a negative extent: %v", what, s))
		}
	}
	neg("the index space", k.Global)
	for _, a := range k.Args {
		neg("argument "+a.Name, a.Shape)
	}
	seen := map[string]bool{}
	for _, s := range k.Scalars {
		if seen[s.Name] {
			errs = append(errs, fmt.Errorf("scalar %s given twice", s.Name))
		}
		seen[s.Name] = true
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("records: key of kernel %q: %w", k.Kernel, err)
	}
	return nil
}

// canonical returns k with the scalars sorted by name and every nil slice
// empty, so that equal keys encode to equal JSON.
func (k Key) canonical() Key {
	c := k
	c.Global = orEmpty(k.Global)
	c.Args = make([]Arg, len(k.Args))
	for i, a := range k.Args {
		c.Args[i] = Arg{Name: a.Name, Type: a.Type, Shape: orEmpty(a.Shape)}
	}
	c.Scalars = slices.Clone(orEmpty(k.Scalars))
	slices.SortFunc(c.Scalars, func(a, b Scalar) int { return strings.Compare(a.Name, b.Name) })
	return c
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// JSON returns the key's canonical JSON: the form stored and hashed.
func (k Key) JSON() string {
	b, err := json.Marshal(k.canonical())
	if err != nil {
		panic("records: key does not encode: " + err.Error()) // strings and ints always do
	}
	return string(b)
}

// ID returns the problem's identity: 32 hex digits of a SHA-256 of the
// key's canonical JSON. Equal keys have equal IDs on every machine.
func (k Key) ID() string { return digest("key 1", k.JSON()) }

// family is what Family hashes: the key without its sizes, but with the
// number of extents of each, so that the shapes of one family compare.
type family struct {
	Kernel, Hash string
	Device       Device
	Dims         int
	Args         []familyArg
	Scalars      []string
	Space        string
}

type familyArg struct {
	Name, Type string
	Rank       int
}

// Family returns the identity of the key's family: the same kernel, device,
// search space, argument names, types and ranks and scalar names, at any
// sizes. Shapes of one family compare by [Distance].
func (k Key) Family() string {
	return digest("family 1", k.family(k.canonical().Device))
}

// Kin identifies the key's family on every device of its OpenCL platform:
// Family without the device's name, vendor, driver and OpenCL version. The
// best settings of a kin of another family (the same GPU after a driver
// update, or another GPU of the platform) are where a search of a family
// never recorded starts.
func (k Key) Kin() string {
	return digest("kin 1", k.family(Device{Platform: k.canonical().Device.Platform}))
}

// family returns the JSON of k's family with device d.
func (k Key) family(d Device) string {
	c := k.canonical()
	f := family{Kernel: c.Kernel, Hash: c.Hash, Device: d, Dims: len(c.Global), Space: c.Space, Args: []familyArg{}, Scalars: []string{}}
	for _, a := range c.Args {
		f.Args = append(f.Args, familyArg{a.Name, a.Type, len(a.Shape)})
	}
	for _, s := range c.Scalars {
		f.Scalars = append(f.Scalars, s.Name)
	}
	b, err := json.Marshal(f)
	if err != nil {
		panic("records: family does not encode: " + err.Error())
	}
	return string(b)
}

func digest(kind, s string) string {
	h := sha256.Sum256([]byte("hplopt records " + kind + "\n" + s))
	return hex.EncodeToString(h[:16])
}

// Shape returns the key's sizes as one vector: the index space, then each
// argument's extents in order, then the scalars that parse as numbers
// (others count as 0), by name. Keys of one family have shapes of equal
// length.
func (k Key) Shape() []float64 {
	c := k.canonical()
	var s []float64
	for _, x := range c.Global {
		s = append(s, float64(x))
	}
	for _, a := range c.Args {
		for _, x := range a.Shape {
			s = append(s, float64(x))
		}
	}
	for _, sc := range c.Scalars {
		v, err := strconv.ParseFloat(sc.Value, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			v = 0
		}
		s = append(s, v)
	}
	return s
}

// Distance is how far apart two shapes of one family are: the Euclidean
// distance of their logarithms (a size twice as large is as far as one half
// as large), each value taken as at least 1 in magnitude; +Inf for shapes
// of different lengths.
func Distance(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	lg := func(x float64) float64 { return math.Copysign(math.Log(max(math.Abs(x), 1)), x) }
	var sum float64
	for i := range a {
		d := lg(a[i]) - lg(b[i])
		sum += d * d
	}
	return math.Sqrt(sum)
}

// Sizes prints the key's sizes compactly: the index space, then each
// argument with extents and each scalar, as "1024x1024 A[1024x512] alpha=2".
func (k Key) Sizes() string {
	c := k.canonical()
	parts := []string{dims(c.Global)}
	for _, a := range c.Args {
		if len(a.Shape) > 0 {
			parts = append(parts, a.Name+"["+dims(a.Shape)+"]")
		}
	}
	for _, s := range c.Scalars {
		parts = append(parts, s.Name+"="+s.Value)
	}
	return strings.Join(parts, " ")
}

func dims(s []int) string {
	if len(s) == 0 {
		return "-"
	}
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, "x")
}
