package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// result is one benchmark line: its name split into the table it belongs
// to, the point of the table (the name without the table and impl
// parts), the implementation and the round (how many times the same
// full name was seen before), and its metrics by unit.
type result struct {
	table, point, impl string
	round              int
	metrics            map[string]float64
}

// procSuffix is the "-N" GOMAXPROCS suffix go test appends to names.
var procSuffix = regexp.MustCompile(`-\d+$`)

// parse reads go test -bench output and returns its results in order.
// Lines that are not benchmark results are ignored, so whole logs
// (PASS, ok, goos, test output) can be fed in.
func parse(r io.Reader) ([]result, error) {
	seen := map[string]int{}
	var out []result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		res, ok, err := parseLine(sc.Text())
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		full := res.table + "/" + res.point + "/" + res.impl
		res.round = seen[full]
		seen[full]++
		out = append(out, res)
	}
	return out, sc.Err()
}

// parseLine parses "BenchmarkX/a=1/impl=y-2  N  v unit  v unit ...".
func parseLine(line string) (result, bool, error) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
		return result{}, false, nil
	}
	if _, err := strconv.Atoi(f[1]); err != nil {
		return result{}, false, nil
	}
	name := procSuffix.ReplaceAllString(f[0], "")
	parts := strings.Split(name, "/")
	res := result{table: parts[0], impl: "-", metrics: map[string]float64{}}
	var point []string
	for _, p := range parts[1:] {
		if v, ok := strings.CutPrefix(p, "impl="); ok {
			res.impl = v
			continue
		}
		point = append(point, p)
	}
	res.point = strings.Join(point, "/")
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return result{}, false, fmt.Errorf("benchtab: bad value %q in %q", f[i], line)
		}
		res.metrics[f[i+1]] = v
	}
	perUnit(res.metrics)
	return res, true, nil
}

// perUnit turns allocs/op and B/op into per-unit figures when the
// benchmark reports how many units an op is ("model-calls/op",
// "chunks/op", "calls/op"): allocs/model-call, B/model-call, and so on.
func perUnit(m map[string]float64) {
	for unit, n := range m {
		base, ok := strings.CutSuffix(unit, "s/op")
		if !ok || n <= 0 || !isDivisor(unit) {
			continue
		}
		for _, k := range []string{"allocs", "B"} {
			if v, ok := m[k+"/op"]; ok {
				m[k+"/"+base] = v / n
			}
		}
	}
}

// isDivisor reports whether unit counts the units an op is made of
// ("model-calls/op"), as opposed to a measured per-op figure.
func isDivisor(unit string) bool {
	switch unit {
	case "allocs/op", "ns/op", "ms/op", "B/op":
		return false
	}
	return strings.HasSuffix(unit, "s/op")
}
