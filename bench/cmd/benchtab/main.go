// Command benchtab turns go test -bench output into the markdown tables
// bench/run prints: one table per top-level benchmark, one row per point
// and implementation (the "impl=" part of the name), medians over rounds
// (each repetition of a name is a round), allocations, and the ratio
// rein/peer of the headline metric computed round by round, so that each
// pair was measured under the same load; then the goals of issue 13.
//
// Usage: benchtab [file ...] (standard input when none).
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	var in io.Reader = os.Stdin
	if len(os.Args) > 1 {
		var rs []io.Reader
		for _, name := range os.Args[1:] {
			f, err := os.Open(name)
			if err != nil {
				fmt.Fprintln(os.Stderr, "benchtab:", err)
				os.Exit(1)
			}
			defer f.Close()
			rs = append(rs, f)
		}
		in = io.MultiReader(rs...)
	}
	results, err := parse(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if len(results) == 0 {
		fmt.Fprintln(os.Stderr, "benchtab: no benchmark results in the input")
		os.Exit(1)
	}
	ts := tables{}
	for _, t := range group(results) {
		ts[t.name] = t
		t.write(os.Stdout)
	}
	writeGoals(os.Stdout, ts)
}
