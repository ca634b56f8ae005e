//go:build race

package agent

// raceEnabled reports a -race build, whose instrumentation allocates:
// allocation budgets do not hold there.
const raceEnabled = true
