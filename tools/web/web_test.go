package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinharness/rein/policy/netrules"
	"github.com/reinharness/rein/tool"
)

// loopback allows the test servers' address.
var loopback = netrules.Rules{Allow: []string{"127.0.0.1"}}

func fetch(t *testing.T, opts Options, in Input) *tool.Result {
	t.Helper()
	args, _ := json.Marshal(in)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return tool.Invoke(ctx, New(opts), args, tool.InvokeOptions{Timeout: 20 * time.Second, MaxResultBytes: 1 << 20})
}

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

func TestHTMLToMarkdown(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>T</title><script>alert(1)</script></head><body><h1>Hello</h1><p>See <a href="/docs">the docs</a>.</p></body></html>`)
	})
	res := fetch(t, Options{Rules: loopback}, Input{URL: s.URL + "/page"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	for _, want := range []string{"# Hello", "[the docs](" + s.URL + "/docs)", "converted to markdown", "Status: 200"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("result lacks %q:\n%s", want, res.Content)
		}
	}
	if strings.Contains(res.Content, "alert(1)") {
		t.Errorf("script kept:\n%s", res.Content)
	}
}

func TestPlainTextAndJSONAsIs(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/j" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"a": "<b>"}`)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "line <one>\nline two")
	})
	for path, want := range map[string]string{"/t": "line <one>\nline two", "/j": `{"a": "<b>"}`} {
		res := fetch(t, Options{Rules: loopback}, Input{URL: s.URL + path})
		if res.IsError || !strings.HasSuffix(res.Content, want) {
			t.Errorf("%s: %+v, want it ending in %q", path, res, want)
		}
	}
}

func TestBinaryRefused(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/png":
			w.Header().Set("Content-Type", "image/png")
		case "/liar":
			w.Header().Set("Content-Type", "text/plain")
		default:
			w.Header()["Content-Type"] = nil // sniffed
		}
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"))
	})
	for _, path := range []string{"/png", "/liar", "/sniffed"} {
		res := fetch(t, Options{Rules: loopback}, Input{URL: s.URL + path})
		if !res.IsError || !strings.Contains(res.Content, "text only") {
			t.Errorf("%s: %+v, want a refusal", path, res)
		}
	}
}

// Without a rule naming it, a loopback address is refused — also when it
// is reached through a name (localhost), since the check is on the
// resolved address.
func TestLoopbackRefusedWithoutRule(t *testing.T) {
	var hits atomic.Int32
	s := serve(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
	port := s.URL[strings.LastIndex(s.URL, ":")+1:]
	for _, u := range []string{s.URL, "http://localhost:" + port + "/"} {
		res := fetch(t, Options{}, Input{URL: u})
		if !res.IsError || !strings.Contains(res.Content, "non-public address") {
			t.Errorf("%s: %+v, want the address refused", u, res)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server got %d requests", n)
	}
}

// A redirect to a private, link-local (metadata) or denied address is not
// followed; a same-host redirect is, up to the limit.
func TestRedirects(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/private":
			http.Redirect(w, r, "http://10.0.0.1/admin", http.StatusFound)
		case "/metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/denied":
			http.Redirect(w, r, "http://blocked.example/", http.StatusFound)
		case "/hop":
			http.Redirect(w, r, "/final", http.StatusMovedPermanently)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/final":
			fmt.Fprint(w, "arrived")
		}
	})
	rules := netrules.Rules{Allow: []string{"127.0.0.1"}, Deny: []string{"blocked.example"}}
	for path, want := range map[string]string{
		"/private":  "redirects to another host, http://10.0.0.1/admin",
		"/metadata": "redirects to another host, http://169.254.169.254/",
		"/denied":   `matches the [network] deny rule "blocked.example"`,
		"/loop":     "stopped after 5 redirects",
	} {
		res := fetch(t, Options{Rules: rules}, Input{URL: s.URL + path})
		if !res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("%s: %+v, want %q", path, res, want)
		}
	}
	res := fetch(t, Options{Rules: rules}, Input{URL: s.URL + "/hop"})
	if res.IsError || !strings.HasSuffix(res.Content, "arrived") || !strings.Contains(res.Content, "URL: "+s.URL+"/final") {
		t.Errorf("same-host redirect: %+v", res)
	}
}

// The guard decides by the address a connection reaches: a public name
// that resolves to a private address (DNS rebinding) is refused.
func TestGuardChecksResolvedAddress(t *testing.T) {
	g := &guard{rules: netrules.Rules{Allow: []string{"10.1.0.0/16"}, Deny: []string{"203.0.113.7"}}}
	for _, tc := range []struct {
		host, addr string
		named, ok  bool
	}{
		{"rebind.example", "127.0.0.1:80", false, false},
		{"rebind.example", "[::1]:80", false, false},
		{"rebind.example", "169.254.169.254:80", false, false},
		{"rebind.example", "[fe80::1]:80", false, false},
		{"rebind.example", "[::ffff:192.168.1.1]:80", false, false},
		{"rebind.example", "100.64.0.1:80", false, false},
		{"rebind.example", "10.1.2.3:80", false, true},  // the CIDR rule names it
		{"intranet.corp", "192.168.1.1:80", true, true}, // an allow rule names the host
		{"public.example", "93.184.215.14:443", false, true},
		{"public.example", "203.0.113.7:443", true, false}, // deny beats allow
	} {
		err := g.check(tc.host, tc.addr, tc.named)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("check(%s, %s) = %v, want ok=%v", tc.host, tc.addr, err, tc.ok)
		}
	}
	if !Special(netip.MustParseAddr("::ffff:127.0.0.1")) || Special(netip.MustParseAddr("1.1.1.1")) {
		t.Error("Special misclassifies")
	}
}

// A 50 MB body is read up to the cap, and the result says so.
func TestLargeBodyCapped(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := []byte(strings.Repeat("x", 1<<20))
		for range 50 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	start := time.Now()
	res := fetch(t, Options{Rules: loopback}, Input{URL: s.URL, MaxLength: 100})
	if res.IsError || !strings.Contains(res.Content, "only its first 5 MB were read") || !strings.Contains(res.Content, "of 5242880; call web_fetch with start=100") {
		t.Errorf("result: %.500s", res.Content)
	}
	t.Logf("50 MB body capped in %v", time.Since(start))
}

// A server that sends its headers and then trickles the body is cut off
// at the timeout.
func TestSlowLorisTimesOut(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for i := 0; i < 100; i++ {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			w.Write([]byte("x"))
			w.(http.Flusher).Flush()
		}
	})
	start := time.Now()
	res := fetch(t, Options{Rules: loopback, Timeout: 700 * time.Millisecond}, Input{URL: s.URL})
	if !res.IsError || !strings.Contains(res.Content, "took longer than 700ms") {
		t.Errorf("result: %+v", res)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the call took %v with a 700ms timeout", d)
	}
}

// Malformed, deeply nested and hostile HTML converts without a panic.
func TestMalformedHTML(t *testing.T) {
	pages := []string{
		"<html><body><p>unclosed <b>bold <i>italic <a href='x'>link",
		"<<<>>><!-- <script> </ </p></div></table><td><tr>",
		strings.Repeat("<div>", 20000) + "deep" + strings.Repeat("</div>", 10),
		"<svg><math><style><img src=x onerror=alert(1)></style></math></svg>\x00\xff\xfe",
		"",
	}
	for i, p := range pages {
		s := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, p)
		})
		res := fetch(t, Options{Rules: loopback}, Input{URL: s.URL})
		if res.IsError && !strings.Contains(res.Content, "text only") {
			t.Errorf("page %d: %s", i, res.Content)
		}
	}
}

func TestWindow(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "héllo wörld, 0123456789")
	})
	res := fetch(t, Options{Rules: loopback}, Input{URL: s.URL, Start: 6, MaxLength: 5})
	if res.IsError || !strings.Contains(res.Content, "\nwörld\n") || !strings.Contains(res.Content, "[characters 6 to 11 of 23; call web_fetch with start=11") {
		t.Errorf("window: %s", res.Content)
	}
	res = fetch(t, Options{Rules: loopback}, Input{URL: s.URL, Start: 100})
	if !strings.Contains(res.Content, "past the end") {
		t.Errorf("past the end: %s", res.Content)
	}
}

func TestBadURLs(t *testing.T) {
	for _, u := range []string{"", "file:///etc/passwd", "ftp://x/", "http://", "https://user:pw@example.com/", "not a url", "javascript:alert(1)"} {
		res := fetch(t, Options{}, Input{URL: u})
		if !res.IsError {
			t.Errorf("%q accepted: %s", u, res.Content)
		}
	}
}

// The spec declares the network effect and the URL argument the policy
// decides by.
func TestSpec(t *testing.T) {
	spec := New(Options{}).Spec()
	if spec.Name != ToolName || !spec.Effects.Network || spec.Effects.URLArg != "url" || spec.Effects.WritesFiles || spec.Effects.Exec {
		t.Errorf("spec effects %+v", spec.Effects)
	}
}

// FuzzRender: any body under any content type renders or is refused,
// never panics.
func FuzzRender(f *testing.F) {
	f.Add("text/html", []byte("<p>hi<b>"))
	f.Add("", []byte("\x00\x01"))
	f.Add("application/json", []byte(`{"a":1}`))
	f.Add("text/html; charset=latin1", []byte("<table><tr><td>\xe9"))
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		req, _ := http.NewRequest("GET", "http://127.0.0.1/", nil)
		resp := &http.Response{Header: http.Header{"Content-Type": {ct}}, Request: req, Status: "200 OK"}
		p, err := render(resp, body)
		if err != nil {
			return
		}
		_ = p.format(resp, false, 1, 0, 1000)
	})
}
