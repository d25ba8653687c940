package runner

import (
	"fmt"
	"hash/fnv"
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
	opData                       // parent → child: Data announces an array's contents, which follow
)

func (o wireOp) String() string {
	names := []string{"?", "hello", "setup", "prepare", "measure", "compiled", "result", "built", "data"}
	if o > 0 && int(o) < len(names) {
		return names[o]
	}
	return fmt.Sprintf("op %d", int(o))
}

type wireRequest struct {
	Op      wireOp
	Setup   *wireSetup
	Variant Variant
	Data    *wireData
}

type wireSetup struct {
	Device    string
	Args      []wireArg // their contents follow the setup (data.go)
	Tolerance Tolerance
	Reference *Variant // the variant whose outputs are expected; nil when they are given
	// WantSent says that the expected outputs follow the arrays' contents;
	// otherwise they are in WantFile if it exists, else the reference's
	// outputs, which the worker writes to WantFile.
	WantSent bool
	WantFile string
	Measure  MeasureSettings
	Faults   []fault // failures to inject, for tests
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

	Outcome autotune.Outcome
	Ms      float64
	Times   []float64
	Cost    autotune.Cost
	Msg     string
	Restart bool // the child's OpenCL state may be damaged: replace it
	// Stale says that the variant may have overwritten the inputs, which
	// the child does not keep: send them again before the next variant.
	Stale bool
}

// wireArg is an Arg without its contents, which follow the setup on the
// stream (data.go).
type wireArg struct {
	Name   string
	Scalar bool
	Type   ast.Type
	Dims   []int
	Value  float64
	Output bool
}

// wireArgs converts args for the wire, without their contents.
func wireArgs(args []Arg) []wireArg {
	out := make([]wireArg, len(args))
	for i := range args {
		a := &args[i]
		out[i] = wireArg{Name: a.Name, Scalar: a.Scalar, Type: a.Type, Dims: a.Dims, Value: a.Value, Output: a.Output}
	}
	return out
}

// fromWire converts args back, without contents.
func fromWire(args []wireArg) []Arg {
	out := make([]Arg, len(args))
	for i := range args {
		a := &args[i]
		out[i] = Arg{Name: a.Name, Scalar: a.Scalar, Type: a.Type, Dims: a.Dims, Value: a.Value, Output: a.Output}
	}
	return out
}

// sourceKey names a variant's source on the wire.
func sourceKey(source string) string {
	h := fnv.New64a()
	h.Write([]byte(source))
	return strconv.FormatUint(h.Sum64(), 16)
}
