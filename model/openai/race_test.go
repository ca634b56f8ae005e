//go:build race

package openai_test

// raceEnabled reports a -race build, where the single-goroutine property
// tests sample split points instead of trying all of them: the race
// detector adds nothing there and slows them tenfold.
const raceEnabled = true
