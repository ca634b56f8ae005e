package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// TestStdioBothEras serves one server to a 2026-07-28 client and a
// 2025-11-25 client over stdio at the same time.
func TestStdioBothEras(t *testing.T) {
	s := newTestServer(t, Config{Tools: testTools(t, &keyRecorder{})})
	mod := stdioSession(t, s, modern)
	leg := stdioSession(t, s, legacy)
	if got := mod.InitializeResult().ProtocolVersion; got != modern {
		t.Errorf("modern client negotiated %q", got)
	}
	if got := leg.InitializeResult().ProtocolVersion; got != legacy {
		t.Errorf("legacy client negotiated %q", got)
	}
	if text, isErr := call(t, mod, "echo", map[string]any{"text": "m"}); isErr || text != "m" {
		t.Errorf("modern call: %v %q", isErr, text)
	}
	if text, isErr := call(t, leg, "echo", map[string]any{"text": "l"}); isErr || text != "l" {
		t.Errorf("legacy call: %v %q", isErr, text)
	}
}

func TestStdioEnds(t *testing.T) {
	s := newTestServer(t, Config{Tools: testTools(t, &keyRecorder{})})

	t.Run("EOF", func(t *testing.T) {
		var out bytes.Buffer
		in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
		err := s.ServeStdio(context.Background(), in, &out)
		if err != nil {
			t.Fatalf("ServeStdio after EOF: %v, want nil", err)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		in, w := io.Pipe()
		defer w.Close()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.ServeStdio(ctx, in, io.Discard) }()
		time.Sleep(20 * time.Millisecond)
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("ServeStdio after cancel: %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("ServeStdio ignored its context")
		}
	})

	t.Run("garbage", func(t *testing.T) {
		var out bytes.Buffer
		err := s.ServeStdio(context.Background(), strings.NewReader("this is not JSON\n"), &out)
		if err == nil {
			t.Fatal("ServeStdio accepted garbage")
		}
	})
}
