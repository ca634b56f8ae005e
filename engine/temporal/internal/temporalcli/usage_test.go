package temporalcli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/reinharness/rein/internal/cli"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errs bytes.Buffer
	home := t.TempDir()
	a := &cli.App{Stdout: &out, Stderr: &errs, Extend: Commands,
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		},
		Getwd: func() (string, error) { return home, nil }}
	code := a.Run(context.Background(), args)
	return code, out.String(), errs.String()
}

// TestUsage: each command's bad flag names its own help; a missing
// address names --temporal; bad arguments are usage errors, caught before
// anything connects.
func TestUsage(t *testing.T) {
	for _, name := range cli.ExtensionCommands {
		code, _, errs := run(t, name, "--no-such-flag")
		if want := "see 'rein " + name + " --help'"; code != cli.ExitUsage || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s --no-such-flag: exit %d %q, want one line with %q", name, code, errs, want)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"worker"}, "--temporal HOST:PORT"},
		{[]string{"submit", "hello"}, "--temporal HOST:PORT"},
		{[]string{"status", "s1"}, "--temporal HOST:PORT"},
		{[]string{"cancel", "s1"}, "--temporal HOST:PORT"},
		{[]string{"approve", "s1", "c1", "allow"}, "--temporal HOST:PORT"},
		{[]string{"approve", "--temporal", "127.0.0.1:1", "s1", "c1", "maybe"}, "allow or deny"},
		{[]string{"submit", "--temporal", "127.0.0.1:1"}, "needs a PROMPT"},
		{[]string{"submit", "--temporal", "127.0.0.1:1", "--batch", "x.jsonl"}, "--out"},
		{[]string{"submit", "--temporal", "127.0.0.1:1", "--batch", "x.jsonl", "--out", "o", "p"}, "drop the PROMPT"},
		{[]string{"submit", "--temporal", "127.0.0.1:1", "--concurrency", "0", "p"}, "--concurrency"},
		{[]string{"submit", "--temporal", "127.0.0.1:1", "--format", "json", "p"}, "--format"},
		{[]string{"status", "--temporal", "127.0.0.1:1", "--format", "yaml", "s1"}, "--format"},
		{[]string{"worker", "--temporal", "127.0.0.1:1", "--max-preset", "root"}, "--max-preset"},
	} {
		code, out, errs := run(t, tt.args...)
		if code != cli.ExitUsage || !strings.Contains(errs, tt.want) || out != "" {
			t.Errorf("rein %s: exit %d stdout %q stderr %q, want exit 2 naming %q", strings.Join(tt.args, " "), code, out, errs, tt.want)
		}
	}
}

// TestUnreachableTemporal: a service that does not answer is one clear
// line and exit 1, not a usage error or a hang.
func TestUnreachableTemporal(t *testing.T) {
	code, _, errs := run(t, "status", "--temporal", "127.0.0.1:1", "s1")
	if code != cli.ExitFailed || !strings.Contains(errs, "connecting to Temporal at 127.0.0.1:1") || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d %q", code, errs)
	}
}
