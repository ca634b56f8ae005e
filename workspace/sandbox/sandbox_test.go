package sandbox

import (
	"encoding/json"
	"errors"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMode(t *testing.T) {
	tests := []struct {
		in   string
		want Mode
		bad  bool
	}{
		{in: "", want: Auto},
		{in: "auto", want: Auto},
		{in: "required", want: Required},
		{in: "off", want: Off},
		{in: "Auto", bad: true},
		{in: "on", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseMode(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("ParseMode(%q) accepted", tt.in)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseMode(%q) = %q, %v", tt.in, got, err)
		}
	}
}

func TestPrepare(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	argv := []string{"bash", "-c", "true"}
	have := func() (int, error) { return 7, nil }
	missing := func() (int, error) { return 0, errors.New("no landlock here") }
	noNS := func() (string, error) { return "", errors.New("bubblewrap not found") }
	ns := func() (string, error) { return "/usr/bin/bwrap", nil }
	// prep is Prepare, releasing what it made (the command's cgroup).
	prep := func(p Policy, argv []string) (Launch, error) {
		l, err := Prepare(p, argv)
		t.Cleanup(func() { l.Release(nil) })
		return l, err
	}

	l, err := prep(Policy{Mode: Off, Probe: have, Namespaces: ns}, argv)
	if err != nil || l.Sandboxed || l.Path != bash || !cmp.Equal(l.Args, argv) || l.Env != nil || l.Isolation != IsolationNone {
		t.Errorf("off: %+v, %v", l, err)
	}
	l, err = prep(Policy{Mode: Auto, Probe: missing, Namespaces: noNS}, argv)
	if err != nil || l.Sandboxed || l.Path != bash || !strings.Contains(l.Warning, "no landlock here") || !strings.Contains(l.Warning, "without a sandbox") {
		t.Errorf("auto without landlock and namespaces: %+v, %v", l, err)
	}
	_, err = Prepare(Policy{Mode: Required, Probe: missing, Namespaces: ns}, argv)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no landlock here") {
		t.Errorf("required without landlock: %v", err)
	}
	_, err = Prepare(Policy{Mode: Required, Probe: have, Namespaces: noNS}, argv)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "bubblewrap not found") || !strings.Contains(err.Error(), "install bubblewrap") {
		t.Errorf("required without namespaces: %v", err)
	}
	if runtime.GOOS == "linux" {
		l, err = prep(Policy{Mode: Auto, Probe: missing, Namespaces: ns}, argv)
		if err != nil || !l.Sandboxed || l.Isolation != IsolationNamespaces || l.Warning != "" {
			t.Errorf("auto with namespaces, without landlock: %+v, %v", l, err)
		}
		l, err = prep(Policy{Mode: Auto, Probe: have, Namespaces: ns, Writable: []string{"/w"}, Dir: "/w"}, argv)
		if err != nil || !l.Sandboxed || l.Isolation != IsolationFull || l.Path != "/usr/bin/bwrap" || len(l.Files) != 1+cgroupFiles(l)+rulesetFiles(l) {
			t.Fatalf("auto with both: %+v, %v", l, err)
		}
		want := []string{"--", "/proc/self/fd/3", bash, "bash", "-c", "true"}
		if diff := cmp.Diff(want, l.Args[len(l.Args)-len(want):]); diff != "" {
			t.Errorf("bwrap args tail (-want +got):\n%s", diff)
		}
		for _, flag := range []string{"--unshare-net", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-user"} {
			if !slices.Contains(l.Args, flag) {
				t.Errorf("bwrap args lack %s: %q", flag, l.Args)
			}
		}
		l, err = prep(Policy{Mode: Auto, Probe: have, Namespaces: ns, Network: true}, argv)
		if err != nil || slices.Contains(l.Args, "--unshare-net") {
			t.Errorf("network allowed, yet: %q, %v", l.Args, err)
		}
		l, err = prep(Policy{Mode: Auto, Probe: have, Namespaces: noNS}, argv)
		if err != nil || !l.Sandboxed || l.Isolation != IsolationLandlock || !strings.Contains(l.Warning, "Landlock only") || !strings.Contains(l.Warning, "install bubblewrap") {
			t.Errorf("auto without namespaces: %+v, %v", l, err)
		}
		l, err = prep(Policy{Mode: Required, Probe: have, Namespaces: noNS}, argv)
		if err == nil {
			t.Errorf("required without namespaces ran: %+v", l)
		}
		l, err = prep(Policy{Mode: Auto, Probe: have, Namespaces: noNS, Writable: []string{"/w"}}, argv)
		if err != nil || !l.Sandboxed || l.ABI != 7 || l.Path != selfExe {
			t.Fatalf("landlock fallback: %+v, %v", l, err)
		}
		if diff := cmp.Diff([]string{"rein-sandbox", bash, "bash", "-c", "true"}, l.Args); diff != "" {
			t.Errorf("args (-want +got):\n%s", diff)
		}
		// The marker carries what the child applies; the ruleset (built
		// here, with the writable directories in it) is the last file.
		var got childConfig
		if len(l.Env) != 1 || !strings.HasPrefix(l.Env[0], envMarker+"=") {
			t.Fatalf("env = %q", l.Env)
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(l.Env[0], envMarker+"=")), &got.Config); err != nil {
			t.Fatalf("marker: %v", err)
		}
		if want := 3 + len(l.Files) - 1; l.ruleset != nil && (got.RulesetFD != want || l.Files[len(l.Files)-1] != l.ruleset) {
			t.Errorf("ruleset_fd = %d, want %d, the last of %d files", got.RulesetFD, want, len(l.Files))
		}
		if l.ruleset == nil && got.RulesetFD != 0 {
			t.Errorf("ruleset_fd = %d without a ruleset", got.RulesetFD)
		}
	}
	if _, err := Prepare(Policy{Mode: "sometimes"}, argv); err == nil {
		t.Error("a bad mode was accepted")
	}
	if _, err := Prepare(Policy{}, nil); err == nil {
		t.Error("an empty command was accepted")
	}
	if _, err := Prepare(Policy{Mode: Off}, []string{"no-such-binary-rein-test"}); err == nil {
		t.Error("a missing binary was accepted")
	}
}

// rulesetFiles counts the descriptor the Landlock ruleset adds to Files.
func rulesetFiles(l Launch) int {
	if l.ruleset == nil {
		return 0
	}
	return 1
}

// cgroupFiles counts the descriptors the command's cgroup adds to Files.
func cgroupFiles(l Launch) int {
	if l.cgroup == nil {
		return 0
	}
	return len(l.cgroup.files())
}
