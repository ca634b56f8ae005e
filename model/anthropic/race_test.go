//go:build race

package anthropic_test

// raceEnabled reports a -race build, where the differential tests sample
// their variants: the race detector adds nothing to a single-goroutine
// comparison and slows it tenfold.
const raceEnabled = true
