//go:build linux

package workspace

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// OnOutput sees the output as it is written, in order, while the command
// still runs: "a\nb\n" arrives before the sleep ends, "c" after it.
func TestExecOnOutputStreamsBeforeTheEnd(t *testing.T) {
	ws, _ := openTemp(t, Options{})
	var (
		mu     sync.Mutex
		seen   strings.Builder
		firstC time.Time // when the "a\nb\n" prefix was complete
	)
	res, err := ws.Exec(context.Background(), ExecOptions{
		Command: `printf 'a\nb\n'; sleep 0.2; printf c`,
		OnOutput: func(p []byte) {
			mu.Lock()
			defer mu.Unlock()
			seen.Write(p)
			if firstC.IsZero() && strings.HasPrefix(seen.String(), "a\nb\n") {
				firstC = time.Now()
			}
		},
	})
	ended := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := seen.String(); got != "a\nb\nc" {
		t.Fatalf("OnOutput saw %q, want %q", got, "a\nb\nc")
	}
	if res.Output != "a\nb\nc" {
		t.Errorf("Output = %q", res.Output)
	}
	if firstC.IsZero() || ended.Sub(firstC) < 100*time.Millisecond {
		t.Errorf("the first lines arrived %v before the end, want them before the sleep", ended.Sub(firstC))
	}
}

// The callback sees everything; the captured output keeps its cap.
func TestExecOnOutputDoesNotChangeTheCap(t *testing.T) {
	ws, _ := openTemp(t, Options{})
	var n int
	res, err := ws.Exec(context.Background(), ExecOptions{
		Command:   `head -c 100000 /dev/zero | tr '\0' 'x'`,
		MaxOutput: 1000,
		OnOutput:  func(p []byte) { n += len(p) }, // one capture goroutine: no race
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 100000 || res.OutputBytes != 100000 || !res.Truncated || len(res.Output) > 1200 {
		t.Errorf("callback saw %d bytes; OutputBytes=%d Truncated=%v kept %d", n, res.OutputBytes, res.Truncated, len(res.Output))
	}
}
