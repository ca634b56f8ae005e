package adk

import (
	"fmt"
	"testing"
)

var impls = []impl{
	{"adk", newADK},
}

// TestCorrectLoop runs every framework once on every shape and checks
// that it did the same work.
func TestCorrectLoop(t *testing.T) {
	for _, k := range toolCallCounts {
		for _, h := range historySizes {
			for _, im := range impls {
				t.Run(fmt.Sprintf("K=%d/history=%d/impl=%s", k, h, im.name), func(t *testing.T) {
					s := &script{k: k}
					r := im.build(t, s, h)
					for range 2 { // twice: a reused runner must start clean
						s.reset()
						r.prepare(t)
						text := r.run(t)
						if err := s.check(h, text); err != nil {
							t.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkLoop reports ns and allocations per model call. Handing the
// history to the framework (a fresh conversation, session or message
// list) happens off the clock, as it does once per conversation in real
// use, not once per run.
func BenchmarkLoop(b *testing.B) {
	for _, k := range toolCallCounts {
		for _, h := range historySizes {
			for _, im := range impls {
				b.Run(fmt.Sprintf("K=%d/history=%d/impl=%s", k, h, im.name), func(b *testing.B) {
					s := &script{k: k}
					r := im.build(b, s, h)
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						b.StopTimer()
						s.reset()
						r.prepare(b)
						b.StartTimer()
						if text := r.run(b); text != finalText {
							b.Fatalf("final text %q", text)
						}
					}
					b.StopTimer()
					perCall := float64(k + 1)
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/perCall, "ns/model-call")
					// benchtab divides allocs/op and B/op by this.
					b.ReportMetric(perCall, "model-calls/op")
				})
			}
		}
	}
}
