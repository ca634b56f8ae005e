package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckOutsideWorkspace: the opt-out of the sandbox is refused for
// every spelling that reaches a workspace file and honoured when
// everything lies outside.
func TestCheckOutsideWorkspace(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	out := filepath.Join(root, "out")
	for _, f := range []string{"ws/scripts/h.sh", "ws/sub/srv.py", "ws/srvdir/__main__.py", "out/notify.sh"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(ws, "scripts", "h.sh"), filepath.Join(out, "in.sh")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, "scripts"), filepath.Join(out, "dir")); err != nil {
		t.Fatal(err)
	}
	refused := []string{
		"bash scripts/h.sh", "cd scripts && bash h.sh", "bash ./scripts/h.sh", "bash " + ws + "/scripts/h.sh",
		`bash "$CLAUDE_PROJECT_DIR/scripts/h.sh"`, `bash "${CLAUDE_PROJECT_DIR:-.}/scripts/h.sh"`,
		`bash "$(git rev-parse --show-toplevel)/scripts/h.sh"`, "bash `pwd`/scripts/h.sh",
		"python3 -m scripts.h", "python3 -c 'import helper'", "node -e 'require(\"./x\")'", "ruby -e 1",
		`sh -c "cd sub && exec python3 srv.py"`, "python3 srvdir", "python3 .", "make hook", "npm run lint",
		"bash " + out + "/in.sh", "bash " + out + "/dir/h.sh", "bash scripts/*.sh", "bash scr{ipts,x}/h.sh",
		"bash scripts/h\\.sh", "source scripts/h.sh", ". scripts/h.sh", "eval bash scripts/h.sh",
		"exec bash scripts/h.sh", "command bash scripts/h.sh", "env bash scripts/h.sh", "f() { bash x; }; f",
		"bash --rcfile=scripts/h.sh", "bash < scripts/h.sh", "cat $HOME/x", "bash -c 'bash scripts/h.sh'",
		`sh -ec "cd sub && exec python3 srv.py"`, `bash -lc "cd sub; python3 srv.py"`, "env python3 -c 'import helper'",
		"nice -n 5 python3 -Sc 'import helper'", "timeout 5 node -e 1", "env sh -c 'bash scripts/h.sh'", "xargs make",
	}
	for _, c := range refused {
		if err := checkScriptOutside(ws, ws, c); err == nil {
			t.Errorf("%q: the opt-out was honoured", c)
		}
	}
	allowed := []string{"bash " + out + "/notify.sh", out + "/notify.sh", "echo hi", "true", "exit 0", "bash " + out + "/notify.sh --flag=x", "~/nonexistent-dir/x"}
	for _, c := range allowed {
		if err := checkScriptOutside(ws, ws, c); err != nil && !strings.Contains(c, "~/") {
			t.Errorf("%q: refused: %v", c, err)
		}
	}
	// argv form (MCP servers), with a working directory in the workspace.
	if err := CheckOutsideWorkspace(ws, filepath.Join(ws, "sub"), []string{"python3", "srv.py"}); err == nil {
		t.Error("a server script in its cwd inside the workspace was honoured")
	}
	if err := CheckOutsideWorkspace(ws, ws, []string{"./scripts/h.sh"}); err == nil {
		t.Error("a server program in the workspace was honoured")
	}
	if err := CheckOutsideWorkspace(ws, ws, []string{filepath.Join(out, "notify.sh"), "--port", "1"}); err != nil {
		t.Errorf("a server outside: %v", err)
	}
}

// FuzzCheckScriptOutside: the check never panics, and a script that
// names a workspace file by a plain word is never honoured.
func FuzzCheckScriptOutside(f *testing.F) {
	for _, s := range []string{"bash scripts/h.sh", "cd x && y", `sh -c "a; b"`, "f() { :; }", "$(x)", "a | b > c", "echo ${x:-y}"} {
		f.Add(s)
	}
	ws := f.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "h.sh"), nil, 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, script string) {
		_ = checkScriptOutside(ws, ws, script)
		if err := checkScriptOutside(ws, ws, "bash h.sh; "+script); err == nil {
			t.Errorf("bash h.sh; %q: honoured", script)
		}
	})
}
