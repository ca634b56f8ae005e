package loop

import (
	"flag"
	"fmt"
	"syscall"
	"testing"
	"time"
)

var impls = []impl{
	{"rein", newRein},
	{"floor", newFloor},
	{"eino-react", newEinoReact},
	{"eino-chatmodelagent", newEinoADK},
	{"langchaingo", newLangchain},
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
					if *cpuPass {
						b.ReportMetric(cpuPerRun(b, s, r)/perCall, "cpu-ns/model-call")
					}
					// benchtab divides allocs/op and B/op by this.
					b.ReportMetric(perCall, "model-calls/op")
				})
			}
		}
	}
}

// cpuPass adds a second, untimed pass to BenchmarkLoop that measures the
// CPU time of the runs alone (go test ./loop -bench Loop -cpu-pass). On
// a shared machine CPU time moves much less than wall time when other
// processes take the cores, so ratios of it are steadier.
var cpuPass = flag.Bool("cpu-pass", false, "also report cpu-ns/model-call from an untimed second pass")

// cpuPerRun runs b.N more runs off the clock and returns the process's
// CPU time per run (GC included), read around each run alone: the
// benchmark's own StopTimer and StartTimer stop the world to read memory
// statistics, which must not count.
func cpuPerRun(b *testing.B, s *script, r loopRunner) float64 {
	var cpu time.Duration
	for range b.N {
		s.reset()
		r.prepare(b)
		start := processCPU()
		r.run(b)
		cpu += processCPU() - start
	}
	return float64(cpu.Nanoseconds()) / float64(b.N)
}

// processCPU is the CPU time the process has used so far, user and
// system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
