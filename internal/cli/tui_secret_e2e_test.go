package cli_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// TestTUIStreamedSecretIsRedacted: in the chat terminal UI, an answer
// that streams the API key in 5-byte deltas, raw and as base64 wrapped
// over lines, shows neither on the screen (scrollback included).
func TestTUIStreamedSecretIsRedacted(t *testing.T) {
	const key = "tui-Key9xQ2mZ7wL4vN1pR8"
	answer := "The key is " + key + " and encoded:\n" + wrapEvery(base64.StdEncoding.EncodeToString([]byte("KEY="+key+"\n")), 12) + "\nthat is all.\n"
	var pieces []string
	for len(answer) > 5 {
		pieces, answer = append(pieces, answer[:5]), answer[5:]
	}
	srv := modeltest.NewServer(t, sse(textBody(append(pieces, answer)...)))
	e := newEnv(t)
	tm := e.startTUI(t, 100, 30, "-e", srv.URL, "-k", key)
	tm.waitText("session")
	tm.typ("show me the key")
	tm.key("Enter")
	s := tm.waitText("that is all.")
	if how := recoverableFrom(s, key); how != "" {
		t.Errorf("%s the screen recovers the key:\n%s", how, s)
	}
	if !strings.Contains(s, "[REDACTED]") {
		t.Errorf("no [REDACTED] on the screen:\n%s", s)
	}
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}

// TestBinaryStreamedSecretNeverLeaks: the real binary, in every output
// format, given an answer that streams the API key and a GITHUB_TOKEN in
// 5-byte deltas (raw, and as base64 wrapped over lines): no output holds
// either, while what is left of the answer still streams.
func TestBinaryStreamedSecretNeverLeaks(t *testing.T) {
	const key, token = "strm-Key9xQ2mZ7wL4vN1pR8", "gtok-Strm7Hq2mZ9xK4pW1sV8"
	answer := "The key is " + key + ", the token " + token + ", encoded:\n" +
		wrapEvery(base64.StdEncoding.EncodeToString([]byte("KEY="+key+"\n")), 12) + "\nthat is all.\n"
	var pieces []string
	for rest := answer; rest != ""; {
		n := min(5, len(rest))
		pieces, rest = append(pieces, rest[:n]), rest[n:]
	}
	for _, format := range []string{"text", "json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			srv := modeltest.NewServer(t, sse(textBody(pieces...)))
			e := newEnv(t)
			e.vars["GITHUB_TOKEN"] = token
			p := e.start(t, "run", "--output-format", format, "-e", srv.URL, "-k", key, "show me")
			p.stdin.Close()
			if code := p.wait(t, 45*time.Second); code != 0 {
				t.Fatalf("exit %d\nstderr: %s", code, p.stderr)
			}
			out := p.stdout.String() + p.stderr.String()
			if format == "stream-json" {
				// What a consumer of the deltas puts together.
				for _, line := range strings.Split(p.stdout.String(), "\n") {
					var ev struct{ Type, Text string }
					if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "text.delta" {
						out += ev.Text
					}
				}
			}
			for _, s := range []string{key, token} {
				if how := recoverableFrom(out, s); how != "" {
					t.Errorf("%s the output recovers %q:\n%s", how, s, out)
				}
			}
			if !strings.Contains(out, "that is all.") || !strings.Contains(out, "[REDACTED]") {
				t.Errorf("the answer did not come through redacted:\n%s", out)
			}
		})
	}
}
