package claudeperm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

var (
	specRun  = tool.Spec{Name: "run_command", Effects: tool.Effects{Exec: true, CommandArg: "command", PathArgs: []string{"cwd"}}}
	specRead = tool.Spec{Name: "read_file", Effects: tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}}
	specEdit = tool.Spec{Name: "edit_file", Effects: tool.Effects{ReadsFiles: true, WritesFiles: true, PathArgs: []string{"path"}}}
)

func call(spec tool.Spec, key, val string) policy.Call {
	args, _ := json.Marshal(map[string]string{key: val})
	return policy.Call{ID: "1", Spec: spec, Args: args}
}

// engine builds an engine whose only non-built-in rules are the
// translation's, placed as kind (allows as a user layer, so they apply).
func engine(t *testing.T, ws string, tr Translation, kind policy.LayerKind) *policy.Engine {
	t.Helper()
	layers := []policy.Layer{{Kind: kind, Source: "settings.json", Config: tr.Tighten}, {Kind: policy.LayerUser, Source: "settings.json", Config: tr.Allow}}
	e, err := policy.NewEngine(policy.EngineConfig{Workspace: ws, Home: "/home/u", Layers: layers})
	if err != nil {
		t.Fatalf("NewEngine: %v", err)
	}
	return e
}

func TestTranslateForms(t *testing.T) {
	env := Env{Workspace: "/w", Home: "/home/u"}
	tr := Translate(Rules{
		Allow: []string{"Bash(go test:*)", "Bash(npm run build)", "Bash(make *)", "Edit(src/**)", "WebFetch(domain:example.com)", "mcp__github__create_issue", "mcp__fs", "Glob", "Grep"},
		Deny:  []string{"Read(./secrets/**)", "Read(~/x)", "Read(//abs/path)", "Read(*.env)", "Write(/build/)", "WebFetch(domain:evil.test)"},
		Ask:   []string{"Bash(git push:*)", "mcp__github__*"},
	}, "s.json", env)
	if len(tr.Warnings) != 0 {
		t.Fatalf("warnings: %q", tr.Warnings)
	}
	var cmds []string
	for _, c := range tr.Allow.Commands {
		cmds = append(cmds, fmt.Sprintf("%s:%v:%s", strings.Join(c.Prefix, " "), c.Exact, c.Action))
	}
	for _, c := range tr.Tighten.Commands {
		cmds = append(cmds, fmt.Sprintf("%s:%v:%s", strings.Join(c.Prefix, " "), c.Exact, c.Action))
	}
	want := []string{"go test:false:allow", "npm run build:true:allow", "make:false:allow", "git push:false:ask"}
	if !slices.Equal(cmds, want) {
		t.Errorf("commands = %q, want %q", cmds, want)
	}
	var paths []string
	for _, p := range append(tr.Allow.Paths, tr.Tighten.Paths...) {
		paths = append(paths, p.Pattern+":"+p.Access+":"+p.Action)
	}
	wantPaths := []string{"src/**:write:allow", "secrets/**:read:deny", "/home/u/x:read:deny", "/home/u/x/**:read:deny",
		"/abs/path:read:deny", "/abs/path/**:read:deny", "**/*.env:read:deny", "**/*.env/**:read:deny", "build/**:write:deny"}
	if !slices.Equal(paths, wantPaths) {
		t.Errorf("paths = %q, want %q", paths, wantPaths)
	}
	var tools []string
	for _, r := range append(tr.Allow.Tools, tr.Tighten.Tools...) {
		tools = append(tools, r.Name+":"+r.Action)
	}
	wantTools := []string{"github__create_issue:allow", "fs__*:allow", "glob:allow", "grep:allow", "github__*:ask"}
	if !slices.Equal(tools, wantTools) {
		t.Errorf("tools = %q, want %q", tools, wantTools)
	}
	if !slices.Equal(tr.NetAllow, []string{"example.com"}) || !slices.Equal(tr.NetDeny, []string{"evil.test"}) {
		t.Errorf("network = %q / %q", tr.NetAllow, tr.NetDeny)
	}
	for _, c := range []policy.Config{tr.Allow, tr.Tighten} {
		if err := c.Validate(); err != nil {
			t.Errorf("translated config does not validate: %v", err)
		}
	}
}

// TestTranslateWarns: every rule rein cannot apply as written is named
// in a warning with its file; allow rules with wildcards rein cannot
// represent are left out, deny rules become broader.
func TestTranslateWarns(t *testing.T) {
	cases := []struct {
		rule, action, warn string
		tools, cmds        int
	}{
		{"Frobnicate", "deny", "knows no tool", 0, 0},
		{"Bash(", "deny", "not a rule", 0, 0},
		{"Bash()", "deny", "empty specifier", 0, 0},
		{"WebSearch", "allow", "no WebSearch tool", 0, 0},
		{"Bash(git * main)", "allow", "ignored", 0, 0},
		{"Bash(git * main)", "deny", `every command starting "git"`, 0, 1},
		{"Bash(ls*)", "deny", "every Bash command", 1, 0},
		{"Bash(rm -rf $HOME)", "allow", "ignored", 0, 0},
		{"Bash(curl x | sh)", "ask", `starting "curl x"`, 0, 1},
		{"WebFetch(https://x)", "deny", "domain:HOST", 0, 0},
		{"WebFetch(domain:*)", "allow", "ignored", 0, 0},
		{"WebFetch(domain:x.test)", "ask", "every host", 1, 0},
		{"Read(../up)", "deny", "out of the project", 0, 0},
		{"Read(a\\b)", "deny", "backslash", 0, 0},
		{"Glob(*.go)", "deny", "specifier", 0, 0},
		{"mcp__a__b(x)", "deny", "no specifier", 0, 0},
		{"mcp__", "deny", "not an MCP rule", 0, 0},
		{"Read(~/x)", "deny", "home directory is not known", 0, 0},
		{"Bash(timeout:*)", "ask", "applies to nothing", 0, 1},
		{"Bash(env:*)", "allow", "applies to nothing", 0, 1},
	}
	for _, c := range cases {
		var r Rules
		switch c.action {
		case "allow":
			r.Allow = []string{c.rule}
		case "ask":
			r.Ask = []string{c.rule}
		default:
			r.Deny = []string{c.rule}
		}
		tr := Translate(r, "proj/.claude/settings.json", Env{Workspace: "/w"})
		if len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0], c.warn) || !strings.Contains(tr.Warnings[0], "proj/.claude/settings.json") || !strings.Contains(tr.Warnings[0], fmt.Sprintf("%q", c.rule)) {
			t.Errorf("%s %q: warnings %q, want one naming the file, the rule and %q", c.action, c.rule, tr.Warnings, c.warn)
		}
		all := [2]policy.Config{tr.Allow, tr.Tighten}
		if n := len(all[0].Tools) + len(all[1].Tools); n != c.tools {
			t.Errorf("%s %q: %d tool rules, want %d", c.action, c.rule, n, c.tools)
		}
		if n := len(all[0].Commands) + len(all[1].Commands); n != c.cmds {
			t.Errorf("%s %q: %d command rules, want %d", c.action, c.rule, n, c.cmds)
		}
		if len(tr.Allow.Tools)+len(tr.Allow.Commands)+len(tr.Allow.Paths) > 0 && c.action != "allow" {
			t.Errorf("%s %q: produced an allow rule", c.action, c.rule)
		}
	}
}

// TestBashPrefixNeverCoversCompound: Bash(go test:*) allows go test in
// every spelling, and no compound, substitution or wrapper in which
// another command runs.
func TestBashPrefixNeverCoversCompound(t *testing.T) {
	ws := t.TempDir()
	tr := Translate(Rules{Allow: []string{"Bash(go test:*)"}}, "s.json", Env{Workspace: ws})
	e := engine(t, ws, tr, policy.LayerProject)
	for _, ok := range []string{"go test", "go test ./...", "go test -run X ./pkg", "cd sub && go test ./..."} {
		if d := e.Decide(context.Background(), call(specRun, "command", ok)); d.Action != policy.Allow {
			t.Errorf("%q: %v (%s), want allow", ok, d.Action, d.Reason)
		}
	}
	others := []string{"rm -rf x", "curl http://127.0.0.1:1/x", "touch pwned", "sh -c 'touch pwned'", "gotest", "go vet"}
	joins := []string{"%s; %s", "%s && %s", "%s || %s", "%s | %s", "%s & %s", "%s\n%s", "%s $(%s)", "%s `%s`", "%s <(%s)", "( %s ); %s", "{ %s; }; %s"}
	n := 0
	for _, other := range others {
		for _, j := range joins {
			for _, order := range [][2]string{{"go test ./...", other}, {other, "go test ./..."}} {
				cmd := fmt.Sprintf(j, order[0], order[1])
				n++
				if d := e.Decide(context.Background(), call(specRun, "command", cmd)); d.Action == policy.Allow {
					t.Errorf("%q is allowed (%s); only go test is", cmd, d.Reason)
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d spellings generated", n)
	}
}

// TestDenyWinsLikeClaude: within Claude's settings, deny and ask win over
// a longer allow, as Claude Code decides them.
func TestDenyWinsLikeClaude(t *testing.T) {
	ws := t.TempDir()
	tr := Translate(Rules{Allow: []string{"Bash(git push origin:*)", "Bash(git status)"}, Deny: []string{"Bash(git push:*)"}}, "s.json", Env{Workspace: ws})
	e := engine(t, ws, tr, policy.LayerUser)
	if d := e.Decide(context.Background(), call(specRun, "command", "git push origin main")); d.Action != policy.Deny {
		t.Errorf("git push origin main: %v, want deny", d.Action)
	}
	if d := e.Decide(context.Background(), call(specRun, "command", "git status")); d.Action != policy.Allow {
		t.Errorf("git status: %v, want allow", d.Action)
	}
	if got := DropCovered(tr.Allow.Commands, policy.Config{Tools: []policy.ToolRule{{Name: "run_command", Action: "ask"}}}); got != nil {
		t.Errorf("ask Bash leaves %v allowed", got)
	}
}

// TestDenyMatchesWrappers: a denied prefix is denied however the command
// is wrapped or reached, as Claude Code's string prefix would be.
func TestDenyMatchesWrappers(t *testing.T) {
	ws := t.TempDir()
	tr := Translate(Rules{Deny: []string{"Bash(timeout:*)", "Bash(rm:*)", "Bash(git push:*)", "Bash(npm run build)"}}, "s.json", Env{Workspace: ws})
	if len(tr.Tighten.HardDeny) != 3 {
		t.Fatalf("hard denials = %+v, want the three prefix rules", tr.Tighten.HardDeny)
	}
	e := engine(t, ws, tr, policy.LayerProject)
	for _, c := range []string{"timeout 5 ls", "env A=1 rm x", "timeout 5 rm x", "nice -n 5 rm x", "bash -c 'rm x'", "/bin/rm x",
		"git -C . push origin main", "npm run build", "echo ok; rm -f x"} {
		if d := e.Decide(context.Background(), call(specRun, "command", c)); d.Action != policy.Deny {
			t.Errorf("%q: %v (%s), want deny", c, d.Action, d.Reason)
		}
	}
	if d := e.Decide(context.Background(), call(specRun, "command", "x=rm; $x y")); d.Action == policy.Allow {
		t.Errorf("a dynamic spelling of rm is allowed: %s", d.Reason)
	}
	if d := e.Decide(context.Background(), call(specRun, "command", "npm run build --prod")); d.Action == policy.Deny {
		t.Errorf("the exact rule denies a longer command: %s", d.Reason)
	}
}

func TestPathRulesDecide(t *testing.T) {
	ws := t.TempDir()
	tr := Translate(Rules{Deny: []string{"Read(./secrets/**)", "Read(.env)"}, Ask: []string{"Edit(src/**)"}}, "s.json", Env{Workspace: ws})
	e := engine(t, ws, tr, policy.LayerProject)
	for _, c := range []struct {
		c    policy.Call
		want policy.Action
	}{
		{call(specRead, "path", "secrets/key.pem"), policy.Deny},
		{call(specRead, "path", "a/b/.env"), policy.Deny},
		{call(specRead, "path", "README.md"), policy.Allow},
		{call(specEdit, "path", "src/main.go"), policy.Ask},
		{call(specRun, "command", "cat secrets/key.pem"), policy.Deny},
	} {
		if d := e.Decide(context.Background(), c.c); d.Action != c.want {
			t.Errorf("%s %s: %v (%s), want %v", c.c.Spec.Name, c.c.Args, d.Action, d.Reason, c.want)
		}
	}
}

func TestReinToolName(t *testing.T) {
	for in, want := range map[string]string{
		"mcp__github__create_issue": "github__create_issue", "mcp__github": "github__*", "mcp__github__*": "github__*",
		"mcp__my-srv__do.thing": "my-srv__do.thing", "mcp__": "", "github__x": "", "mcp__a__b c": "",
	} {
		got, ok := ReinToolName(in)
		if got != want || ok != (want != "") {
			t.Errorf("ReinToolName(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// TestParseHostile: garbage, truncated, huge and wrongly typed files are
// an error or a warning, never a panic or a silently dropped rule.
func TestParseHostile(t *testing.T) {
	big := `{"permissions":{"deny":[` + strings.Repeat(`"Bash(x)",`, MaxRules+10) + `"Bash(y)"]}}`
	long := `{"permissions":{"allow":["Bash(` + strings.Repeat("a", MaxRuleLen) + `)"]}}`
	cases := []struct {
		name, data string
		err        bool
		warn       string
		rules      int
	}{
		{"empty", ``, true, "", 0},
		{"garbage", "\x00\xff{{", true, "", 0},
		{"truncated", `{"permissions":{"deny":["Bash(rm:*)"`, true, "", 0},
		{"array", `[1,2]`, true, "", 0},
		{"null", `null`, true, "", 0},
		{"no permissions", `{"hooks":{}}`, false, "", 0},
		{"permissions string", `{"permissions":"all"}`, false, "not an object", 0},
		{"deny object", `{"permissions":{"deny":{"a":1}}}`, false, "not a list", 0},
		{"mixed types", `{"permissions":{"deny":["Bash(rm:*)",1,null,{"x":1},["y"]]}}`, false, "deny[1] is not a string", 1},
		{"too many", big, false, "only the first", MaxRules},
		{"too long", long, false, "bytes long", 0},
		{"null lists", `{"permissions":{"allow":null,"deny":null}}`, false, "", 0},
	}
	for _, c := range cases {
		r, w, err := Parse([]byte(c.data), "f.json")
		if (err != nil) != c.err {
			t.Errorf("%s: err = %v, want error %v", c.name, err, c.err)
		}
		if err != nil && !strings.Contains(err.Error(), "f.json") {
			t.Errorf("%s: error %q does not name the file", c.name, err)
		}
		if c.warn != "" && (len(w) == 0 || !strings.Contains(strings.Join(w, "\n"), c.warn)) {
			t.Errorf("%s: warnings %q, want %q", c.name, w, c.warn)
		}
		if c.warn == "" && len(w) > 0 {
			t.Errorf("%s: unexpected warnings %q", c.name, w)
		}
		if n := len(r.Allow) + len(r.Ask) + len(r.Deny); n != c.rules {
			t.Errorf("%s: %d rules, want %d", c.name, n, c.rules)
		}
	}
}

func FuzzParseTranslate(f *testing.F) {
	for _, s := range []string{
		`{"permissions":{"allow":["Bash(go test:*)","Read(~/x)"],"deny":["Read(//a/**)","mcp__s__t"],"ask":["WebFetch(domain:a.b)"]}}`,
		`{"permissions":{"deny":["Bash(git * main)","Edit(/src/)","Write(*.key)"]}}`,
		`{"permissions":[]}`, `{`, `null`, `{"permissions":{"allow":[1,"(",")","Bash(()"]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, _, err := Parse(data, "f.json")
		if err != nil {
			return
		}
		tr := Translate(r, "f.json", Env{Workspace: "/w", Home: "/home/u"})
		for _, c := range []policy.Config{tr.Allow, tr.Tighten} {
			if err := c.Validate(); err != nil {
				t.Fatalf("translation of %q does not validate: %v", data, err)
			}
		}
		for _, c := range tr.Tighten.Tools {
			if c.Action == "allow" {
				t.Fatalf("an allow rule in Tighten: %+v", c)
			}
		}
		for _, c := range append(tr.Tighten.Commands, tr.Allow.Commands...) {
			if c.Action == "allow" && len(c.Prefix) == 0 {
				t.Fatalf("an allow of every command: %+v", c)
			}
		}
	})
}
