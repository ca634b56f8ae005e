package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"
)

// stallAfter sends headers and first, then keeps the stream open without
// sending more until the client goes away.
func stallAfter(first string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		io.WriteString(w, first)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}
}

// readFirst reads the first chunk of body, which the server sent at once.
func readFirst(t *testing.T, body io.Reader, want string) {
	t.Helper()
	buf := make([]byte, len(want))
	if _, err := io.ReadFull(body, buf); err != nil || string(buf) != want {
		t.Fatalf("first read = %q, %v; want %q", buf, err, want)
	}
}

func TestIdleTimeoutOnStalledStream(t *testing.T) {
	srv := newScripted(t, stallAfter("data: a\n\n"))
	cfg := testConfig(&sleeper{})
	cfg.IdleTimeout = 200 * time.Millisecond
	resp, err := New(cfg).Do(context.Background(), srv.URL, post(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	readFirst(t, resp.Body, "data: a\n\n")
	var readErr error
	took := within(t, 3*time.Second, func() { _, readErr = resp.Body.Read(make([]byte, 10)) })
	t.Logf("error text: %v", readErr)
	if !errors.Is(readErr, ErrIdleTimeout) {
		t.Fatalf("read error = %v, want ErrIdleTimeout", readErr)
	}
	if took < 150*time.Millisecond {
		t.Errorf("idle timeout fired after %s, before the 200ms limit", took)
	}
	if _, err := resp.Body.Read(make([]byte, 10)); !errors.Is(err, ErrIdleTimeout) {
		t.Errorf("later read = %v, want ErrIdleTimeout again", err)
	}
	if srv.requests.Load() != 1 {
		t.Errorf("%d requests; a stalled stream must not be retried", srv.requests.Load())
	}
}

// TestIdleTimeoutCountsOnlyWaiting: time the caller spends between reads is
// not the server's silence.
func TestIdleTimeoutCountsOnlyWaiting(t *testing.T) {
	srv := newScripted(t, status(200, "hello world"))
	cfg := testConfig(&sleeper{})
	cfg.IdleTimeout = 50 * time.Millisecond
	resp, err := New(cfg).Do(context.Background(), srv.URL, post(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	time.Sleep(150 * time.Millisecond)
	body, err := io.ReadAll(resp.Body)
	if err != nil || string(body) != "hello world" {
		t.Errorf("read %q, %v; want the whole body", body, err)
	}
}

func TestCancelDuringStreamReadReturnsAtOnce(t *testing.T) {
	srv := newScripted(t, stallAfter("data: a\n\n"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := New(testConfig(&sleeper{})).Do(ctx, srv.URL, post(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	readFirst(t, resp.Body, "data: a\n\n")
	time.AfterFunc(100*time.Millisecond, cancel)
	var readErr error
	took := within(t, 2*time.Second, func() { _, readErr = resp.Body.Read(make([]byte, 10)) })
	if !errors.Is(readErr, context.Canceled) {
		t.Errorf("read error = %v, want context.Canceled", readErr)
	}
	if took > time.Second {
		t.Errorf("read returned %s after cancel", took)
	}
}

func TestCloseUnblocksRead(t *testing.T) {
	srv := newScripted(t, stallAfter("x"))
	resp, err := New(testConfig(&sleeper{})).Do(context.Background(), srv.URL, post(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	readFirst(t, resp.Body, "x")
	time.AfterFunc(100*time.Millisecond, func() { resp.Body.Close() })
	var readErr error
	within(t, 2*time.Second, func() { _, readErr = resp.Body.Read(make([]byte, 10)) })
	if readErr == nil {
		t.Error("read after Close succeeded")
	}
}
