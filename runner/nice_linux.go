package runner

import (
	"os"
	"strconv"
	"syscall"
)

// lowerPriority raises the nice value of every thread of this process by
// builderNice (to 19 at most); threads made later (the OpenCL
// implementation's) inherit it from the thread that makes them. On Linux a
// nice value is a thread's, so each is set. Best-effort: a thread that
// cannot be changed keeps its priority.
func lowerPriority() {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		// The raw getpriority system call answers 20 - nice.
		p, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
		if err != nil {
			continue
		}
		syscall.Setpriority(syscall.PRIO_PROCESS, tid, min(19, 20-p+builderNice))
	}
}
