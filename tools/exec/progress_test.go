package exec

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/reinharness/rein/tool"
)

// run_command reports its output as whole lines through the progress
// seam while it runs; the partial last line waits for its newline.
func TestRunCommandReportsProgress(t *testing.T) {
	tl, _ := newTool(t, Options{})
	var (
		mu  sync.Mutex
		got []string
	)
	ctx := tool.WithProgress(context.Background(), func(text string) {
		mu.Lock()
		got = append(got, text)
		mu.Unlock()
	})
	raw, _ := json.Marshal(map[string]any{"command": `echo one; sleep 0.1; printf 'two\nthr'; sleep 0.1; echo ee; printf tail`})
	if _, err := tl.Call(ctx, raw); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, text := range got {
		if !strings.HasSuffix(text, "\n") {
			t.Errorf("report %q is not whole lines", text)
		}
	}
	if all := strings.Join(got, ""); all != "one\ntwo\nthree\n" {
		t.Errorf("progress = %q, want the whole lines one, two, three", got)
	}
}

func TestLiveLinesBoundsEachReport(t *testing.T) {
	var got []string
	ctx := tool.WithProgress(context.Background(), func(text string) { got = append(got, text) })
	report := liveLines(ctx)
	long := strings.Repeat("x", 100) + "\n"
	report([]byte(strings.Repeat(long, 100) + "last\n")) // 10 KiB of lines
	report([]byte(strings.Repeat("y", maxProgress+10)))  // one line longer than the bound
	if len(got) != 2 {
		t.Fatalf("%d reports, want 2", len(got))
	}
	if len(got[0]) > maxProgress || !strings.HasSuffix(got[0], "last\n") || !strings.HasPrefix(got[0], "x") || len(got[0])%len(long) != len("last\n") {
		t.Errorf("first report: %d bytes, not cut at a line start or lost the tail: %q...", len(got[0]), got[0][:20])
	}
	if len(got[1]) != maxProgress {
		t.Errorf("second report: %d bytes, want %d", len(got[1]), maxProgress)
	}
}
