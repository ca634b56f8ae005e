package openai

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// TestChunkScannerTakesRecordedChunks checks that the fast path really
// carries the streams: every recorded chunk is decoded by chunkScanner
// except those with a usage, timings or error object, which it must leave
// to the general decoder. (The differential tests prove the two agree; this
// one proves they are not agreeing because the fast path never runs.)
func TestChunkScannerTakesRecordedChunks(t *testing.T) {
	files, err := filepath.Glob("../modeltest/testdata/fantasy/TestOpenAI*/*/*streaming.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings (%v)", err)
	}
	files = append(files, "../modeltest/testdata/envoy/chat-streaming.yaml")
	var cs chunkScanner
	var c chunk
	fast := 0
	for _, f := range files {
		cas, err := modeltest.LoadCassette(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range cas.Interactions {
			for _, line := range strings.Split(in.Response.Body, "\n") {
				data, ok := strings.CutPrefix(line, "data: ")
				if !ok || data == "[DONE]" {
					continue
				}
				rare := strings.Contains(data, `"usage":{`) || strings.Contains(data, `"timings":{`) || strings.Contains(data, `"error":`)
				if got := cs.decode([]byte(data), &c, false); got == rare {
					t.Errorf("%s: fast path took=%v, want %v for %s", filepath.Base(f), got, !rare, data)
				} else if got {
					fast++
				}
			}
		}
	}
	if fast < 100 {
		t.Fatalf("only %d chunks on the fast path", fast)
	}
}
