package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tools/exec"
	"github.com/reinharness/rein/workspace"
	"github.com/reinharness/rein/workspace/sandbox"
)

func TestMaskVolatile(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"exit code 1 (8ms)\nFAIL", "exit code 1 (<duration>)\nFAIL"},
		{"ok  pkg 1.234s", "ok  pkg <duration>"},
		{"took 3.2s; 20µs 20μs 7us 9ns", "took <duration>; <duration> <duration> <duration> <duration>"},
		{"2m3s 1h2m3.5s 1h", "<duration> <duration> <duration>"},
		{"in 3.2 seconds, 1 min, 4 secs", "in <duration>, <duration>, <duration>"},
		{"--- FAIL: TestX (0.00s)", "--- FAIL: TestX (<duration>)"},
		{"at 2026-01-02T03:04:05Z done", "at <time> done"},
		{"2026-01-02T03:04:05.123456789+02:00|2026-01-02 03:04:05,123|", "<time>|<time>|"},
		{"[12:30:45.001] started", "[<time>] started"},
		// Left alone: numbers inside words, plain numbers and units
		// that need to touch their number, dates, source positions.
		{"sha256 x86s v2ms 3 m 5 steps 7 secrets 42", "sha256 x86s v2ms 3 m 5 steps 7 secrets 42"},
		{"2026-01-02 main.go:12:30:45: bad", "2026-01-02 main.go:12:30:45: bad"},
		{"3sx 3minimal 12:3:45", "3sx 3minimal 12:3:45"},
		{"", ""},
	} {
		if got := maskVolatile(tt.in); got != tt.want {
			t.Errorf("maskVolatile(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestMaskVolatileDoesNotAllocateWithoutMatch(t *testing.T) {
	s := strings.Repeat("plain text with 42 numbers and sha256 words\n", 100)
	if n := testing.AllocsPerRun(100, func() { _ = maskVolatile(s) }); n != 0 {
		t.Errorf("maskVolatile allocated %.0f times on a result with nothing to mask", n)
	}
}

// TestRepeatGuardSeesStuckCommand is the reproduction with the real
// run_command: the same failing command whose result differs only in its
// duration and a timestamp it prints ends the run RepeatedAction at the
// third call, not after six.
func TestRepeatGuardSeesStuckCommand(t *testing.T) {
	ws, err := workspace.Open(t.TempDir(), workspace.Options{Sandbox: sandbox.Off})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	const args = `{"command":"sleep 0.0$((RANDOM % 5 + 1)); date -u +%Y-%m-%dT%H:%M:%S.%NZ; echo '--- FAIL: TestX (0.0'$RANDOM's)'; exit 1"}`
	p := modeltest.NewScripted()
	for i := range 6 {
		p.Add(modeltest.ToolCalls(call("c"+string(rune('1'+i)), "run_command", args)))
	}
	p.Add(modeltest.Text("gave up"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, exec.RunCommand(ws, exec.Options{Timeout: 10 * time.Second}))})
	c := NewConversation("s")
	out, err := a.RunToEnd(context.Background(), c, "fix the test")
	if err != nil {
		t.Fatal(err)
	}
	res := toolMessages(c.Messages())
	if out.Kind != RepeatedAction || out.ToolCalls != 3 {
		t.Fatalf("outcome %s after %d calls (%s); want repeated_action after 3\nresults: %+v", out.Kind, out.ToolCalls, out.Reason, res)
	}
	if res[0].Content == res[1].Content && res[1].Content == res[2].Content {
		t.Errorf("the three results are byte-identical; the test does not exercise masking: %q", res[0].Content)
	}
}

// TestRepeatGuardKeepsRealChanges: results that differ in more than
// volatile parts are not a repeat.
func TestRepeatGuardKeepsRealChanges(t *testing.T) {
	var g repeatGuard
	for i, content := range []string{"exit code 1 (8ms)\n3 failed", "exit code 1 (20ms)\n2 failed", "exit code 1 (9ms)\n2 failed", "exit code 1 (1.5s)\n2 failed"} {
		st := &callState{call: call("x", "run_command", `{}`), canon: []byte("{}")}
		st.result.Content = content
		if got, want := g.observe(st, 3), i == 3; got != want {
			t.Errorf("observe #%d (%q) = %v, want %v", i+1, content, got, want)
		}
	}
}

func FuzzMaskVolatile(f *testing.F) {
	f.Add("exit code 1 (8ms)", "FAIL", int64(8e6), int64(2e7), int64(1700000000))
	f.Add("ok pkg", "", int64(1234567890), int64(5), int64(0))
	f.Add("2026-01-02T03:04:05Z", "12:30:45 3.2 seconds", int64(-1), int64(3600e9+1), int64(253402300000))
	f.Fuzz(func(t *testing.T, a, b string, d1, d2, unix int64) {
		for _, s := range []string{a, b, a + b} {
			m := maskVolatile(s)
			if again := maskVolatile(m); again != m {
				t.Fatalf("not idempotent: %q → %q → %q", s, m, again)
			}
			if !strings.ContainsAny(s, "0123456789") && m != s {
				t.Fatalf("changed a string without digits: %q → %q", s, m)
			}
		}
		// Two results that differ only in a duration, or a timestamp,
		// mask alike.
		dur := func(d int64) string {
			if d < 0 { // a sign is not part of the masked value
				d = -(d + 1)
			}
			return " " + time.Duration(d).String() + " "
		}
		if x, y := maskVolatile(a+dur(d1)+b), maskVolatile(a+dur(d2)+b); x != y {
			t.Fatalf("durations %d and %d masked differently: %q vs %q", d1, d2, x, y)
		}
		ts := func(u int64) string {
			u = u%(200*365*86400) + 1e9 // years 2001..2200: four-digit years
			if u < 0 {
				u = -u
			}
			return " " + time.Unix(u, u%1e9).UTC().Format(time.RFC3339Nano) + " "
		}
		if x, y := maskVolatile(a+ts(unix)+b), maskVolatile(a+ts(unix/3)+b); x != y {
			t.Fatalf("timestamps masked differently: %q vs %q", x, y)
		}
	})
}

func BenchmarkMaskVolatile(b *testing.B) {
	result := "exit code 1 (8ms)\n" + strings.Repeat("--- FAIL: TestX (0.00s)\n    x_test.go:12: got 3, want 4\n", 50) +
		"FAIL\nFAIL\tpkg\t0.012s\n"
	b.SetBytes(int64(len(result)))
	b.ReportAllocs()
	for b.Loop() {
		_ = maskVolatile(result)
	}
}
