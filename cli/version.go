package cli

import (
	"fmt"
	"io"
	"runtime"

	"github.com/hplopt/hplopt/optimizer"
)

func init() {
	register(verb{name: "version", summary: "print the tool's version and its search space's version", run: versionVerb, flags: versionFlags})
}

func versionFlags() *flagSet {
	return newFlagSet("version", "", "Prints the tool's version (the one its records and reports carry), the version\nof the search space (records of another space are never reused as current) and\nthe Go toolchain that built it.")
}

func versionVerb(_ *command, args []string, stdout, stderr io.Writer) int {
	fs := versionFlags()
	if err := fs.noOperands(args); err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	fmt.Fprintf(stdout, "hplopt %s\nsearch space %s\n%s %s/%s\n", optimizer.ToolVersion(), optimizer.SpaceVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}
