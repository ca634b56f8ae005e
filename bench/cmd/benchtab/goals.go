package main

import (
	"fmt"
	"io"
	"strings"
)

// tables indexes grouped results by table name.
type tables map[string]*tableData

// med is the median of one metric at one point of one table, and whether
// it was measured.
func (ts tables) med(table, point, impl, unit string) (float64, bool) {
	t := ts[table]
	if t == nil || t.data[point] == nil || t.data[point][impl] == nil {
		return 0, false
	}
	vals := values(t.data[point][impl][unit])
	return median(vals), len(vals) > 0
}

// rat is the median per-round ratio rein/peer of one metric.
func (ts tables) rat(table, point, peer, unit string) (float64, bool) {
	t := ts[table]
	if t == nil || t.data[point] == nil || t.data[point]["rein"] == nil || t.data[point][peer] == nil {
		return 0, false
	}
	r, n := ratio(t.data[point]["rein"][unit], t.data[point][peer][unit])
	return r, n > 0
}

// goal is one target of issue 13, checked against the tables: measured
// says what was found, ok whether the target is met, found whether the
// benchmarks it needs ran at all.
type goal struct {
	desc  string
	check func(ts tables) (measured string, ok, found bool)
}

func atMost(table, point, unit string, limit float64, scale float64, shown string) func(tables) (string, bool, bool) {
	return func(ts tables) (string, bool, bool) {
		v, found := ts.med(table, point, "rein", unit)
		return fmt.Sprintf("%.3g %s", v*scale, shown), v <= limit, found
	}
}

// ratioGoal checks rein/peer of unit against [lo, hi] at every listed point.
func ratioGoal(table string, points []string, peer, unit string, lo, hi float64) func(tables) (string, bool, bool) {
	return func(ts tables) (string, bool, bool) {
		var parts []string
		ok, found := true, true
		for _, p := range points {
			r, f := ts.rat(table, p, peer, unit)
			if !f {
				found = false
				continue
			}
			parts = append(parts, fmt.Sprintf("%s: %.2f", p, r))
			ok = ok && r >= lo && r <= hi
		}
		return strings.Join(parts, "; "), ok, found
	}
}

// loopAhead checks that rein's loop beats every peer at every point.
func loopAhead(ts tables) (string, bool, bool) {
	t := ts["BenchmarkLoop"]
	if t == nil {
		return "", false, false
	}
	ok := true
	worst, where := 0.0, ""
	for _, p := range t.points {
		for _, impl := range t.impls[p] {
			if impl == "rein" || impl == "floor" {
				continue
			}
			r, f := ts.rat("BenchmarkLoop", p, impl, "ns/model-call")
			if !f {
				continue
			}
			if r > worst {
				worst, where = r, p+" vs "+impl
			}
			ok = ok && r < 1
		}
	}
	return fmt.Sprintf("worst rein/peer %.2f (%s)", worst, where), ok, true
}

var (
	mcpClientPoints = []string{"transport=stdio", "transport=http"}
	mcpServer64     = []string{"transport=stdio/callers=64", "transport=http/callers=64"}
	grepPoints      = []string{"tool=grep/pattern=literal", "tool=grep/pattern=prefix-regex", "tool=grep/pattern=ignore-case", "tool=grep/pattern=no-literal"}
	globPoints      = []string{"tool=glob/pattern=test-files", "tool=glob/pattern=testdata-go"}
)

var goals = []goal{
	{"loop ahead of every peer at every point", loopAhead},
	{"loop ≤ 5 µs per model call at 1,000 messages (K=10)", atMost("BenchmarkLoop", "K=10/history=1000", "ns/model-call", 5000, 1e-3, "µs")},
	{"loop ≤ 5 µs per model call at 1,000 messages (K=100)", atMost("BenchmarkLoop", "K=100/history=1000", "ns/model-call", 5000, 1e-3, "µs")},
	{"MCP client adapter within 10 % of raw go-sdk (rein/go-sdk ns/op ≤ 1.10)", ratioGoal("BenchmarkMCPClient", mcpClientPoints, "go-sdk", "ns/op", 0, 1.10)},
	{"MCP server throughput at 64 callers ≥ go-sdk's (rein/go-sdk calls/s ≥ 1)", ratioGoal("BenchmarkMCPServer", mcpServer64, "go-sdk", "calls/s", 1, 1e9)},
	{"`rein run` to first request ≤ 20 ms", atMost("BenchmarkStartup", "cmd=run-first-request", "ms/first-request", 20, 1, "ms")},
	{"resume of a 100,000-event session ≤ 300 ms", atMost("BenchmarkResume", "events=100000", "ms/op", 300, 1, "ms")},
	{"resume of a 100,000-event session ≤ 200 MB peak RSS", atMost("BenchmarkResume", "events=100000", "peak-RSS-MB", 200, 1, "MB")},
	{"grep within 1.5× of ripgrep (rein/rg ms/op ≤ 1.5)", ratioGoal("BenchmarkSearch", grepPoints, "rg", "ms/op", 0, 1.5)},
	{"glob within 1.5× of rg --files -g (rein/rg ms/op ≤ 1.5)", ratioGoal("BenchmarkSearch", globPoints, "rg", "ms/op", 0, 1.5)},
	{"OpenAI stream parse ≥ 250 MB/s", atMost2("BenchmarkStream", "provider=openai", "MB/s", 250)},
	{"Anthropic stream parse ≥ 200 MB/s", atMost2("BenchmarkStream", "provider=anthropic", "MB/s", 200)},
	{"OpenAI stream parse ≥ 5× openai-go (rein/openai-go MB/s ≥ 5)", ratioGoal("BenchmarkStream", []string{"provider=openai"}, "openai-go", "MB/s", 5, 1e9)},
}

// atMost2 is the at-least form of atMost, for throughputs.
func atMost2(table, point, unit string, floor float64) func(tables) (string, bool, bool) {
	return func(ts tables) (string, bool, bool) {
		v, found := ts.med(table, point, "rein", unit)
		return fmt.Sprintf("%.0f %s", v, unit), v >= floor, found
	}
}

// writeGoals prints the goals of issue 13 and of issue 27, each with what
// was measured and its verdict ("—" when this run did not measure it).
func writeGoals(w io.Writer, ts tables) {
	writeGoalTable(w, "issue 13", goals, ts)
	writeGoalTable(w, "issue 27", goals27, ts)
}

func writeGoalTable(w io.Writer, title string, goals []goal, ts tables) {
	fmt.Fprintf(w, "\n### Goals (%s)\n\n| goal | measured | met |\n|---|---|---|\n", title)
	for _, g := range goals {
		m, ok, found := g.check(ts)
		verdict := "no"
		switch {
		case !found:
			m, verdict = "not measured in this run", "—"
		case ok:
			verdict = "yes"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", g.desc, m, verdict)
	}
}
