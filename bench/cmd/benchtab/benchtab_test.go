package main

import (
	"bytes"
	"strings"
	"testing"
)

const sample = `goos: linux
BenchmarkLoop/K=10/history=0/impl=rein-2   100  2000 ns/op  11.00 model-calls/op  100 ns/model-call  1100 B/op  22 allocs/op
BenchmarkLoop/K=10/history=0/impl=eino-2   100  4000 ns/op  11.00 model-calls/op  400 ns/model-call  2200 B/op  44 allocs/op
PASS
BenchmarkLoop/K=10/history=0/impl=rein-2   100  2000 ns/op  11.00 model-calls/op  300 ns/model-call  1100 B/op  22 allocs/op
BenchmarkLoop/K=10/history=0/impl=eino-2   100  4000 ns/op  11.00 model-calls/op  300 ns/model-call  2200 B/op  44 allocs/op
ok  	x	1.0s
`

// TestParseRoundsAndPerUnit checks rounds are counted per full name and
// allocations are turned into per-model-call figures.
func TestParseRoundsAndPerUnit(t *testing.T) {
	rs, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 {
		t.Fatalf("%d results, want 4", len(rs))
	}
	if rs[2].round != 1 || rs[2].impl != "rein" || rs[2].point != "K=10/history=0" || rs[2].table != "BenchmarkLoop" {
		t.Fatalf("third result %+v", rs[2])
	}
	if got := rs[1].metrics["allocs/model-call"]; got != 4 {
		t.Fatalf("allocs/model-call = %v, want 4", got)
	}
	if _, ok := rs[1].metrics["B/alloc"]; ok {
		t.Fatal("allocs/op taken for a divisor")
	}
}

// TestRatioIsPerRound checks the ratio is the median of per-round ratios
// (0.25 and 1 → 0.625), not the ratio of medians (200/350).
func TestRatioIsPerRound(t *testing.T) {
	rs, _ := parse(strings.NewReader(sample))
	var out bytes.Buffer
	ts := tables{}
	for _, tb := range group(rs) {
		ts[tb.name] = tb
		tb.write(&out)
	}
	if r, ok := ts.rat("BenchmarkLoop", "K=10/history=0", "eino", "ns/model-call"); !ok || r != 0.625 {
		t.Fatalf("ratio %v %v, want 0.625", r, ok)
	}
	if !strings.Contains(out.String(), "| K=10/history=0 | eino | 2 | 350 |") {
		t.Fatalf("table:\n%s", out.String())
	}
}

// TestParseRejectsBadValue checks a benchmark line with a non-number
// value is an error, not a silent zero.
func TestParseRejectsBadValue(t *testing.T) {
	if _, err := parse(strings.NewReader("BenchmarkX/impl=rein-2 10 abc ns/op\n")); err == nil {
		t.Fatal("no error")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("BenchmarkX-2 1 NaN ns/op\n")
	f.Fuzz(func(t *testing.T, in string) {
		rs, err := parse(strings.NewReader(in))
		if err != nil {
			return
		}
		var out bytes.Buffer
		ts := tables{}
		for _, tb := range group(rs) {
			ts[tb.name] = tb
			tb.write(&out)
		}
		writeGoals(&out, ts)
	})
}

// TestMsOpHidesNsOp checks the redundant ns/op column is left out where
// a benchmark reports ms/op.
func TestMsOpHidesNsOp(t *testing.T) {
	rs, err := parse(strings.NewReader("BenchmarkS/p=a/impl=rein-2 1 2000000 ns/op 2.0 ms/op\nBenchmarkS/p=a/impl=rg-2 1 1000000 ns/op 1.0 ms/op\n"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, tb := range group(rs) {
		tb.write(&out)
	}
	if strings.Contains(out.String(), "ns/op") || !strings.Contains(out.String(), "| p=a | rg | 1 | 1 | 2.00 |") {
		t.Fatalf("table:\n%s", out.String())
	}
}
