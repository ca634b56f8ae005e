package hooks

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reinharness/rein/agent"
)

func FuzzParseSettings(f *testing.F) {
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x","timeout":5}]}]}}`))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"y"}]}],"Nope":[]}}`))
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"matcher":"(","hooks":[{"type":"http"}]}, 3, null]}}`))
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"matcher":"a{1000}{1000}","hooks":[{"command":"z","timeout":1e308}]}]}}`))
	f.Add([]byte(`{"hooks":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, warnings, err := ParseSettings(data, LayerProject, "s.json")
		if err != nil && (len(cfg.Groups) > 0 || len(warnings) > 0) {
			t.Fatalf("error with results: %v", err)
		}
		for _, g := range cfg.Groups {
			if !knownEvent(string(g.Event)) || len(g.Hooks) == 0 || g.Layer != LayerProject {
				t.Fatalf("bad group %+v", g)
			}
			for _, h := range g.Hooks {
				if strings.TrimSpace(h.Command) == "" || h.Timeout <= 0 || h.Timeout > MaxTimeout {
					t.Fatalf("bad hook %+v", h)
				}
			}
			g.Matches("Bash", "run_command")
		}
		_ = Fingerprint(cfg)
	})
}

func FuzzInterpretOutput(f *testing.F) {
	f.Add(0, `{"continue":false,"stopReason":"x"}`, "")
	f.Add(0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}`, "")
	f.Add(2, "", "blocked")
	f.Add(0, `{"decision":"block","reason":7}`, "")
	f.Add(1, "\xff\xfe{", "err")
	f.Add(0, "plain context", "")
	f.Fuzz(func(t *testing.T, code int, stdout, stderr string) {
		r, err := NewRunner(RunnerConfig{Workspace: "/ws", MaxOutput: 1024})
		if err != nil {
			t.Fatal(err)
		}
		call := runCall("grep x")
		for _, ev := range Events() {
			h := selected{cmd: Command{Command: "h", Timeout: DefaultTimeout}, layer: LayerProject}
			o := interpret(ev, h, execResult{exitCode: code, stdout: stdout, stderr: stderr})
			v := r.merge(agent.SteerPoint{Event: ev, Call: call}, []outcome{o})
			if v.Trusted {
				t.Fatalf("a project hook's verdict is trusted: %+v", v)
			}
			for _, s := range []string{v.Reason, v.Context, v.PermissionReason, v.HaltReason} {
				if !utf8.ValidString(s) || strings.ContainsRune(s, 0) || len(s) > 1024+64 {
					t.Fatalf("text for the model is not clean: %q", s)
				}
			}
			if v.UpdatedInput != nil {
				var m map[string]json.RawMessage
				if json.Unmarshal(v.UpdatedInput, &m) != nil {
					t.Fatalf("UpdatedInput is not an object: %s", v.UpdatedInput)
				}
				if ev != agent.SteerPreToolUse {
					t.Fatalf("UpdatedInput at %s", ev)
				}
			}
		}
	})
}

func FuzzVocabulary(f *testing.F) {
	f.Add("run_command", `{"command":"ls","timeout_s":3}`, `{"timeout":1e9}`)
	f.Add("read_file", `{"path":"a"}`, `{"file_path":"/ws/../x"}`)
	f.Add("grep", `{"pattern":"x"}`, `{"-i":"yes"}`)
	f.Fuzz(func(t *testing.T, name, args, updated string) {
		in := toClaudeInput(name, json.RawMessage(args), "/ws")
		if !json.Valid(in) {
			t.Fatalf("toClaudeInput gave invalid JSON: %s", in)
		}
		out, err := fromClaudeInput(name, json.RawMessage(args), json.RawMessage(updated), "/ws")
		if err == nil {
			var m map[string]json.RawMessage
			if json.Unmarshal(out, &m) != nil {
				t.Fatalf("fromClaudeInput gave a non-object: %s", out)
			}
		}
	})
}
