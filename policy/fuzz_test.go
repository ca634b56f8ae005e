package policy

import (
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/reinharness/rein/policy/shell"
)

// FuzzParseConfig checks that any document either fails with an error or
// yields a valid configuration whose tool and command rules survive being
// written back by the approver.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(sampleConfig))
	f.Add([]byte("[policy]\npreset = \"full\"\n"))
	f.Add([]byte("[[policy.commands]]\nprefix = [\"a\"]\naction = \"allow\"\nmatch = [\"a b\"]\n"))
	f.Add([]byte("[policy]\ncommands = 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("ParseConfig accepted an invalid config: %v", err)
		}
		var cmds []CommandRule
		for _, r := range c.Commands {
			cmds = append(cmds, CommandRule{Prefix: r.Prefix, Exact: r.Exact, Action: r.Action, Match: r.Match})
		}
		var tools []ToolRule
		for _, r := range c.Tools {
			tools = append(tools, ToolRule{Name: r.Name, Action: r.Action})
		}
		text, err := renderRules(tools, cmds, "")
		if err != nil {
			return // invalid UTF-8 cannot be written back
		}
		back, err := ParseConfig([]byte(text))
		if err != nil {
			t.Fatalf("rendered rules do not parse: %v\n%s", err, text)
		}
		if diff := cmp.Diff(Config{Tools: tools, Commands: cmds}, back, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}

// FuzzDecide feeds arbitrary argument bytes and commands to the engine:
// it never panics, always gives a reason, and never lets a command with a
// hard finding through.
func FuzzDecide(f *testing.F) {
	f.Add("go test ./...", []byte(`{"path":"a"}`))
	f.Add("sudo ls", []byte(`{"PATH":".env"}`))
	f.Add("rm -rf /", []byte(`[]`))
	f.Add("", []byte(`{"command":["a","b"]}`))
	user := Config{
		Commands: []CommandRule{{Prefix: []string{"go"}, Action: "allow"}, {Prefix: []string{"sudo"}, Action: "allow"}},
		Paths:    []PathRule{{Pattern: "**/.env", Action: "deny"}},
	}
	e := newEngine(f, PresetFull, &user, nil, nil)
	f.Fuzz(func(t *testing.T, cmd string, args []byte) {
		if !utf8.ValidString(cmd) {
			return
		}
		for _, c := range []Call{runCall(cmd), {Spec: specReadFile, Args: args}, {Spec: specRun, Args: args}} {
			d := e.Decide(ctx, c)
			if d.Reason == "" || d.Rule == "" {
				t.Fatalf("decision without reason or rule: %+v", d)
			}
		}
		an := shell.Analyze(cmd, e.opts)
		if d := e.Decide(ctx, runCall(cmd)); len(an.Hard()) > 0 && (!d.Hard || d.Action != Deny) {
			t.Fatalf("%q has hard findings %v but was decided %+v", cmd, an.Hard(), d)
		}
	})
}

// FuzzApprovals checks the approvals file decoder on arbitrary bytes.
func FuzzApprovals(f *testing.F) {
	f.Add([]byte(`{"version":1,"approvals":[{"workspace":"/w","fingerprint":"sha256:x","rule":"r"}]}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if fl, err := decodeApprovals(data, "approved.json"); err == nil && fl.Version != 1 {
			t.Fatalf("accepted version %d", fl.Version)
		}
	})
}
