//go:build !linux

package runner

// lowerPriority does nothing here: builders run at the priority of the
// process that started them.
func lowerPriority() {}
