package runner

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"time"

	"github.com/hplopt/hplopt/autotune"
)

// The wire protocol between a Worker (client.go, pool.go) and its child
// processes (server.go): requests on the child's stdin, answers on its
// descriptor 3, both encoded with encoding/gob. A child is a measuring
// worker or a builder, as its setup says.

type wireOp int

const (
	opHello      wireOp = iota + 1 // child → parent, once started
	opSetup                        // parent → child: wireSetup; child → parent: device, baseline, outputs
	opPrepare                      // parent → child: build a variant ahead (no answer)
	opMeasure                      // parent → child: measure a variant
	opCompiled                     // child → parent: the variant is built, runs start
	opResult                       // child → parent: the variant's result
	opBuilt                        // child → parent: a prepared variant's build ended (Msg: its sourceKey)
	opData                         // parent → child: Data announces an array's contents, which follow
	opBuild                        // parent → builder: build a variant; answers opCompiled, then opResult with the binary
	opStarted                      // builder → parent: the first launch's code is made, the kernel runs
	opLaunched                     // child → parent: the variant's first launch has ended, the others follow
	opNeedBinary                   // child → parent: a measure request said Held, but the program is gone: send the binary
)

func (o wireOp) String() string {
	names := []string{"?", "hello", "setup", "prepare", "measure", "compiled", "result", "built", "data", "build", "started", "launched", "need-binary"}
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
	// Binary, with opPrepare and opMeasure, is the variant's program
	// binary from a builder: the worker makes the program from it.
	Binary []byte
	// Held, with opMeasure, says that the worker was sent the variant's
	// binary with opPrepare, so the request does not carry it again (a
	// builder's binary of a large variant is a megabyte): the worker
	// measures the program it made from it, or, when it no longer has it,
	// answers opNeedBinary and the parent sends the request again with the
	// binary.
	Held bool
}

// wireRole is what a child process does.
type wireRole int

const (
	roleMeasure wireRole = iota // the measuring worker: a Measurer
	roleBuild                   // a builder: builds variants, answers binaries
)

type wireSetup struct {
	Role      wireRole
	Device    string
	Args      []Arg // without contents (shapes), which follow the setup (data.go), not a builder's
	Tolerance Tolerance
	Reference *Variant // the variant whose outputs are expected; nil when they are given
	// WantSent says that the expected outputs follow the arrays' contents;
	// otherwise they are in WantFile if it exists, else the reference's
	// outputs, which the worker writes to WantFile.
	WantSent bool
	WantFile string
	Measure  MeasureSettings
	// ReferenceTime, if positive, bounds the timed launches of the
	// reference (SetReference's within).
	ReferenceTime time.Duration
	// SharedCache, for a builder on a device that compiles at launch
	// (PoCL): the worker processes share the implementation's kernel cache,
	// where the first launch leaves its code for the measuring worker, so
	// no binary is taken (PoCL's costs another compilation).
	SharedCache bool
	Faults      []fault // failures to inject, for tests
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
	// Builder: the fault is a builder's (at atBuild or atWarm), not the
	// measuring worker's.
	Builder bool
	// First: only the first process of its kind has the fault, not those
	// started after it died or was killed.
	First bool
	// Sleep is how long the action pause blocks the worker.
	Sleep time.Duration
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
	// atWarm: in a builder, the variant is built, before its first launch
	// (on a device that compiles at launch).
	atWarm
	// atPrepare: the measuring worker got a prepare request (with the
	// action forget, it ignores it, as when it dropped the program for
	// later ones).
	atPrepare
)

// faultAction is what a fault does.
type faultAction int

const (
	// exitProcess ends the worker with status 3, as a crashing driver does.
	exitProcess faultAction = iota + 1
	// hang blocks the worker for good.
	hang
	// pause blocks the worker for the fault's Sleep; at atRun, it makes
	// the first launch that long slower.
	pause
	// forget, at atPrepare, makes the worker ignore the request.
	forget
)

type wireResponse struct {
	Op  wireOp
	Err string // the setup failed

	Device     string
	DeviceKey  string // the device and its implementation, for the cache
	Lazy       bool   // the device compiles at launch (Session.CompilesAtLaunch)
	BaselineMs float64
	BaseRuns   int    // timed launches of the reference (0: its warm-up's time)
	Binary     []byte // a builder's opResult: the variant's binary
	Warm       bool   // ... holding the code of the variant's first launch

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

// shapes returns args without their contents, which follow the setup on
// the stream (data.go): gob sends the nil slices as nothing.
func shapes(args []Arg) []Arg {
	out := slices.Clone(args)
	for i := range out {
		out[i].F32, out[i].F64, out[i].I32 = nil, nil, nil
	}
	return out
}

// sourceKey names a variant's source on the wire.
func sourceKey(source string) string {
	h := fnv.New64a()
	h.Write([]byte(source))
	return strconv.FormatUint(h.Sum64(), 16)
}
