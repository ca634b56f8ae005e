package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
)

// primaryUnits is the order in which a table's headline metric is
// chosen; higherBetter marks the throughputs.
var primaryUnits = []string{"ns/model-call", "MB/s", "calls/s", "ms/first-request", "ms/op", "ns/call", "ns/op"}

var higherBetter = map[string]bool{"MB/s": true, "calls/s": true}

// hidden units are divisors or per-op figures replaced by per-unit ones.
func hidden(unit string, units map[string]bool) bool {
	if isDivisor(unit) {
		return true
	}
	// ns/op repeats ms/op where a benchmark reports the latter.
	if unit == "ns/op" && units["ms/op"] {
		return true
	}
	if unit == "allocs/op" || unit == "B/op" {
		for u := range units {
			if strings.HasPrefix(u, "allocs/") && u != "allocs/op" {
				return true
			}
		}
	}
	return false
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// series is every round's value of one metric of one (point, impl).
type series map[string]map[int]float64 // unit → round → value

// tableData is one table: its points in order of first appearance, and
// for each point the implementations in order and their series.
type tableData struct {
	name   string
	points []string
	impls  map[string][]string
	data   map[string]map[string]series // point → impl → series
	units  map[string]bool
}

func group(results []result) []*tableData {
	var order []*tableData
	byName := map[string]*tableData{}
	for _, r := range results {
		t := byName[r.table]
		if t == nil {
			t = &tableData{name: r.table, impls: map[string][]string{}, data: map[string]map[string]series{}, units: map[string]bool{}}
			byName[r.table] = t
			order = append(order, t)
		}
		if t.data[r.point] == nil {
			t.data[r.point] = map[string]series{}
			t.points = append(t.points, r.point)
		}
		s := t.data[r.point][r.impl]
		if s == nil {
			s = series{}
			t.data[r.point][r.impl] = s
			t.impls[r.point] = append(t.impls[r.point], r.impl)
		}
		for u, v := range r.metrics {
			if s[u] == nil {
				s[u] = map[int]float64{}
			}
			s[u][r.round] = v
			t.units[u] = true
		}
	}
	return order
}

func (t *tableData) primary() string {
	for _, u := range primaryUnits {
		if t.units[u] {
			return u
		}
	}
	return "ns/op"
}

// ratio is the median over rounds of rein's value divided by the peer's
// in the same round: pairs measured under the same machine load.
func ratio(rein, peer map[int]float64) (float64, int) {
	var rs []float64
	for round, v := range rein {
		if p, ok := peer[round]; ok && p != 0 {
			rs = append(rs, v/p)
		}
	}
	return median(rs), len(rs)
}

func (t *tableData) write(w io.Writer) {
	prim := t.primary()
	var cols []string
	for _, u := range primaryUnits {
		if t.units[u] && u != prim && !hidden(u, t.units) {
			cols = append(cols, u)
		}
	}
	var rest []string
	for u := range t.units {
		if u != prim && !slices.Contains(cols, u) && !hidden(u, t.units) {
			rest = append(rest, u)
		}
	}
	sort.Strings(rest)
	cols = append([]string{prim}, append(cols, rest...)...)
	better := "lower is better"
	if higherBetter[prim] {
		better = "higher is better"
	}
	fmt.Fprintf(w, "\n### %s\n\nMedians over rounds; rein/peer is the median of per-round ratios of %s (%s)", strings.TrimPrefix(t.name, "Benchmark"), prim, better)
	if t.mixed(prim) {
		fmt.Fprintf(w, "; points without it use the first of %s they have", strings.Join(primaryUnits, ", "))
	}
	fmt.Fprint(w, ".\n\n")
	fmt.Fprintf(w, "| point | impl | rounds | %s | rein/peer |\n|---|---|---|%s---|\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	for _, p := range t.points {
		rein := t.data[p]["rein"]
		for _, impl := range t.impls[p] {
			s := t.data[p][impl]
			cells := make([]string, len(cols))
			rounds := 0
			for i, u := range cols {
				vals := values(s[u])
				rounds = max(rounds, len(vals))
				cells[i] = format(median(vals))
			}
			rr := ""
			if rein != nil && impl != "rein" {
				pp := pointPrimary(rein, prim)
				if r, n := ratio(rein[pp], s[pp]); n > 0 {
					rr = fmt.Sprintf("%.2f", r)
				}
			}
			fmt.Fprintf(w, "| %s | %s | %d | %s | %s |\n", orDash(p), impl, rounds, strings.Join(cells, " | "), rr)
		}
	}
}

// mixed reports whether some point's rein row lacks the table's
// headline metric.
func (t *tableData) mixed(prim string) bool {
	for _, p := range t.points {
		if s := t.data[p]["rein"]; s != nil && s[prim] == nil {
			return true
		}
	}
	return false
}

// pointPrimary is the headline metric of one point: the table's, or the
// first of primaryUnits the point has (a table may mix points that
// report different figures).
func pointPrimary(s series, prim string) string {
	if s[prim] != nil {
		return prim
	}
	for _, u := range primaryUnits {
		if s[u] != nil {
			return u
		}
	}
	return prim
}

func values(m map[int]float64) []float64 {
	out := make([]float64, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func format(v float64) string {
	switch {
	case math.IsNaN(v):
		return ""
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
