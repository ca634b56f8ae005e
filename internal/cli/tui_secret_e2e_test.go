package cli_test

import (
	"encoding/base64"
	"strings"
	"testing"

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
