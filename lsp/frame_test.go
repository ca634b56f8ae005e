package lsp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestFrameRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	for _, body := range []string{`{"a":1}`, `{}`, `{"text":"héllo\r\n\r\n"}`} {
		if err := writeFrame(&buf, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(&buf)
	for _, want := range []string{`{"a":1}`, `{}`, `{"text":"héllo\r\n\r\n"}`} {
		got, err := readFrame(r)
		if err != nil || string(got) != want {
			t.Fatalf("readFrame = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := readFrame(r); !errors.Is(err, io.EOF) {
		t.Fatalf("at end: %v, want EOF", err)
	}
}

func TestFrameHeaders(t *testing.T) {
	in := "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 2\n\r\n{}"
	got, err := readFrame(bufio.NewReader(strings.NewReader(in)))
	if err != nil || string(got) != "{}" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestFrameErrors(t *testing.T) {
	for name, in := range map[string]string{
		"no length":   "Content-Type: x\r\n\r\n{}",
		"bad length":  "Content-Length: -3\r\n\r\n",
		"not number":  "Content-Length: 1e3\r\n\r\n",
		"too large":   "Content-Length: 999999999\r\n\r\n",
		"truncated":   "Content-Length: 10\r\n\r\n{}",
		"no colon":    "garbage\r\n\r\n",
		"long header": "X: " + strings.Repeat("a", 5000) + "\r\n\r\n",
		"many":        strings.Repeat("X: 1\r\n", 40) + "\r\n",
		"cut header":  "Content-Len",
	} {
		if body, err := readFrame(bufio.NewReader(strings.NewReader(in))); err == nil {
			t.Errorf("%s: accepted, body %q", name, body)
		}
	}
}

func FuzzReadFrame(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 5\r\nContent-Type: x\r\n\r\nhello"))
	f.Add([]byte("\r\n\r\nContent-Length: 0\r\n\r\n"))
	f.Add([]byte("Content-Length: 99999999999999999999\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for range 8 {
			body, err := readFrame(r)
			if err != nil {
				return
			}
			if len(body) > maxFrame {
				t.Fatalf("body of %d bytes accepted", len(body))
			}
			// What was read writes back as a frame that reads the same.
			var buf bytes.Buffer
			if err := writeFrame(&buf, body); err != nil {
				t.Fatal(err)
			}
			again, err := readFrame(bufio.NewReader(&buf))
			if err != nil || !bytes.Equal(again, body) {
				t.Fatalf("round trip: %q, %v; want %q", again, err, body)
			}
		}
	})
}

func TestURIRoundTrip(t *testing.T) {
	for _, p := range []string{"/tmp/a b/c.go", "/x/ü#?.ts", "/plain/file.py"} {
		if got := uriPath(fileURI(p)); got != p {
			t.Errorf("uriPath(fileURI(%q)) = %q", p, got)
		}
	}
	// vscode-uri's spelling of the same path maps to rein's.
	if got := fileURI(uriPath("file:///tmp/a%20b/%C3%BC.ts")); got != fileURI("/tmp/a b/ü.ts") {
		t.Errorf("normalised = %q", got)
	}
}
