//go:build race

package worker

// raceDetector is true in a build with the race detector, which makes the
// heap test's megabytes of JSON scanning take minutes.
const raceDetector = true
