package main

import (
	"strings"
	"testing"
)

const sample27 = `BenchmarkMCPClient/transport=stdio/impl=rein-2    100  1100 ns/op
BenchmarkMCPClient/transport=stdio/impl=go-sdk-2  100  1300 ns/op
BenchmarkMCPClient/transport=stdio/impl=mcp-go-2  100  1000 ns/op
BenchmarkMCPClient/transport=stdio/impl=rein-2    100  1000 ns/op
BenchmarkMCPClient/transport=stdio/impl=go-sdk-2  100  800 ns/op
BenchmarkMCPClient/transport=stdio/impl=mcp-go-2  100  2000 ns/op
BenchmarkSandbox/cmd=true/impl=rein-2    10  0 ns/op  7.5 ms/op
BenchmarkSandbox/cmd=true/impl=direct-2  10  0 ns/op  1.0 ms/op
BenchmarkSandbox/cmd=true/impl=rein-2    10  0 ns/op  4.0 ms/op
BenchmarkSandbox/cmd=true/impl=direct-2  10  0 ns/op  1.5 ms/op
BenchmarkLoop/K=10/history=0/impl=rein-2  100  2000 ns/op  11.00 model-calls/op  100 ns/model-call  1100 B/op  154 allocs/op
`

func tables27(t *testing.T) tables {
	t.Helper()
	rs, err := parse(strings.NewReader(sample27))
	if err != nil {
		t.Fatal(err)
	}
	ts := tables{}
	for _, tb := range group(rs) {
		ts[tb.name] = tb
	}
	return ts
}

// TestFastestPeerIsPerRound checks rein is compared with the fastest peer
// of each round (mcp-go in round 0: 1.1; go-sdk in round 1: 1.25), and the
// verdict uses the median of those ratios (1.175).
func TestFastestPeerIsPerRound(t *testing.T) {
	m, ok, found := fastestPeerGoal("BenchmarkMCPClient", []string{"transport=stdio"}, "ns/op", 1.10)(tables27(t))
	if !found || ok || m != "transport=stdio: 1.18" {
		t.Fatalf("measured %q ok=%v found=%v", m, ok, found)
	}
	_, ok, _ = fastestPeerGoal("BenchmarkMCPClient", []string{"transport=stdio"}, "ns/op", 1.2)(tables27(t))
	if !ok {
		t.Fatal("1.175 ≤ 1.2 not met")
	}
	if _, _, found := fastestPeerGoal("BenchmarkMCPClient", []string{"transport=http"}, "ns/op", 1.1)(tables27(t)); found {
		t.Fatal("an unmeasured point counted as found")
	}
}

// TestDifferenceIsPerRound checks the sandbox's cost is the median of the
// per-round differences (6.5 and 2.5 → 4.5 ms), not of the medians.
func TestDifferenceIsPerRound(t *testing.T) {
	m, ok, found := differenceGoal("BenchmarkSandbox", "cmd=true", "direct", "ms/op", 5, "ms")(tables27(t))
	if !found || !ok || m != "+4.5 ms" {
		t.Fatalf("measured %q ok=%v found=%v", m, ok, found)
	}
}

// TestAllocsPerModelCallGoal checks the allocation goal reads the
// per-model-call figure (154 / 11 = 14) and fails above the limit.
func TestAllocsPerModelCallGoal(t *testing.T) {
	m, ok, found := allAtMost("BenchmarkLoop", loopPoints, "allocs/model-call", 15)(tables27(t))
	if !found || !ok || m != "K=10/history=0: 14.0" {
		t.Fatalf("measured %q ok=%v found=%v", m, ok, found)
	}
	if _, ok, _ := allAtMost("BenchmarkLoop", loopPoints, "allocs/model-call", 13)(tables27(t)); ok {
		t.Fatal("14 allocations passed a limit of 13")
	}
}
