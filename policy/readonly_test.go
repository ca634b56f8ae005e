package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/reinharness/rein/policy/internal/wspath"
	"github.com/reinharness/rein/policy/shell"
	"github.com/reinharness/rein/tool"
)

// readOnlyWorkspace builds a workspace with ordinary files, protected and
// secret files, symlinks out of it and a FIFO, and returns it with its
// home directory (outside it).
func readOnlyWorkspace(t testing.TB) (ws, home string) {
	t.Helper()
	ws, home = CanonicalWorkspace(t.TempDir()), CanonicalWorkspace(t.TempDir())
	for _, d := range []string{"sub/deep", "docs", ".git/hooks", ".rein", "secrets", ".state", ".ssh", "outdir"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"README.md", "main.go", "go.mod", "sub/x.go", "sub/deep/y.go", "docs/a.md", "docs/b.md",
		".git/config", ".git/HEAD", ".rein/config.toml", "secrets/prod.key", ".env", "id_rsa", ".state/sessions.json",
		".ssh/config", "server.pem", "-n", "list", ".vscode"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"link-out": "/etc/passwd", "dir-out": "/etc", "link-in": "README.md", "dir-in": "sub",
		"link-home": home, "link-up": "..", "docs/up": "../..", "link-cfg": ".git/config", "link-key": "secrets/prod.key",
		"outdir/zero": "/dev/zero", "loop": "loop",
	} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, home
}

func readOnlyEngine(t testing.TB, preset Preset, ws, home string) *Engine {
	t.Helper()
	e, err := NewEngine(EngineConfig{Workspace: ws, Home: home,
		Layers: []Layer{{Kind: LayerUser, Source: "test", Config: Config{Preset: string(preset),
			Paths: []PathRule{{Pattern: "secrets/**", Action: "deny"}, {Pattern: "secrets", Action: "deny"}}}}},
		Protected: []ProtectedPath{{Path: filepath.Join(ws, ".state"), Why: "it is rein's state"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// readOnlyAllowed are command lines the editor and read-only presets
// allow without asking.
var readOnlyAllowed = []string{
	"ls", "ls -la", "ls -lah sub", "ls -R", "ls -1 docs", "ls -d sub/*", "ls -t -r", "ls --all --recursive .",
	"ls -l link-in", "ls dir-in", "ls -- -n", "ls sub docs", "ls ./*.md",
	"cat README.md", "cat -n main.go", "cat -A docs/a.md docs/b.md", "cat ./docs/*.md", "cat link-in",
	"cat sub/../README.md", "cat dir-in/x.go", "cat < README.md", "cat -- -n", "cat missing.txt",
	"head README.md", "head -n 5 main.go", "head -n5 main.go", "head -c 100 main.go", "head -5 main.go",
	"head --lines=3 README.md", "head -n -2 main.go",
	"tail main.go", "tail -n 20 main.go", "tail -n +3 main.go", "tail -c 10 README.md", "tail -3 main.go",
	"wc -l main.go", "wc -lwc README.md main.go", "wc --lines sub/x.go", "wc -m ./sub/*.go",
	"stat README.md", "stat -c %s main.go", "stat --format=%n sub",
	"pwd", "pwd -P", "echo hi", "echo -n hi", "printf '%s\\n' a b", "true", "false",
	"basename sub/x.go", "basename -s .go sub/x.go", "dirname sub/x.go",
	"go version", "go version -m main.go",
	"cd sub && ls", "cd sub && cat x.go", "cd sub/deep && head -n 1 y.go",
	"ls | head -n 5", "cat main.go | wc -l", "ls -la | tail -n 3", "cat README.md | head -n 2 | wc -c",
	"ls; pwd", "ls && cat README.md", "cat missing || echo none", "ls 2>&1 | head",
	"cat <<'EOF'\nhello\nEOF", "wc -l <<< hello", "cat {README,go}.md", "! ls",
}

// readOnlyRefused are command lines that must still ask (or be denied),
// each an attack on the read-only allowance or a command outside it.
var readOnlyRefused = []string{
	// Outside the workspace, directly or through links and ..
	"cat ~/.ssh/id_rsa", "cat /etc/passwd", "cat /etc/shadow", "ls /", "ls ..", "ls -la .git/../..",
	"cat link-out", "ls dir-out", "cat dir-out/passwd", "ls link-home", "ls link-up", "cat docs/up/x",
	"cat link-up/README.md", "cd .. && ls", "cd dir-out && cat passwd", "cd link-up && ls", "cd /tmp && ls",
	"head -c 1000000000 /dev/zero", "cat /dev/zero", "cat outdir/zero", "cat /proc/self/environ",
	"cat /proc/self/root/etc/passwd", "cat fifo", "cat loop", "cat < /etc/passwd", "cat < link-out",
	"ls ~", "cat ~/x", "cat $HOME/x", "ls ~root",
	// Protected, denied and secret paths.
	"cat .git/config", "cat link-cfg", "cat .rein/config.toml", "cat secrets/prod.key", "cat link-key",
	"ls secrets", "cat .env", "cat .ENV", "cat id_rsa", "cat server.pem", "cat .state/sessions.json", "ls .ssh",
	"cat .ssh/config", "head .vscode", "cat ./*", "cd secrets && ls",
	// Dynamic words, substitutions, expansions.
	"ls $(rm -rf .)", "ls `rm -rf .`", "echo $HOME", "cat $f", "cat ${x:-README.md}", "cat <(ls)",
	"echo $((1+1))", "printf -v x y", "printf -v x y && ls", "ls \"$(echo .)\"",
	// Writes and redirections.
	"cat a > b", "cat a >> b", "ls > /dev/null", "ls 2>/dev/null", "ls &> out", "cat a >&2x", "cat <> README.md",
	"ls >&out", "tee out < README.md",
	// Options that follow, run, write or are not listed.
	"tail -f main.go", "tail -F main.go", "tail --follow main.go", "tail -5f main.go", "tail +5f main.go",
	"tail +f main.go", "tail --pid=1 -f main.go", "tail -s 1 main.go", "wc --files0-from=list", "wc --files0-from list",
	"wc --files0 list", "wc --file=list", "ls -L dir-out", "ls -LR", "ls --dereference", "ls --rec", "cat --show",
	"head -n x main.go", "head -n", "head --lines main.go --bytes", "ls -I '*' .", "ls --color=always",
	"stat", "cd *", "cd * && cat x.go", "cd ~ && ls", "cd - && ls", "basename", "true && cat /etc/passwd", "cd -- - && ls",
	// Other commands, wrappers and structure.
	"git status", "git log --oneline -5", "git diff", "go env", "go env GOPROXY", "go version -m /usr/bin/ls",
	"go versio", "go build", "ls; rm x", "ls && rm -rf sub", "cat a | sh", "cat README.md | bash",
	"ls &", "ls & wait", "(ls)", "{ ls; }", "while true; do ls; done", "for f in a; do cat a; done",
	"if true; then ls; fi", "f() { ls; }; f", "X=1 ls", "LC_ALL=C ls", "env ls", "timeout 5 cat main.go",
	"bash -c 'ls'", "sh -c ls", "xargs cat < list", "find . -name x", "eval ls", "command ls", "exec ls",
	"./ls", "/bin/ls", "bin/cat main.go", "LS", "Cat main.go", "time ls", "nohup ls",
	// Look-alikes, control characters and other spellings.
	"c\u0430t main.go", "ｌｓ", "ls\x00 -la", "cat main.go\x00/etc/passwd", "cat 'main.go\n'", "ca\\t /etc/passwd",
	"cat [m]ain.go", "cat @(main).go", "cat main.go\u200b", "ls\u00a0-la",
}

func TestReadOnlyCommands(t *testing.T) {
	ws, home := readOnlyWorkspace(t)
	if len(readOnlyAllowed) < 40 || len(readOnlyRefused) < 60 {
		t.Fatalf("the tables are too small: %d allowed, %d refused", len(readOnlyAllowed), len(readOnlyRefused))
	}
	for _, p := range []Preset{PresetEditor, PresetReadOnly} {
		e := readOnlyEngine(t, p, ws, home)
		for _, cmd := range readOnlyAllowed {
			if d := e.Decide(t.Context(), runCall(cmd)); d.Action != Allow {
				t.Errorf("%s: %q: %s (%s: %s); want allow", p, cmd, d.Action, d.Rule, d.Reason)
			}
		}
		for _, cmd := range readOnlyRefused {
			if d := e.Decide(t.Context(), runCall(cmd)); d.Action == Allow {
				t.Errorf("%s: %q: allowed (%s: %s); want ask or deny", p, cmd, d.Rule, d.Reason)
			}
		}
	}
}

// TestReadOnlyRule checks what decides: the read-only rule names itself,
// an explicit rule of the user's wins over it, the full preset is
// unchanged, and the cwd argument moves the commands it checks.
func TestReadOnlyRule(t *testing.T) {
	ws, home := readOnlyWorkspace(t)
	e := readOnlyEngine(t, PresetEditor, ws, home)
	if d := e.Decide(t.Context(), runCall("cat main.go")); d.Rule != readOnlyRule {
		t.Errorf("rule %q, want %q", d.Rule, readOnlyRule)
	}
	if d := e.Decide(t.Context(), runCall("echo hi")); !strings.HasPrefix(d.Rule, "rule:builtin:allow echo") {
		t.Errorf("echo decided by %q, want its own built-in rule", d.Rule)
	}
	ask, err := NewEngine(EngineConfig{Workspace: ws, Home: home, Layers: []Layer{{Kind: LayerUser, Source: "test", Config: Config{
		Commands: []CommandRule{{Prefix: []string{"cat"}, Action: "ask"}},
		Tools:    []ToolRule{},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := ask.Decide(t.Context(), runCall("cat main.go")); d.Action != Ask {
		t.Errorf("a user's ask rule for cat: %s (%s)", d.Action, d.Rule)
	}
	if d := ask.Decide(t.Context(), runCall("ls")); d.Action != Allow {
		t.Errorf("ls beside a cat rule: %s (%s)", d.Action, d.Rule)
	}
	tool, _ := NewEngine(EngineConfig{Workspace: ws, Home: home, Layers: []Layer{{Kind: LayerUser, Source: "test", Config: Config{
		Tools: []ToolRule{{Name: "run_command", Action: "ask"}},
	}}}})
	if d := tool.Decide(t.Context(), runCall("ls")); d.Action != Ask {
		t.Errorf("a user's ask rule for run_command: %s (%s)", d.Action, d.Rule)
	}
	full := readOnlyEngine(t, PresetFull, ws, home)
	if d := full.Decide(t.Context(), runCall("cat main.go")); d.Action != Allow || d.Rule != "preset:full" {
		t.Errorf("full: %s (%s)", d.Action, d.Rule)
	}
	cwdCall := func(cmd, cwd string) Call {
		return Call{ID: "c", Spec: specRunDir, Args: mustJSON(map[string]string{"command": cmd, "cwd": cwd})}
	}
	if d := e.Decide(t.Context(), cwdCall("cat x.go", "sub")); d.Action != Allow {
		t.Errorf("cat x.go in sub: %s (%s)", d.Action, d.Reason)
	}
	for _, c := range []Call{cwdCall("ls", ".."), cwdCall("cat passwd", "/etc"), cwdCall("ls", "dir-out"), cwdCall("ls", "secrets")} {
		if d := e.Decide(t.Context(), c); d.Action == Allow {
			t.Errorf("%s: allowed (%s)", c.Args, d.Reason)
		}
	}
}

// specRunDir is run_command with its cwd argument, as tools/exec declares it.
var specRunDir = func() tool.Spec {
	s := specRun
	s.Effects.DirArg = "cwd"
	return s
}()

// TestReadOnlyHomeInWorkspace: a workspace that holds the home directory
// gets no read-only allowance, since the home's secret stores would be
// inside it.
func TestReadOnlyHomeInWorkspace(t *testing.T) {
	ws := CanonicalWorkspace(t.TempDir())
	home := filepath.Join(ws, "home")
	if err := os.MkdirAll(filepath.Join(home, ".aws"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{home, ws} {
		e := readOnlyEngine(t, PresetEditor, ws, h)
		for _, cmd := range []string{"ls", "ls home", "cat home/.aws/credentials"} {
			if d := e.Decide(t.Context(), runCall(cmd)); d.Action == Allow {
				t.Errorf("home %s: %q allowed (%s)", h, cmd, d.Reason)
			}
		}
	}
}

// TestReadOnlyGlobBudget: a glob over more files than rein checks asks.
func TestReadOnlyGlobBudget(t *testing.T) {
	ws, home := readOnlyWorkspace(t)
	dir := filepath.Join(ws, "many")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range wspath.MaxGlobMatches + 1 {
		if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := readOnlyEngine(t, PresetEditor, ws, home)
	if d := e.Decide(t.Context(), runCall("cat many/*")); d.Action == Allow {
		t.Errorf("a glob past the budget was allowed")
	}
	if d := e.Decide(t.Context(), runCall("cat many/f0")); d.Action != Allow {
		t.Errorf("one file of it: %s (%s)", d.Action, d.Reason)
	}
}

// readOnlyNames are the command names a line allowed by the read-only set
// or the built-in rules may run.
func readOnlyNames() []string {
	var names []string
	for _, n := range shell.ReadOnlyCommands() {
		name, _, _ := strings.Cut(n, " ") // "go version": the name is go
		names = append(names, name)
	}
	for _, r := range BuiltinConfig().Commands {
		if r.Action == "allow" {
			names = append(names, r.Prefix[0])
		}
	}
	return names
}

// FuzzReadOnlyCommands: under the editor preset, a command line with a
// simple command outside the read-only set and the built-in allow rules
// is never allowed, and a line the read-only set allows writes nothing
// through redirects.
func FuzzReadOnlyCommands(f *testing.F) {
	for _, c := range append(slices.Clone(readOnlyAllowed), readOnlyRefused...) {
		f.Add(c)
	}
	ws, home := readOnlyWorkspace(f)
	e := readOnlyEngine(f, PresetEditor, ws, home)
	names := readOnlyNames()
	f.Fuzz(func(t *testing.T, cmd string) {
		if !utf8.ValidString(cmd) {
			return
		}
		d := e.Decide(t.Context(), runCall(cmd))
		if d.Action != Allow {
			return
		}
		an := shell.Analyze(cmd, e.opts)
		for _, c := range an.Commands {
			if len(c.Args) == 0 || !slices.Contains(names, c.Args[0]) {
				t.Fatalf("%q allowed (%s) but runs %q", cmd, d.Rule, c.Args)
			}
		}
		if d.Rule == readOnlyRule {
			for _, rd := range an.Redirects {
				if rd.Write {
					t.Fatalf("%q allowed as read-only but writes %q", cmd, rd.Target)
				}
			}
		}
	})
}
