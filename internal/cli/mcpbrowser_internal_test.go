package cli

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func testLoopback(t *testing.T, configured string) (*loopback, *strings.Builder) {
	t.Helper()
	var stderr strings.Builder
	a := &App{Stderr: &stderr, Getenv: func(k string) string {
		if k == browserEnv {
			return "none"
		}
		return ""
	}}
	lb, err := a.newLoopback(configured)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lb.close)
	return lb, &stderr
}

// authorizeAsync starts a flow waiting on lb and returns its outcome.
func authorizeAsync(t *testing.T, lb *loopback, state string) <-chan callbackResult {
	ch := make(chan callbackResult, 1)
	go func() {
		r, err := lb.Authorize(context.Background(), "srv", "https://as.example/authorize?state="+state)
		ch <- callbackResult{r, err}
	}()
	waitUntil(t, func() bool {
		lb.mu.Lock()
		defer lb.mu.Unlock()
		return lb.state == state
	})
	return ch
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func get(t *testing.T, u string) int {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestLoopbackStateCheck: requests without the flow's state (a stale tab,
// another program probing the port) are refused and do not end the flow;
// the one with it does, once.
func TestLoopbackStateCheck(t *testing.T) {
	lb, stderr := testLoopback(t, "")
	if !strings.HasPrefix(lb.redirect, "http://127.0.0.1:") || !strings.HasSuffix(lb.redirect, "/callback") {
		t.Fatalf("redirect %q", lb.redirect)
	}
	ch := authorizeAsync(t, lb, "good-state")
	for _, q := range []string{"code=x&state=wrong", "code=x", "error=access_denied&state=other"} {
		if code := get(t, lb.redirect+"?"+q); code != http.StatusBadRequest {
			t.Errorf("%s: HTTP %d, want 400", q, code)
		}
	}
	if code := get(t, strings.TrimSuffix(lb.redirect, "/callback")+"/elsewhere?code=x&state=good-state"); code != http.StatusBadRequest {
		t.Errorf("another path: HTTP %d", code)
	}
	if code := get(t, lb.redirect+"?code=the-code&state=good-state&iss=https%3A%2F%2Fas.example"); code != http.StatusOK {
		t.Fatalf("the redirect: HTTP %d", code)
	}
	r := <-ch
	if r.err != nil || r.resp.Code != "the-code" || r.resp.Issuer != "https://as.example" || r.resp.State != "good-state" {
		t.Fatalf("outcome %+v %v", r.resp, r.err)
	}
	if code := get(t, lb.redirect+"?code=again&state=good-state"); code != http.StatusBadRequest {
		t.Errorf("a replayed redirect: HTTP %d, want 400", code)
	}
	if !strings.Contains(stderr.String(), "https://as.example/authorize?state=good-state") {
		t.Errorf("the URL was not printed:\n%s", stderr)
	}
}

// TestLoopbackRefusal: error=… at the redirect ends the flow with the
// authorization server's words, cleaned for a terminal.
func TestLoopbackRefusal(t *testing.T) {
	lb, _ := testLoopback(t, "")
	ch := authorizeAsync(t, lb, "s1")
	desc := "no\x1b[31m thanks " + strings.Repeat("x", 5000)
	get(t, lb.redirect+"?"+url.Values{"state": {"s1"}, "error": {"access_denied"}, "error_description": {desc}}.Encode())
	r := <-ch
	if r.err == nil || !strings.HasPrefix(r.err.Error(), "the authorization server refused the sign-in: access_denied: no") {
		t.Fatalf("err = %v", r.err)
	}
	if strings.Contains(r.err.Error(), "\x1b") || len(r.err.Error()) > 400 {
		t.Errorf("the description was not cleaned and bounded: %q", r.err.Error())
	}
}

// TestLoopbackCancel: cancelling the context ends the wait.
func TestLoopbackCancel(t *testing.T) {
	lb, _ := testLoopback(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := lb.Authorize(ctx, "srv", "https://as.example/authorize?state=s")
	if err == nil || !strings.Contains(err.Error(), "not completed in time") {
		t.Fatalf("err = %v", err)
	}
	if _, err := lb.Authorize(context.Background(), "srv", "https://as.example/authorize"); err == nil {
		t.Error("an authorization URL without state was accepted")
	}
}

func TestLoopbackConfiguredRedirect(t *testing.T) {
	a := &App{Stderr: io.Discard, Getenv: func(string) string { return "" }}
	for _, bad := range []string{"https://example.com/cb", "http://10.0.0.1:8080/cb", "ftp://127.0.0.1/cb", "::"} {
		if lb, err := a.newLoopback(bad); err == nil {
			lb.close()
			t.Errorf("%q was accepted as a redirect rein can listen on", bad)
		}
	}
	lb, err := a.newLoopback("http://127.0.0.1:0/oauth/back")
	if err != nil {
		t.Fatal(err)
	}
	defer lb.close()
	if lb.path != "/oauth/back" {
		t.Errorf("path %q", lb.path)
	}
}

// FuzzLoopbackCallback throws arbitrary redirect queries at the listener:
// it never panics, and a flow ends only with the flow's own state.
func FuzzLoopbackCallback(f *testing.F) {
	f.Add("code=abc&state=s", "s")
	f.Add("error=access_denied&error_description=%00%ff&state=s", "s")
	f.Add("state=s&state=t&code=", "t")
	f.Add("%zz&&==", "x")
	lb := &loopback{path: callbackPath, results: make(chan callbackResult, 1)}
	f.Fuzz(func(t *testing.T, query, state string) {
		if state == "" {
			return
		}
		lb.mu.Lock()
		lb.state = state
		lb.mu.Unlock()
		select {
		case <-lb.results:
		default:
		}
		req := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: callbackPath, RawQuery: query}}
		rec := &recorder{header: http.Header{}}
		lb.serve(rec, req)
		q, _ := url.ParseQuery(query)
		select {
		case r := <-lb.results:
			if q.Get("state") != state {
				t.Fatalf("a redirect with state %q ended the flow waiting for %q", q.Get("state"), state)
			}
			if r.err == nil && (r.resp == nil || r.resp.Code == "") {
				t.Fatal("a success without a code")
			}
		default:
			if q.Get("state") == state {
				t.Fatalf("the flow's redirect (%q) did not end it", query)
			}
		}
	})
}

type recorder struct {
	header http.Header
	status int
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(p []byte) (int, error) { return len(p), nil }
func (r *recorder) WriteHeader(s int)           { r.status = s }
