package hooks

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
)

func TestParseSettingsClaudeShapes(t *testing.T) {
	data := []byte(`{
	  "permissions": {"allow": ["Bash(ls:*)"]},
	  "hooks": {
	    "PreToolUse": [
	      {"matcher": "Bash", "hooks": [{"type": "command", "command": "check.sh", "timeout": 10}]},
	      {"matcher": "Edit|Write", "hooks": [
	          {"type": "command", "command": "fmt.sh", "statusMessage": "formatting", "async": false},
	          {"type": "prompt", "prompt": "is this ok?"}]}
	    ],
	    "Stop": [{"hooks": [{"type": "command", "command": "stop.py"}]}],
	    "PermissionRequest": [{"hooks": [{"type": "command", "command": "x"}]}],
	    "PostToolUse": "not an array",
	    "UserPromptSubmit": [{"matcher": "(", "hooks": [{"type": "command", "command": "y"}]}],
	    "SessionStart": [{"hooks": [{"command": "untyped"}]}, 7]
	  }
	}`)
	cfg, warnings, err := ParseSettings(data, LayerProject, ".claude/settings.json")
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Event   agent.SteerEvent
		Matcher string
		Command string
		Timeout time.Duration
		Layer   Layer
	}
	var got []row
	for _, g := range cfg.Groups {
		for _, h := range g.Hooks {
			got = append(got, row{g.Event, g.Matcher, h.Command, h.Timeout, g.Layer})
		}
	}
	want := []row{
		{agent.SteerPreToolUse, "Bash", "check.sh", 10 * time.Second, LayerProject},
		{agent.SteerPreToolUse, "Edit|Write", "fmt.sh", DefaultTimeout, LayerProject},
		{agent.SteerStop, "", "stop.py", DefaultTimeout, LayerProject},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	joined := strings.Join(warnings, "\n")
	for _, w := range []string{`type "prompt" ignored`, `unknown event "PermissionRequest"`, "hooks.PostToolUse is not an array",
		`matcher "(" is not a regular expression`, `type "(none)" ignored`, "SessionStart[1]: not a matcher group"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings lack %q:\n%s", w, joined)
		}
	}
	for _, w := range warnings {
		if !strings.HasPrefix(w, ".claude/settings.json: ") {
			t.Errorf("warning does not name its file: %q", w)
		}
	}
}

func TestParseSettingsErrors(t *testing.T) {
	for _, data := range []string{``, `[]`, `null`, `{"hooks": `, "\xff"} {
		if _, _, err := ParseSettings([]byte(data), LayerProject, "s.json"); err == nil {
			t.Errorf("ParseSettings(%q) did not fail", data)
		}
	}
	for _, data := range []string{`{}`, `{"hooks": null}`, `{"hooks": {}}`} {
		cfg, w, err := ParseSettings([]byte(data), LayerProject, "s.json")
		if err != nil || len(cfg.Groups) != 0 || len(w) != 0 {
			t.Errorf("ParseSettings(%q) = %v, %v, %v; want nothing", data, cfg, w, err)
		}
	}
	cfg, w, err := ParseSettings([]byte(`{"hooks": ["x"]}`), LayerProject, "s.json")
	if err != nil || len(cfg.Groups) != 0 || len(w) != 1 {
		t.Errorf("hooks as an array: %v, %v, %v", cfg, w, err)
	}
	big := `{"x":"` + strings.Repeat("a", MaxSettingsBytes) + `"}`
	if _, _, err := ParseSettings([]byte(big), LayerProject, "s.json"); err == nil {
		t.Error("an oversized settings file was read")
	}
}

func TestBuildTimeouts(t *testing.T) {
	cfg, warnings := Build(LayerUser, "config.toml", map[string][]GroupSpec{
		"PreToolUse": {{Hooks: []HookSpec{
			{Type: "command", Command: "a", Timeout: 0.5},
			{Command: "b", Timeout: -1},
			{Command: "c", Timeout: 1e9},
			{Command: "   "},
			{Command: "d\x00e"},
		}}},
	})
	if len(cfg.Groups) != 1 {
		t.Fatalf("groups = %d, want 1", len(cfg.Groups))
	}
	var got []time.Duration
	for _, h := range cfg.Groups[0].Hooks {
		got = append(got, h.Timeout)
	}
	if diff := cmp.Diff([]time.Duration{500 * time.Millisecond, DefaultTimeout, MaxTimeout}, got); diff != "" {
		t.Errorf("timeouts (-want +got):\n%s", diff)
	}
	if len(warnings) != 4 {
		t.Errorf("warnings = %q, want 4", warnings)
	}
}

func TestMatcher(t *testing.T) {
	for _, tc := range []struct {
		matcher string
		names   []string
		want    bool
	}{
		{"", []string{"Bash"}, true},
		{"*", []string{"anything"}, true},
		{"Bash", []string{"Bash", "run_command"}, true},
		{"Bash", []string{"Bashful"}, false},
		{"Edit|Write", []string{"Write", "write_file"}, true},
		{"Edit|Write", []string{"Read", "read_file"}, false},
		{"run_command", []string{"Bash", "run_command"}, true},
		{"Notebook.*", []string{"NotebookEdit"}, true},
		{"mcp__memory__.*", []string{"mcp__memory__store", "memory__store"}, true},
		{"mcp__memory__.*", []string{"mcp__git__log"}, false},
		{"^Wr", []string{"Write"}, true},
		{"^Wr", []string{"ReWrite"}, false},
		{"startup", []string{"startup"}, true},
		{"startup", []string{""}, false},
	} {
		g := Group{Matcher: tc.matcher}
		if err := g.compile(); err != nil {
			t.Fatal(err)
		}
		if got := g.Matches(tc.names...); got != tc.want {
			t.Errorf("matcher %q on %v = %v, want %v", tc.matcher, tc.names, got, tc.want)
		}
	}
}
