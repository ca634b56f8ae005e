package cli

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/mcp"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newFakeClock() *fakeClock               { return &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }
func progressOf(p, total float64) mcp.Progress {
	return mcp.Progress{Server: "srv", Tool: "srv__op", Progress: p, Total: total}
}

func TestProgressTextRateLimited(t *testing.T) {
	var out strings.Builder
	clock := newFakeClock()
	r := newProgressReporter(formatText, &out, newExplainer(config.ModelConfig{}), "", nil)
	r.now = clock.now
	steps := []struct {
		after time.Duration
		p     mcp.Progress
	}{
		{0, progressOf(1, 10)},                      // shown: the first
		{100 * time.Millisecond, progressOf(2, 10)}, // too soon
		{100 * time.Millisecond, progressOf(3, 10)}, // too soon
		{60 * time.Millisecond, progressOf(4, 10)},  // 260 ms after the last shown
		{10 * time.Millisecond, mcp.Progress{Server: "srv", Tool: "srv__op", IdempotencyKey: "k2", Progress: 1}}, // another call
		{10 * time.Millisecond, progressOf(10, 10)},                                                              // the last: always shown
		{0, progressOf(10, 10)}, // a repeat of the last is still the last
	}
	for _, s := range steps {
		clock.advance(s.after)
		r.report(s.p)
	}
	want := []string{"… srv__op 1/10", "… srv__op 4/10", "… srv__op 1", "… srv__op 10/10", "… srv__op 10/10"}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(out.String()), "\n")); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

func TestProgressTextQuietWhileAsking(t *testing.T) {
	var out strings.Builder
	clock := newFakeClock()
	gate := newPromptGate()
	r := newProgressReporter(formatText, &out, newExplainer(config.ModelConfig{}), "", gate.busy)
	r.now = clock.now
	gate.ch <- struct{}{}
	r.report(progressOf(1, 3))
	clock.advance(time.Second)
	r.report(progressOf(3, 3))
	<-gate.ch
	r.report(mcp.Progress{Server: "srv", Tool: "srv__op", Progress: 0.5, Message: "half\x1b[2J way"})
	want := "… srv__op 3/3\n… srv__op 0.5 half\\x1b[2J way\n"
	if out.String() != want {
		t.Errorf("output = %q, want %q", out.String(), want)
	}
}

func TestProgressStreamJSON(t *testing.T) {
	var out strings.Builder
	clock := newFakeClock()
	r := newProgressReporter(formatStreamJSON, &out, newExplainer(config.ModelConfig{}), "sess-1", nil)
	r.now = clock.now
	r.report(mcp.Progress{Server: "srv", Tool: "srv__op", IdempotencyKey: "idem-1", Progress: 2, Total: 5, Message: "copying"})
	var got map[string]any
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatalf("not one JSON line: %v\n%s", err, out.String())
	}
	want := map[string]any{
		"type": "tool.progress", "session_id": "sess-1", "time": "2026-03-01T12:00:00Z", "server": "srv",
		"tool": "srv__op", "idempotency_key": "idem-1", "progress": 2.0, "total": 5.0, "message": "copying",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("line (-want +got):\n%s", diff)
	}
	if newProgressReporter(formatJSON, &out, nil, "", nil) != nil {
		t.Error("json output got a progress reporter; it prints one object at the end")
	}
	var nilReporter *progressReporter
	nilReporter.report(progressOf(1, 1)) // dropped, no panic
}

func TestProgressForgetsStaleCalls(t *testing.T) {
	clock := newFakeClock()
	r := newProgressReporter(formatText, &strings.Builder{}, newExplainer(config.ModelConfig{}), "", nil)
	r.now = clock.now
	for i := range 100 {
		r.report(mcp.Progress{Tool: "t", IdempotencyKey: string(rune('a' + i)), Progress: 1})
	}
	clock.advance(2 * time.Minute)
	r.report(mcp.Progress{Tool: "t", IdempotencyKey: "fresh", Progress: 1})
	if len(r.shown) != 1 {
		t.Errorf("%d calls remembered after they went quiet, want 1", len(r.shown))
	}
}

// TestProgressConcurrentWithRenderer: progress lines from many goroutines
// and the renderer's lines share one locked writer and arrive whole.
func TestProgressConcurrentWithRenderer(t *testing.T) {
	var buf strings.Builder
	w := &lockedWriter{w: &buf}
	ex := newExplainer(config.ModelConfig{})
	r := newProgressReporter(formatStreamJSON, w, ex, "s", nil)
	sr := &streamRenderer{w: w, ex: ex}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				r.report(mcp.Progress{Tool: "t", IdempotencyKey: string(rune('a' + g)), Progress: float64(i + 1), Total: 50})
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			writeJSONLine(sr.w, ex, map[string]string{"type": "text.delta", "text": strings.Repeat("x", 500)})
		}
	})
	wg.Wait()
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("a line was broken up: %v\n%q", err, line)
		}
		n++
	}
	if n < 8*2+50 { // each call's first and last line, and every delta
		t.Errorf("%d lines", n)
	}
}
