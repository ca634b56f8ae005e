package cli_test

import (
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// TestTextOutputEscapesControls is the attack on the terminal: a model
// whose tool calls (name and arguments) and answer carry escape
// sequences, carriage returns and bidi overrides. Text output shows them
// escaped: no ESC, CR, BEL or override reaches stdout or stderr.
func TestTextOutputEscapesControls(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "read_file", "{\"path\":\"x\\u001b[2J\\r\\u001b[2Kok.txt\"}")),
		sse(toolBody("c2", "weath\u202eer\u200b", `{"q":"a\u202eb"}`)),
		sse(textBody("done\x1b]0;pwned\x07", "\r\x1b[2K fine \u202eevil\u200b\n", "code: \"a\\nb\"\tend")),
	)
	e := newEnv(t)
	res := e.run(t, "run", "-e", srv.URL, "go")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	for name, out := range map[string]string{"stdout": res.stdout, "stderr": res.stderr} {
		for _, bad := range []string{"\x1b", "\r", "\x07", "\u202e", "\u200b", "\u009b"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s holds the raw %q:\n%q", name, bad, out)
			}
		}
	}
	// The answer stays readable: newlines, tabs and backslashes kept.
	if want := "done\\x1b]0;pwned\\x07\\r\\x1b[2K fine \\u202eevil\\u200b\ncode: \"a\\nb\"\tend\n"; res.stdout != want {
		t.Errorf("stdout = %q, want %q", res.stdout, want)
	}
	if !strings.Contains(res.stderr, `weath\u202eer\u200b`) {
		t.Errorf("stderr does not show the tool name escaped:\n%s", res.stderr)
	}
}

// TestStreamJSONIsInert checks that no control character reaches stdout
// raw in the JSON formats: encoding/json escapes C0 controls, and DEL and
// C1 controls (which it leaves raw) are escaped as well.
func TestStreamJSONIsInert(t *testing.T) {
	for _, format := range []string{"json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			srv := modeltest.NewServer(t,
				sse(toolBody("c1", "read_file", "{\"path\":\"x\\u001b[2J\\r.txt\"}")),
				sse(textBody("done\x1b]0;pwned\x07", "\r\x1b[2K fine\x7f\u0085")),
			)
			e := newEnv(t)
			res := e.run(t, "run", "--output-format", format, "-e", srv.URL, "go")
			if res.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
			}
			for _, l := range lines(res.stdout) {
				for _, r := range l {
					if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
						t.Fatalf("stdout holds the raw %U: %q", r, l)
					}
				}
			}
			if !strings.Contains(res.stdout, `\u001b]0;pwned\u0007`) {
				t.Errorf("stdout lacks the escaped answer:\n%s", res.stdout)
			}
		})
	}
}
