//go:build !race

package rest

// raceDetector is true in a build with the race detector, whose own
// allocations make heap measurements meaningless.
const raceDetector = false
