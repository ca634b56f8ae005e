package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// TestWarningHandler: the workspace's one-time sandbox warning becomes
// one rein warning line on stderr; debug and info are not shown.
func TestWarningHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(&warningHandler{w: &buf}).With("k", "v").WithGroup("g")
	log.Info("not shown")
	log.Warn("rein: commands run without a sandbox: landlock sandbox unavailable\nsecond line")
	if got, want := buf.String(), "rein: warning: commands run without a sandbox: landlock sandbox unavailable\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}

// TestLineSource: lines are shared in order between readers; the end of
// the input and cancellation are errors.
func TestLineSource(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := newLineSource(ctx, strings.NewReader("one\ntwo\n"))
	if in := <-s.lines(); in.text != "one" {
		t.Fatalf("first line = %+v", in)
	}
	if got, err := s.readLine(ctx); got != "two" || err != nil {
		t.Fatalf("readLine = %q, %v", got, err)
	}
	if _, err := s.readLine(ctx); !errors.Is(err, errInputEnded) {
		t.Errorf("at the end: %v, want errInputEnded", err)
	}
	pr, pw := io.Pipe()
	defer pw.Close()
	blocked := newLineSource(ctx, pr)
	cctx, ccancel := context.WithCancel(ctx)
	ccancel()
	if _, err := blocked.readLine(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
