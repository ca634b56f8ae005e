package sandbox

import (
	"errors"
	"os/exec"
	"runtime"
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

	l, err := Prepare(Policy{Mode: Off, Probe: have}, argv)
	if err != nil || l.Sandboxed || l.Path != bash || !cmp.Equal(l.Args, argv) || l.Env != nil {
		t.Errorf("off: %+v, %v", l, err)
	}
	l, err = Prepare(Policy{Mode: Auto, Probe: missing}, argv)
	if err != nil || l.Sandboxed || l.Path != bash || !strings.Contains(l.Warning, "no landlock here") {
		t.Errorf("auto without landlock: %+v, %v", l, err)
	}
	_, err = Prepare(Policy{Mode: Required, Probe: missing}, argv)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no landlock here") {
		t.Errorf("required without landlock: %v", err)
	}
	if runtime.GOOS == "linux" {
		l, err = Prepare(Policy{Mode: Required, Probe: have, Writable: []string{"/w"}}, argv)
		if err != nil || !l.Sandboxed || l.ABI != 7 || l.Path != selfExe {
			t.Fatalf("required with landlock: %+v, %v", l, err)
		}
		if diff := cmp.Diff([]string{"rein-sandbox", bash, "bash", "-c", "true"}, l.Args); diff != "" {
			t.Errorf("args (-want +got):\n%s", diff)
		}
		if len(l.Env) != 1 || !strings.HasPrefix(l.Env[0], envMarker+`={"mode":"required","rw":["/w"]`) {
			t.Errorf("env = %q", l.Env)
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
