package hpl

import "errors"

// target opens the evaluation's device (placeholder until package opencl lands).
func (e *Evaluation) target() (target, error) {
	return nil, errors.New("no OpenCL binding yet")
}
