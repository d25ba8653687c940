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
