package runner

import (
	"bufio"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hplopt/hplopt/opencl"
)

// The worker's side: the child process a Worker starts (client.go) serves
// its requests here (the protocol is in wire.go).

// workerArg, as the first argument of a process, marks it as a worker:
// a Worker starts its executable again with it, and MaybeWorker serves in
// such a process. It looks like a flag that no program defines, so that a
// program that forgot MaybeWorker fails at once, on its flag parsing.
const workerArg = "-hplopt.runner.worker"

// workerFD is the child's descriptor for its answers (ExtraFiles[0]).
const workerFD = 3

// MaybeWorker turns the process into a measurement worker if a Worker
// started it, and then exits; otherwise it returns at once. A Worker starts
// its own executable again with a reserved first argument, which
// MaybeWorker looks for; nothing else about the process (its environment)
// is read. Call it first in main, and in TestMain of tests that start
// workers (directly or through an optimizer), before anything parses the
// arguments:
//
//	func main() {
//		runner.MaybeWorker()
//		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
//	}
func MaybeWorker() {
	if !isWorker() {
		return
	}
	out := os.NewFile(workerFD, "hplopt-worker-answers")
	os.Exit(serve(os.Stdin, out))
}

// isWorker reports whether a Worker started this process.
func isWorker() bool { return len(os.Args) > 1 && os.Args[1] == workerArg }

// serve is the worker's side of the conversation, on in and out; it
// returns the process's exit status.
func serve(in io.Reader, out io.Writer) int {
	// The arrays' contents follow their headers on the same stream: the
	// decoder reads from br exactly the messages, the receiver the rest.
	br := bufio.NewReaderSize(in, 1<<16)
	dec, enc := gob.NewDecoder(br), gob.NewEncoder(out)
	if enc.Encode(wireResponse{Op: opHello}) != nil {
		return 1
	}
	var req wireRequest
	if err := dec.Decode(&req); err != nil || req.Op != opSetup || req.Setup == nil {
		fmt.Fprintf(os.Stderr, "hplopt worker: no setup (%v)\n", err)
		return 1
	}
	inject(req.Setup.Faults, atSetup, "")
	if req.Setup.Role == roleBuild {
		lowerPriority()
		return serveBuilder(dec, enc, req.Setup)
	}
	rc := &receiver{r: br}
	m, r, err := setupWorker(req.Setup, dec, rc)
	if err != nil {
		enc.Encode(wireResponse{Op: opSetup, Err: err.Error()})
		return 1
	}
	defer m.Close()
	if enc.Encode(r) != nil {
		return 1
	}
	// From here on, builds ending in the background report to the parent
	// while the measure loop answers it: one encoder, taken in turns.
	var encMu sync.Mutex
	send := func(r wireResponse) error {
		encMu.Lock()
		defer encMu.Unlock()
		return enc.Encode(r)
	}
	m.onBuilt = func(source string) { send(wireResponse{Op: opBuilt, Msg: sourceKey(source)}) }

	measure := make(chan wireRequest, 16)
	go func() {
		defer close(measure)
		for {
			var r wireRequest
			if dec.Decode(&r) != nil {
				return // the parent closed our input: done
			}
			switch r.Op {
			case opPrepare:
				if !forgets(req.Setup.Faults, r.Variant.Source) {
					m.prepare(r.Variant, r.Binary)
				}
			case opMeasure:
				measure <- r
			case opData:
				// The inputs again, after a variant that may have
				// overwritten them: the parent sends them only between
				// measurements, so no launch runs now.
				if r.Data == nil || rc.array(r.Data) != nil {
					return
				}
				m.inputsStale = false
			}
		}
	}()
	for r := range measure {
		v := r.Variant
		var prog *Program
		if r.Held && r.Binary == nil {
			// The program made from the binary sent ahead; without it
			// the parent sends the binary again.
			if prog = m.take(v); prog == nil {
				if send(wireResponse{Op: opNeedBinary}) != nil {
					return 1
				}
				continue
			}
		}
		inject(req.Setup.Faults, atBuild, v.Source)
		out := m.measure(context.Background(), v, runOptions{prog: prog, bin: r.Binary, compiled: func() {
			send(wireResponse{Op: opCompiled})
			inject(req.Setup.Faults, atRun, v.Source)
		}, launched: func() { send(wireResponse{Op: opLaunched}) }})
		res := out.res
		a := wireResponse{Op: opResult, Outcome: res.Outcome, Ms: res.Ms, Times: res.Times, Cost: res.Cost, Restart: out.restart, Stale: m.inputsStale}
		if res.Err != nil {
			a.Msg = res.Err.Error()
		}
		if send(a) != nil {
			return 1
		}
	}
	return 0
}

// setupWorker makes the worker's Measurer from the setup and the arrays'
// contents that follow it on the stream (dec for the headers, rc for the
// contents), and sets the expected outputs: those sent, those of WantFile,
// or the reference's, then written to WantFile.
func setupWorker(s *wireSetup, dec *gob.Decoder, rc *receiver) (*Measurer, wireResponse, error) {
	p := &Problem{Args: s.Args, Tolerance: s.Tolerance}
	if err := p.validateShapes(); err != nil {
		return nil, wireResponse{}, err
	}
	m, err := openMeasurer(s.Device, p, s.Measure)
	if err != nil {
		return nil, wireResponse{}, err
	}
	m.hostless, m.wantPath = true, s.WantFile
	rc.m = m
	fail := func(err error) (*Measurer, wireResponse, error) {
		m.Close()
		return nil, wireResponse{}, err
	}
	if s.WantFile == "" {
		return fail(errors.New("runner: worker: no file for the expected outputs"))
	}
	// The arrays' contents, then the expected outputs if they are sent.
	arrays := 0
	for i := range p.Args {
		if !p.Args[i].Scalar {
			arrays++
		}
	}
	if s.WantSent {
		arrays += len(p.outputs())
	}
	for ; arrays > 0; arrays-- {
		var req wireRequest
		if err := dec.Decode(&req); err != nil {
			return fail(fmt.Errorf("runner: worker: reading the problem's arrays: %v", err))
		}
		if req.Op != opData || req.Data == nil {
			return fail(fmt.Errorf("runner: worker: %v instead of the problem's arrays", req.Op))
		}
		if err := rc.array(req.Data); err != nil {
			return fail(err)
		}
	}
	if rc.want != nil {
		if err := rc.want.Close(); err != nil {
			return fail(fmt.Errorf("runner: worker: writing the expected outputs: %v", err))
		}
		rc.want = nil
	}
	// The expected outputs: sent, or written by the worker this one
	// replaces, or else the reference's (SetReference writes them).
	if _, err := os.Stat(s.WantFile); err == nil {
		if err := m.useWantFile(); err != nil {
			return fail(err)
		}
	}
	r := wireResponse{Op: opSetup, Device: m.Device(), DeviceKey: m.sess.deviceKey(), Lazy: m.sess.CompilesAtLaunch()}
	if s.Reference != nil {
		ms, timed, err := m.setReference(*s.Reference, s.ReferenceTime)
		if err != nil {
			return fail(err)
		}
		r.BaselineMs, r.BaseRuns = ms, timed
	}
	if !m.hasWant() {
		return fail(errors.New("runner: worker: no expected outputs: no reference variant, none sent and no file of them"))
	}
	return m, r, nil
}

// serveBuilder is a builder's side of the conversation: per request, it
// builds the variant, answers opCompiled (with the compiler's message when
// the source is rejected), makes the first launch of one work-group where
// the device compiles at launch and the variant's grid is small (on arrays
// of the problem's sizes, whose contents do not matter: one work-group of
// a correct kernel stays inside them), and answers opResult with the
// program's binary (or, in Msg, why there is none) and whether it holds
// the code of that first launch (Warm). With a kernel cache shared with the
// measuring worker (SharedCache: PoCL's, which keeps the program and the
// code of each first launch), it answers no binary: the measuring worker's
// build of the source finds both in the cache. Builds are one at a time: a builder is one process
// because NVIDIA's OpenCL compiler serializes the builds of a process.
func serveBuilder(dec *gob.Decoder, enc *gob.Encoder, s *wireSetup) int {
	sess, err := Open(s.Device)
	if err != nil {
		enc.Encode(wireResponse{Op: opSetup, Err: err.Error()})
		return 1
	}
	lazy := sess.CompilesAtLaunch()
	if enc.Encode(wireResponse{Op: opSetup, Device: sess.Device().Name, DeviceKey: sess.deviceKey(), Lazy: lazy}) != nil {
		return 1
	}
	var kargs []KernelArg // the first launch's arguments, made at the first
	for {
		var r wireRequest
		if dec.Decode(&r) != nil {
			return 0 // the parent closed our input: done
		}
		if r.Op != opBuild {
			continue
		}
		v := r.Variant
		inject(s.Faults, atBuild, v.Source)
		p := sess.Prepare(v.Source, JoinOptions(s.Measure.Options, v.Options), nil)
		if err := p.Wait(); err != nil {
			p.Close()
			if enc.Encode(wireResponse{Op: opCompiled, Msg: err.Error()}) != nil {
				return 1
			}
			continue
		}
		if enc.Encode(wireResponse{Op: opCompiled}) != nil {
			return 1
		}
		a := wireResponse{Op: opResult}
		if lazy && v.Local != nil && smallGrid(v.Global) {
			inject(s.Faults, atWarm, v.Source)
			if kargs == nil {
				if kargs, err = firstLaunchArgs(sess, s.Args); err != nil {
					a.Msg = err.Error()
				}
			}
			if kargs != nil {
				started := func() error { return enc.Encode(wireResponse{Op: opStarted}) }
				if err := firstLaunch(p, v, kargs, started); err != nil {
					a.Msg = err.Error()
				} else {
					a.Warm = true
				}
			}
		}
		if !lazy || !s.SharedCache {
			if a.Binary, err = p.Binary(); err != nil {
				a.Msg = err.Error()
			}
		}
		p.Close()
		if enc.Encode(a) != nil {
			return 1
		}
	}
}

// firstLaunchArgs makes the arguments of a builder's first launches:
// arrays of the problem's sizes, left as the device allocates them, and
// the scalars' values.
func firstLaunchArgs(sess *Session, args []Arg) ([]KernelArg, error) {
	out := make([]KernelArg, len(args))
	for i := range args {
		a := &args[i]
		out[i] = KernelArg{Type: a.Type, Value: a.Value}
		if a.Scalar {
			continue
		}
		b, err := sess.NewBuffer(a.bytes())
		if err != nil {
			return nil, fmt.Errorf("runner: builder: %s: %w", a.Name, err)
		}
		out[i].Buffer = b
	}
	return out, nil
}

// smallGrid reports whether a launch over global is one that a launch of a
// single work-group stands for in PoCL's kernel cache: PoCL makes the code
// of a work-group size for grids whose every dimension is under 65535
// ("smallgrid", PoCL's grid_width_specialization_limit) apart from that of
// larger grids, which only a launch of such a grid makes.
func smallGrid(global []int) bool {
	for _, g := range global {
		if g >= 65535 {
			return false
		}
	}
	return true
}

// firstLaunch launches one work-group of v, so that a device that compiles
// at launch makes the code of v's work-group size now, into the program's
// binary, rather than in the measuring worker's first launch. It calls
// started once the launch runs, its code made (PoCL compiles before it
// marks a launch running).
func firstLaunch(p *Program, v Variant, args []KernelArg, started func() error) error {
	k, err := p.Kernel(v.KernelName, args)
	if err != nil {
		return err
	}
	defer k.Close()
	ev, err := k.start(v.Local, v.Local)
	if err != nil {
		return err
	}
	defer ev.Close()
	for wait := 100 * time.Microsecond; ; wait = min(2*wait, 10*time.Millisecond) {
		st, err := ev.Status()
		if err != nil {
			return err
		}
		if st == opencl.Running || st == opencl.Complete {
			break
		}
		time.Sleep(wait)
	}
	if err := started(); err != nil {
		return err
	}
	_, err = ev.Wait()
	return err
}

// inject does what the faults set for point ask, for a variant of source
// src.
func inject(faults []fault, at faultPoint, src string) {
	for _, f := range faults {
		if f.At != at || (at != atSetup && !strings.Contains(src, f.Match)) {
			continue
		}
		switch f.Action {
		case exitProcess:
			fmt.Fprintf(os.Stderr, "hplopt worker: injected fault at %v (%q): exiting as a crash would\n", at, f.Match)
			os.Exit(3)
		case hang:
			fmt.Fprintf(os.Stderr, "hplopt worker: injected fault at %v (%q): hanging\n", at, f.Match)
			select {}
		case pause:
			time.Sleep(f.Sleep)
		}
	}
}

// forgets reports whether a fault makes the worker ignore the prepare
// request of the variant whose source is src.
func forgets(faults []fault, src string) bool {
	for _, f := range faults {
		if f.At == atPrepare && f.Action == forget && strings.Contains(src, f.Match) {
			return true
		}
	}
	return false
}

func (p faultPoint) String() string {
	switch p {
	case atSetup:
		return "setup"
	case atBuild:
		return "build"
	case atRun:
		return "run"
	case atWarm:
		return "first launch"
	case atPrepare:
		return "prepare"
	}
	return fmt.Sprintf("faultPoint(%d)", int(p))
}
