package cli

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// profileVar defines --cpuprofile on fs: a CPU profile of the tuning
// process (the search, the passes, the printer; not the worker and builder
// processes) written to the file given, for `go tool pprof`.
func profileVar(fs *flagSet, p *string) {
	fs.StringVar(p, "cpuprofile", "", "write a CPU profile of this process (the search, generating variants; not the worker or the builders) to `FILE`, for go tool pprof")
}

// startProfile starts the CPU profile --cpuprofile asks for (none for "")
// and returns the function that ends it and closes the file.
func startProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %v", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("--cpuprofile: %v", err)
		}
		return nil
	}, nil
}
