package cli

import (
	"bytes"
	"context"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// runApp runs the command line in-process with no environment.
func runApp(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	home := t.TempDir()
	a := &App{
		Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		},
		Getwd:      func() (string, error) { return home, nil },
		IsTerminal: func() bool { return false },
	}
	code = a.Run(ctx, args)
	return code, out.String(), errb.String()
}

func TestVersionFlags(t *testing.T) {
	_, want, _ := runApp(t, "version")
	if !strings.HasPrefix(want, "rein ") || !strings.HasSuffix(want, ")\n") {
		t.Fatalf("rein version = %q", want)
	}
	for _, flag := range []string{"--version", "-v"} {
		code, out, errs := runApp(t, flag)
		if code != 0 || out != want || errs != "" {
			t.Errorf("rein %s: exit %d stdout %q stderr %q, want %q", flag, code, out, errs, want)
		}
	}
}

func TestVersionStringShowsRevision(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"},
	}}
	for _, linked := range []string{"", "v1.2.3"} {
		got := versionString(linked, bi)
		if !strings.Contains(got, "(commit 0123456789ab+dirty, go1.") {
			t.Errorf("versionString(%q) = %q, want the revision shown", linked, got)
		}
	}
	clean := &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}
	if got := versionString("", clean); strings.Contains(got, "commit") || !strings.HasPrefix(got, "rein v0.4.0 (go1.") {
		t.Errorf("without a stamped revision: %q", got)
	}
}

// commandPaths lists every command of the tree, root first.
func commandPaths(c *cobra.Command) []*cobra.Command {
	list := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		// The Temporal commands' stubs pass everything to rein-temporal,
		// whose tests check their usage errors (engine/temporal/internal/temporalcli).
		if sub.IsAvailableCommand() && !sub.DisableFlagParsing {
			list = append(list, commandPaths(sub)...)
		}
	}
	return list
}

// TestUsageErrorsNameTheCommandPath walks every command: a bad flag's
// error points at that command's own help, spelled as the user types it
// (cobra's default used the bare name: "rein rein --help", "rein list
// --help" for rein sessions list).
func TestUsageErrorsNameTheCommandPath(t *testing.T) {
	a := &App{}
	a.defaults()
	for _, cmd := range commandPaths(a.rootCommand()) {
		path := cmd.CommandPath()
		args := append(strings.Fields(path)[1:], "--no-such-flag")
		code, _, errs := runApp(t, args...)
		want := "see '" + path + " --help'"
		if code != ExitUsage || !strings.Contains(errs, want) || strings.Contains(errs, "rein rein") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s --no-such-flag: exit %d stderr %q, want one line with %q", path, code, errs, want)
		}
	}
}

// TestMistypedSubcommandNamesTheSubcommands: rein sessions bogus used to
// say "sessions takes no arguments".
func TestMistypedSubcommandNamesTheSubcommands(t *testing.T) {
	a := &App{}
	a.defaults()
	checked := 0
	for _, cmd := range commandPaths(a.rootCommand()) {
		names := subcommandNames(cmd)
		if len(names) == 0 || !cmd.HasParent() {
			continue
		}
		checked++
		path := cmd.CommandPath()
		args := append(strings.Fields(path)[1:], "bogus")
		code, _, errs := runApp(t, args...)
		if code != ExitUsage || !strings.Contains(errs, `unknown command "bogus" for '`+path+`'`) || !strings.Contains(errs, strings.Join(names, ", ")) {
			t.Errorf("%s bogus: exit %d stderr %q, want the subcommands %v named", path, code, errs, names)
		}
	}
	if checked < 3 {
		t.Fatalf("checked %d commands with subcommands, want sessions, mcp, hooks, skills", checked)
	}
	code, _, errs := runApp(t, "sessions", "lsit")
	if code != ExitUsage || !strings.Contains(errs, `(did you mean "list"?)`) || !strings.Contains(errs, "list, rm, show") {
		t.Errorf("sessions lsit: exit %d stderr %q", code, errs)
	}
}
