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

	measure := make(chan Variant, 16)
	go func() {
		defer close(measure)
		for {
			var r wireRequest
			if dec.Decode(&r) != nil {
				return // the parent closed our input: done
			}
			switch r.Op {
			case opPrepare:
				m.Prepare(r.Variant)
			case opMeasure:
				measure <- r.Variant
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
	for v := range measure {
		inject(req.Setup.Faults, atBuild, v.Source)
		res, restart := m.measure(context.Background(), v, func() {
			send(wireResponse{Op: opCompiled})
			inject(req.Setup.Faults, atRun, v.Source)
		})
		a := wireResponse{Op: opResult, Outcome: res.Outcome, Ms: res.Ms, Times: res.Times, Cost: res.Cost, Restart: restart, Stale: m.inputsStale}
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
	p := &Problem{Args: fromWire(s.Args), Tolerance: s.Tolerance}
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
	r := wireResponse{Op: opSetup, Device: m.Device()}
	if s.Reference != nil {
		ms, err := m.SetReference(*s.Reference)
		if err != nil {
			return fail(err)
		}
		r.BaselineMs = ms
	}
	if !m.hasWant() {
		return fail(errors.New("runner: worker: no expected outputs: no reference variant, none sent and no file of them"))
	}
	return m, r, nil
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
		}
	}
}

func (p faultPoint) String() string {
	switch p {
	case atSetup:
		return "setup"
	case atBuild:
		return "build"
	case atRun:
		return "run"
	}
	return fmt.Sprintf("faultPoint(%d)", int(p))
}
