//go:build race

package tool

// raceEnabled reports a -race build, whose instrumentation allocates:
// allocation budgets do not hold there.
const raceEnabled = true
