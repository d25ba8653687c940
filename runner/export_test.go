package runner

// The worker's fault injection, for the tests: a WorkerSettings with faults
// makes its worker crash or hang on purpose (see fault).

type Fault = fault

const (
	AtSetup     = atSetup
	AtBuild     = atBuild
	AtRun       = atRun
	ExitProcess = exitProcess
	Hang        = hang
	Pause       = pause
)

// InjectFaults adds faults to the worker set starts.
func InjectFaults(set *WorkerSettings, faults ...Fault) { set.faults = append(set.faults, faults...) }

const AtWarm = atWarm

// WorkerPID returns the process ID of w's measuring worker process, 0 when
// it has none.
func WorkerPID(w *Worker) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.c == nil {
		return 0
	}
	return w.c.cmd.Process.Pid
}

const (
	AtPrepare = atPrepare
	Forget    = forget
)

// HandBackBinaries makes the builders of the worker set starts hand back
// program binaries on PoCL too, as they do on a GPU.
func HandBackBinaries(set *WorkerSettings) { set.binaries = true }

// Binaries returns how many of w's measure requests went without the
// variant's binary, the worker process having been sent it ahead, and how
// many of those were sent again with it, the process no longer having
// the program.
func Binaries(w *Worker) (held, resent int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.heldBinaries, w.resentBinaries
}
