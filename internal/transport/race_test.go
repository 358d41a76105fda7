//go:build race

package transport

// raceDetector is true in a build with the race detector, whose own
// allocations make heap measurements meaningless.
const raceDetector = true
