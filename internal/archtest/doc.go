// Package archtest holds the tests that keep the module's layout as
// designed: the search builds without cgo and depends on nothing of the
// module but itself, and the runner knows nothing of how variants are
// made. It has no code of its own.
package archtest
