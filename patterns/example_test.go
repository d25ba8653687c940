package patterns_test

import (
	"fmt"
	"os"

	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/patterns"
)

// The paper's running example: c[idy][idx] is SinglePat, a[idy][k] RowPat
// and b[k][idx] ColPat, so a and b are the arrays worth staging in local
// memory.
func ExampleFprint() {
	info, err := patterns.Analyze(kernels.MatMul.AST())
	if err != nil {
		fmt.Println(err)
		return
	}
	patterns.Fprint(os.Stdout, info)
	// Output:
	// kernel mxm
	// a  RowPat     r
	//      a[idy][k]    id y | loop k  RowPat     r
	// b  ColPat     r
	//      b[k][idx]    loop k | id x  ColPat     r
	// c  SinglePat  rw
	//      c[idy][idx]  id y | id x    SinglePat  w
	//      c[idy][idx]  id y | id x    SinglePat  rw
	// loops:
	//   [0] for (k = 0; k < limk; k += 1)  depth 0
}
