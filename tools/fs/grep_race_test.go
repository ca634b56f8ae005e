//go:build race

package fs

// raceEnabled shrinks the slow comparisons under the race detector.
const raceEnabled = true
