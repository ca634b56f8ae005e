package hooks

import (
	"encoding/json"
	"testing"
)

func TestToClaudeInput(t *testing.T) {
	ws := "/work/p"
	for _, tc := range []struct {
		name, args, wantName, want string
	}{
		{"run_command", `{"command":"ls","timeout_s":2,"cwd":"sub"}`, "Bash", `{"command":"ls","cwd":"sub","timeout":2000}`},
		{"read_file", `{"path":"a/b.go","offset":3,"limit":10}`, "Read", `{"file_path":"/work/p/a/b.go","limit":10,"offset":3}`},
		{"write_file", `{"path":"x.txt","content":"hi"}`, "Write", `{"content":"hi","file_path":"/work/p/x.txt"}`},
		{"edit_file", `{"path":"x","old_string":"a","new_string":"b"}`, "Edit", `{"file_path":"/work/p/x","new_string":"b","old_string":"a"}`},
		{"glob", `{"pattern":"**/*.go"}`, "Glob", `{"pattern":"**/*.go"}`},
		{"grep", `{"pattern":"x","path":"src","glob":"*.go","ignore_case":true,"context":2}`, "Grep", `{"-C":2,"-i":true,"glob":"*.go","path":"/work/p/src","pattern":"x"}`},
		{"list_dir", `{"path":"/abs"}`, "LS", `{"path":"/abs"}`},
		{"apply_patch", `{"patch":"--- a"}`, "apply_patch", `{"patch":"--- a"}`},
		{"git__log", `{"n":1}`, "mcp__git__log", `{"n":1}`},
		{"task", `{"description":"d","prompt":"p","agent":"reviewer"}`, "Task", `{"description":"d","prompt":"p","subagent_type":"reviewer"}`},
		{"read_file", `not json`, "Read", `"not json"`},
		{"read_file", `[1,2]`, "Read", `[1,2]`},
		{"read_file", `{"path":7,"extra":"kept"}`, "Read", `{"extra":"kept","file_path":7}`},
	} {
		if got := ClaudeName(tc.name); got != tc.wantName {
			t.Errorf("ClaudeName(%s) = %s, want %s", tc.name, got, tc.wantName)
		}
		if got := string(toClaudeInput(tc.name, json.RawMessage(tc.args), ws)); got != tc.want {
			t.Errorf("toClaudeInput(%s, %s) = %s, want %s", tc.name, tc.args, got, tc.want)
		}
	}
}

func TestFromClaudeInput(t *testing.T) {
	ws := "/work/p"
	for _, tc := range []struct {
		name, args, updated, want string
		fails                     bool
	}{
		// The whole Claude input back, changed: rein's names again.
		{name: "write_file", args: `{"path":"x.txt","content":"a"}`, updated: `{"file_path":"/work/p/y.txt","content":"b"}`, want: `{"content":"b","path":"y.txt"}`},
		// Only what changes; rein's names are understood too.
		{name: "run_command", args: `{"command":"ls","cwd":"d"}`, updated: `{"command":"ls -a","description":"list"}`, want: `{"command":"ls -a","cwd":"d"}`},
		{name: "run_command", args: `{"command":"ls"}`, updated: `{"timeout":1500}`, want: `{"command":"ls","timeout_s":2}`},
		{name: "run_command", args: `{"command":"ls"}`, updated: `{"timeout_s":3}`, want: `{"command":"ls","timeout_s":3}`},
		// A path outside the workspace stays absolute, for the policy to judge.
		{name: "read_file", args: `{"path":"a"}`, updated: `{"file_path":"/etc/passwd"}`, want: `{"path":"/etc/passwd"}`},
		{name: "read_file", args: `{"path":"a"}`, updated: `{"file_path":"/work/p/../q/x"}`, want: `{"path":"/work/p/../q/x"}`},
		{name: "grep", args: `{"pattern":"a"}`, updated: `{"-i":true,"output_mode":"content","head_limit":3}`, want: `{"ignore_case":true,"pattern":"a"}`},
		{name: "apply_patch", args: `{"patch":"x"}`, updated: `{"patch":"y","other":1}`, want: `{"other":1,"patch":"y"}`},
		{name: "read_file", args: `{"path":"a"}`, updated: `{"file_path":3}`, fails: true},
		{name: "run_command", args: `{"command":"ls"}`, updated: `{"timeout":-5}`, fails: true},
		{name: "run_command", args: `{"command":"ls"}`, updated: `[]`, fails: true},
		{name: "run_command", args: `{"command":"ls"}`, updated: `null`, fails: true},
	} {
		got, err := fromClaudeInput(tc.name, json.RawMessage(tc.args), json.RawMessage(tc.updated), ws)
		if tc.fails {
			if err == nil {
				t.Errorf("fromClaudeInput(%s, %s) = %s, want an error", tc.name, tc.updated, got)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("fromClaudeInput(%s, %s, %s) = %s, %v; want %s", tc.name, tc.args, tc.updated, got, err, tc.want)
		}
	}
}
