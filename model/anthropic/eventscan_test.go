package anthropic

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// TestEventScannerTakesRecordedEvents checks that the fast path really
// carries the streams: every recorded delta, block stop, ping and message
// stop is decoded by eventScanner, and the events with a message, content
// block or usage object are left to the general decoder. (The differential
// tests prove the two agree; this one proves they are not agreeing because
// the fast path never runs.)
func TestEventScannerTakesRecordedEvents(t *testing.T) {
	files, err := filepath.Glob("../modeltest/testdata/fantasy/TestAnthropic*/claude-sonnet-4/*streaming.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings (%v)", err)
	}
	var es eventScanner
	var ev wireEvent
	fast := 0
	for _, f := range files {
		cas, err := modeltest.LoadCassette(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range cas.Interactions {
			for _, line := range strings.Split(in.Response.Body, "\n") {
				data, ok := strings.CutPrefix(line, "data: ")
				if !ok {
					continue
				}
				rare := strings.Contains(data, `"message_start"`) || strings.Contains(data, `"content_block_start"`) || strings.Contains(data, `"message_delta"`)
				if got := es.decode([]byte(data), &ev); got == rare {
					t.Errorf("%s: fast path took=%v, want %v for %s", filepath.Base(f), got, !rare, data)
				} else if got {
					fast++
				}
			}
		}
	}
	if fast < 50 {
		t.Fatalf("only %d events on the fast path", fast)
	}
}
