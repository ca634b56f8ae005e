package tool_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/tool"
)

func TestCallIDAndLoggerDefaults(t *testing.T) {
	ctx := context.Background()
	if got := tool.CallID(ctx); got != "" {
		t.Errorf("CallID of a bare context = %q, want empty", got)
	}
	l := tool.Logger(ctx)
	if l == nil {
		t.Fatal("Logger of a bare context is nil")
	}
	l.Info("goes nowhere") // must not panic
	if l.Enabled(ctx, slog.LevelError) {
		t.Error("the default logger is enabled; want a discarding one")
	}
	if got := tool.Logger(tool.WithLogger(ctx, nil)); got != l {
		t.Error("WithLogger(nil) replaced the default logger")
	}
}

func TestCallIDAndLoggerCarried(t *testing.T) {
	var buf bytes.Buffer
	base := slog.New(slog.NewTextHandler(&buf, nil))
	ctx := tool.WithLogger(tool.WithCallID(context.Background(), "call_7"), base.With("tool", "t"))
	if got := tool.CallID(ctx); got != "call_7" {
		t.Errorf("CallID = %q, want call_7", got)
	}
	tool.Logger(ctx).Info("hello")
	if out := buf.String(); !strings.Contains(out, "hello") || !strings.Contains(out, "tool=t") {
		t.Errorf("log output %q lacks the message or the attribute", out)
	}
}

func TestReportProgressWithoutSeamIsANoOp(t *testing.T) {
	tool.ReportProgress(context.Background(), "nobody listens") // must not panic
	ctx := tool.WithProgress(context.Background(), nil)
	tool.ReportProgress(ctx, "still nobody")
}

func TestReportProgressReachesTheSeam(t *testing.T) {
	var got []string
	ctx := tool.WithProgress(context.Background(), func(text string) { got = append(got, text) })
	ctx = tool.WithCallID(ctx, "call_1") // other values do not hide it
	tool.ReportProgress(ctx, "one")
	tool.ReportProgress(ctx, "two")
	if strings.Join(got, ",") != "one,two" {
		t.Errorf("progress = %q, want [one two]", got)
	}
}

// WithCall carries what WithCallID and WithIdempotencyKey carry, leaves
// everything else to its parent, and a context derived from it is
// cancelled with the parent's.
func TestWithCall(t *testing.T) {
	type other struct{}
	parent, cancel := context.WithCancel(context.WithValue(
		tool.WithIdempotencyKey(context.Background(), "outer"), other{}, "v"))
	ctx := tool.WithCall(parent, "c1", "")
	if tool.CallID(ctx) != "c1" || tool.IdempotencyKey(ctx) != "outer" || ctx.Value(other{}) != "v" {
		t.Fatalf("id %q key %q other %v", tool.CallID(ctx), tool.IdempotencyKey(ctx), ctx.Value(other{}))
	}
	if got := tool.IdempotencyKey(tool.WithCall(parent, "c2", "k2")); got != "k2" {
		t.Fatalf("key %q", got)
	}
	child, stop := context.WithCancel(ctx)
	defer stop()
	cancel()
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a child of WithCall's context outlived the cancelled parent")
	}
	if tool.CallID(tool.WithCallID(ctx, "inner")) != "inner" {
		t.Fatal("a later WithCallID does not win")
	}
}
