// Package faults holds the SDK's fault matrix: a test (faults_test.go)
// that runs every operation of every surface against every fault a
// network or a hostile server can produce, and checks the outcome the
// retry table promises, how many times the request arrived, that memory
// and time stay bounded, and that the API key shows nowhere. The package
// has no code of its own.
package faults
