package main

import (
	"fmt"
	"math"
	"strings"
)

// The goals of issue 27 ("ahead of every peer at every point, and near
// the floor"), each checked at every point it names.

var (
	loopPoints      = []string{"K=10/history=0", "K=10/history=1000", "K=100/history=0", "K=100/history=1000"}
	mcpServerPoints = []string{
		"transport=stdio/callers=1", "transport=stdio/callers=8", "transport=stdio/callers=64",
		"transport=http/callers=1", "transport=http/callers=8", "transport=http/callers=64",
	}
	grepAndGlobPoints = append(append([]string(nil), grepPoints...), globPoints...)
)

var goals27 = []goal{
	{"loop ≤ 3× the hand-written floor at every point (rein/floor ns per model call)", ratioGoal("BenchmarkLoop", loopPoints, "floor", "ns/model-call", 0, 3)},
	{"loop ≤ 15 allocations per model call at every point", allAtMost("BenchmarkLoop", loopPoints, "allocs/model-call", 15)},
	{"MCP server ahead of mcp-go at 1, 8 and 64 callers, stdio and HTTP (rein/mcp-go calls/s ≥ 1)", ratioGoal("BenchmarkMCPServer", mcpServerPoints, "mcp-go", "calls/s", 1, math.Inf(1))},
	{"MCP client within 10 % of the fastest peer (rein/fastest ns/op ≤ 1.10)", fastestPeerGoal("BenchmarkMCPClient", mcpClientPoints, "ns/op", 1.10)},
	{"`rein run` to first request ≤ 4× the hello-world floor", ratioGoal("BenchmarkStartup", []string{"cmd=run-first-request"}, "hello", "ms/first-request", 0, 4)},
	{"`rein version` ≤ 2× the hello-world floor", ratioGoal("BenchmarkStartup", []string{"cmd=version"}, "hello", "ms/op", 0, 2)},
	{"resume of a 100,000-event session ≤ 300 ms", atMost("BenchmarkResume", "events=100000", "ms/op", 300, 1, "ms")},
	{"resume of a 100,000-event session ≤ 150 MB peak RSS", atMost("BenchmarkResume", "events=100000", "peak-RSS-MB", 150, 1, "MB")},
	{"every search pattern ≤ 1.0× ripgrep (rein/rg ms/op)", ratioGoal("BenchmarkSearch", grepAndGlobPoints, "rg", "ms/op", 0, 1.0)},
	{"a sandboxed `true` ≤ 5 ms over a direct one (rein − direct)", differenceGoal("BenchmarkSandbox", "cmd=true", "direct", "ms/op", 5, "ms")},
}

// allAtMost checks rein's median of unit is at most limit at every point.
func allAtMost(table string, points []string, unit string, limit float64) func(tables) (string, bool, bool) {
	return func(ts tables) (string, bool, bool) {
		var parts []string
		ok, found := true, false
		for _, p := range points {
			v, f := ts.med(table, p, "rein", unit)
			if !f {
				continue
			}
			found = true
			parts = append(parts, fmt.Sprintf("%s: %.1f", p, v))
			ok = ok && v <= limit
		}
		return strings.Join(parts, "; "), ok && found, found
	}
}

// fastestPeerGoal checks, at every point, rein's unit (lower is better)
// against the fastest peer of the same round: the median over rounds of
// rein / min(peers) is at most limit.
func fastestPeerGoal(table string, points []string, unit string, limit float64) func(tables) (string, bool, bool) {
	return func(ts tables) (string, bool, bool) {
		t := ts[table]
		if t == nil {
			return "", false, false
		}
		var parts []string
		ok, found := true, false
		for _, p := range points {
			impls := t.data[p]
			if impls == nil || impls["rein"] == nil {
				continue
			}
			var rs []float64
			for round, v := range impls["rein"][unit] {
				best, who := math.Inf(1), ""
				for name, s := range impls {
					if name == "rein" {
						continue
					}
					if pv, ok := s[unit][round]; ok && pv > 0 && pv < best {
						best, who = pv, name
					}
				}
				if who != "" {
					rs = append(rs, v/best)
				}
			}
			if len(rs) == 0 {
				continue
			}
			found = true
			r := median(rs)
			parts = append(parts, fmt.Sprintf("%s: %.2f", p, r))
			ok = ok && r <= limit
		}
		return strings.Join(parts, "; "), ok && found, found
	}
}

// differenceGoal checks the median over rounds of rein's unit minus the
// base impl's, in the same round, is at most limit.
func differenceGoal(table, point, base, unit string, limit float64, shown string) func(tables) (string, bool, bool) {
	return func(ts tables) (string, bool, bool) {
		t := ts[table]
		if t == nil || t.data[point] == nil || t.data[point]["rein"] == nil || t.data[point][base] == nil {
			return "", false, false
		}
		var ds []float64
		for round, v := range t.data[point]["rein"][unit] {
			if b, ok := t.data[point][base][unit][round]; ok {
				ds = append(ds, v-b)
			}
		}
		if len(ds) == 0 {
			return "", false, false
		}
		d := median(ds)
		return fmt.Sprintf("+%.3g %s", d, shown), d <= limit, true
	}
}
