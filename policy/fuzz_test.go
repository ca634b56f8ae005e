package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var fuzzSeeds = []string{
	"", "ls", "go test ./...", "a | b && c || d; e &", "$(", "`", "'", "\"$(\"", "<<EOF", "bash -c",
	"f() { f | f & }; f", "x=$'\\x73udo'; $x", "{a,b}{c,d}{e,f}", "echo {1..999999999}",
	"cat <<'A' <<B\nx\nA\ny\nB", "case x in (a|b) c;; esac", "[[ -f x && $(y) ]]", "((i++))",
	"declare -A m=([k]=$(sudo v))", "coproc sudo ls", "select x in a; do b; done", "let x=$(y)",
	"env -S", "xargs -I", "find -exec", "timeout", "git -c", "git -c alias.x= x", "eval", "watch -x",
}

// FuzzAnalyze checks that Analyze never panics, stays within its time
// bound, and reports well-formed results for any input.
func FuzzAnalyze(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, h := range hardCommands {
		f.Add(h.cmd)
	}
	for _, c := range adversarialCases() {
		f.Add(c.cmd)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// A panic from the timer goroutine crashes the worker, which
		// records src as a failing input: Analyze must be bounded.
		watchdog := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("Analyze runs over 5s on %q", src)) })
		defer watchdog.Stop()
		an := Analyze(src, AnalyzeOptions{Workspace: testWorkspace, Home: testHome})
		for _, f := range an.Findings {
			if f.ID == "" || f.Reason == "" {
				t.Fatalf("finding without ID or reason: %+v", f)
			}
		}
		for _, c := range an.Commands {
			if len(c.Args) == 0 || len(c.norm) == 0 {
				t.Fatalf("empty command: %+v", c)
			}
		}
		if len(an.Commands) > 10*maxBudget {
			t.Fatalf("%d commands: the budget does not hold", len(an.Commands))
		}
	})
}

// FuzzSedScript checks the sed script scanner on any input: bounded, no
// panic, and a script with an e or w command is never reported clean.
func FuzzSedScript(f *testing.F) {
	for _, s := range []string{"s/a/b/g", "1e id", "s/x/y/e", "w out", "/a/,/b/d", "$!N;P;D", "y/abc/xyz/", "a\\ text", "s|a|b|w f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		_, risky := sedRunsOrWrites(script)
		if !risky && (script == "e" || strings.HasPrefix(script, "w ")) {
			t.Fatalf("%q reported clean", script)
		}
	})
}

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
		an := Analyze(cmd, e.opts)
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

// FuzzPathResolution checks the path helpers on any input: resolution in
// a real workspace with symlinks stays bounded and absolute, /proc aliases
// and the candidates of an argument never panic, and every candidate is
// part of the argument.
func FuzzPathResolution(f *testing.F) {
	ws := f.TempDir()
	for name, target := range map[string]string{"up": "..", "loop": "loop", "g": ".git", "abs": "/"} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			f.Fatal(err)
		}
	}
	for _, s := range []string{"up/up/x", "loop/x", "g/config", "abs/etc", "-fsecrets/x", "of=a", "HEAD:a/b", "/proc/self/root/x", "/proc/1/task/2/cwd/y", "a/../../b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := resolveIn(ws, ws+"/"+s)
		if !strings.HasPrefix(r, "/") {
			t.Fatalf("resolveIn(%q) = %q, not absolute", s, r)
		}
		procAlias(s)
		procCwd(s)
		for _, c := range pathCandidates(s) {
			if !strings.Contains(s, c) {
				t.Fatalf("candidate %q is not part of %q", c, s)
			}
		}
	})
}

// FuzzGitConfig checks the repository configuration parser on any input:
// bounded, no panic, and a remote's mirror = true is always found.
func FuzzGitConfig(f *testing.F) {
	for _, s := range []string{"[remote \"o\"]\n\tmirror = true\n", "[alias]\np = push -f ; c\n", "[a.b]\nk\n", "[x \"q\\\"r\"]\nv = \"a#b\" # c\n", "k = \"x\\\ny\"", "[unterminated\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		entries, _ := parseGitConfig(text)
		if len(entries) > 4097 {
			t.Fatalf("%d entries", len(entries))
		}
		e, ok := parseGitConfig(text + "\n[remote \"z\"]\n\tmirror = true\n")
		if !ok {
			return // text rein cannot follow is refused for pushes
		}
		found := false
		for _, x := range e {
			found = found || x.key == "remote.z.mirror" && x.value == "true"
		}
		if !found && len(e) <= 4096 && !strings.Contains(text, "\\") {
			t.Fatalf("mirror = true after %q not found: %v", text, e)
		}
	})
}
