package runner

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/autotune"
)

// The wire protocol between a Worker (client.go) and its child process
// (server.go): requests on the child's stdin, answers on its descriptor 3,
// both encoded with encoding/gob.

type wireOp int

const (
	opHello    wireOp = iota + 1 // child → parent, once started
	opSetup                      // parent → child: wireSetup; child → parent: device, baseline, outputs
	opPrepare                    // parent → child: build a variant ahead (no answer)
	opMeasure                    // parent → child: measure a variant
	opCompiled                   // child → parent: the variant is built, runs start
	opResult                     // child → parent: the variant's result
	opBuilt                      // child → parent: a prepared variant's build ended (Msg: its sourceKey)
)

func (o wireOp) String() string {
	names := []string{"?", "hello", "setup", "prepare", "measure", "compiled", "result", "built"}
	if o > 0 && int(o) < len(names) {
		return names[o]
	}
	return fmt.Sprintf("op %d", int(o))
}

type wireRequest struct {
	Op      wireOp
	Setup   *wireSetup
	Variant Variant
}

type wireSetup struct {
	Device    string
	Args      []wireArg
	Tolerance Tolerance
	Reference *Variant  // nil: Want holds the expected outputs
	Want      []wireArg // parallel to Args; only outputs carry contents
	Measure   MeasureSettings
	Faults    []fault // failures to inject, for tests
}

// fault is a failure a worker makes on purpose, so that tests can show
// what the parent does when a driver crashes or hangs: at a point of the
// conversation, for the variants whose source contains Match (all when
// Match is empty), the worker does Action. Tests set faults through
// export_test.go; nothing else does.
type fault struct {
	At     faultPoint
	Match  string
	Action faultAction
}

// faultPoint is where in the conversation a fault happens.
type faultPoint int

const (
	// atSetup: the setup arrived, before the device is opened (Match is
	// not read).
	atSetup faultPoint = iota + 1
	// atBuild: a measure request arrived, before the variant is built; a
	// hang there is a build that does not end.
	atBuild
	// atRun: the variant is built, before its launches; a hang there is a
	// kernel that does not end.
	atRun
)

// faultAction is what a fault does.
type faultAction int

const (
	// exitProcess ends the worker with status 3, as a crashing driver does.
	exitProcess faultAction = iota + 1
	// hang blocks the worker for good.
	hang
)

type wireResponse struct {
	Op  wireOp
	Err string // the setup failed

	Device     string
	BaselineMs float64
	Want       []wireArg

	Outcome autotune.Outcome
	Ms      float64
	Times   []float64
	Cost    autotune.Cost
	Msg     string
	Restart bool // the child's OpenCL state may be damaged: replace it
}

// wireArg is an Arg with its contents as little-endian bytes, which gob
// copies instead of encoding element by element.
type wireArg struct {
	Name   string
	Scalar bool
	Type   ast.Type
	Dims   []int
	Raw    []byte
	Value  float64
	Output bool
}

// wireArgs converts args for the wire; with outputsOnly, only the
// contents of outputs are sent.
func wireArgs(args []Arg, outputsOnly bool) []wireArg {
	out := make([]wireArg, len(args))
	for i := range args {
		a := &args[i]
		out[i] = wireArg{Name: a.Name, Scalar: a.Scalar, Type: a.Type, Dims: a.Dims, Value: a.Value, Output: a.Output}
		if outputsOnly && !a.Output {
			continue
		}
		switch {
		case a.F32 != nil:
			b := make([]byte, 4*len(a.F32))
			for j, x := range a.F32 {
				binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(x))
			}
			out[i].Raw = b
		case a.F64 != nil:
			b := make([]byte, 8*len(a.F64))
			for j, x := range a.F64 {
				binary.LittleEndian.PutUint64(b[8*j:], math.Float64bits(x))
			}
			out[i].Raw = b
		case a.I32 != nil:
			b := make([]byte, 4*len(a.I32))
			for j, x := range a.I32 {
				binary.LittleEndian.PutUint32(b[4*j:], uint32(x))
			}
			out[i].Raw = b
		}
	}
	return out
}

// fromWire converts args back; an array without contents gets none.
func fromWire(args []wireArg) []Arg {
	out := make([]Arg, len(args))
	for i := range args {
		a := &args[i]
		out[i] = Arg{Name: a.Name, Scalar: a.Scalar, Type: a.Type, Dims: a.Dims, Value: a.Value, Output: a.Output}
		if a.Raw == nil {
			continue
		}
		b := a.Raw
		switch a.Type {
		case ast.Float:
			v := make([]float32, len(b)/4)
			for j := range v {
				v[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
			}
			out[i].F32 = v
		case ast.Double:
			v := make([]float64, len(b)/8)
			for j := range v {
				v[j] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*j:]))
			}
			out[i].F64 = v
		case ast.Int:
			v := make([]int32, len(b)/4)
			for j := range v {
				v[j] = int32(binary.LittleEndian.Uint32(b[4*j:]))
			}
			out[i].I32 = v
		}
	}
	return out
}

// sourceKey names a variant's source on the wire.
func sourceKey(source string) string {
	h := fnv.New64a()
	h.Write([]byte(source))
	return strconv.FormatUint(h.Sum64(), 16)
}
