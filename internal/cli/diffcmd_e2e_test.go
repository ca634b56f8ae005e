package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// TestBinaryDiffAcrossResumedRuns: a run whose command edits a file by
// itself (sed, not a file tool), then a resumed run that edits another
// file with edit_file; rein diff shows both as one unified diff, --stat
// summarises them, chat's /diff after --continue shows them too, and rein
// undo reverts the resumed run's edit, then the command's.
func TestBinaryDiffAcrossResumedRuns(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.workspace, map[string]string{"conf.txt": "mode = slow\n", "greet.txt": "hello world\n"})
	stateDir := filepath.Join(e.home, "state")
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "run_command", `{"command":"sed -i s/slow/fast/ conf.txt && echo new > made.txt"}`)),
		sse(textBody("Sped it up.")),
		sse(toolBody("c2", "edit_file", `{"path":"greet.txt","old_string":"hello","new_string":"goodbye"}`)),
		sse(textBody("Greeted.")),
		sse(textBody("Nothing else.")),
	)
	run := func(args ...string) (int, string, string) {
		return e.startDone(t, 60*time.Second, append([]string{"--state-dir", stateDir}, args...)...)
	}
	if code, out, errOut := run("run", "--preset", "full", "--approve", "auto", "-e", srv.URL, "speed it up"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := run("run", "-c", "--preset", "full", "--approve", "auto", "-e", srv.URL, "and greet"); code != 0 {
		t.Fatalf("resumed run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := run("diff")
	for _, want := range []string{
		"diff --git a/conf.txt b/conf.txt\n--- a/conf.txt\n+++ b/conf.txt\n@@ -1 +1 @@\n-mode = slow\n+mode = fast\n",
		"diff --git a/made.txt b/made.txt\nnew file mode 100644\n--- /dev/null\n+++ b/made.txt\n@@ -0,0 +1 @@\n+new\n",
		"diff --git a/greet.txt b/greet.txt\n--- a/greet.txt\n+++ b/greet.txt\n@@ -1 +1 @@\n-hello world\n+goodbye world\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("rein diff: exit %d, lacks\n%s\n---\n%s%s", code, want, out, errOut)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("rein diff coloured output that is not a terminal:\n%q", out)
	}
	code, out, _ = run("diff", "--stat")
	if code != 0 || !strings.Contains(out, " conf.txt  | 2 +-\n") || !strings.Contains(out, " 3 files changed, 3 insertions(+), 2 deletions(-)\n") {
		t.Errorf("rein diff --stat: exit %d\n%s", code, out)
	}

	p := e.start(t, "chat", "--continue", "--state-dir", stateDir, "-e", srv.URL)
	p.stdin.Write([]byte("/diff\n"))
	p.stdin.Close()
	if code := p.wait(t, 60*time.Second); code != 0 || !strings.Contains(p.stdout.String(), "+mode = fast\n") || !strings.Contains(p.stdout.String(), "+goodbye world\n") {
		t.Errorf("chat --continue /diff: exit %d, want both runs' changes\n%s%s", code, p.stdout, p.stderr)
	}

	if code, out, errOut := run("undo", "2"); code != 0 {
		t.Fatalf("undo 2: exit %d\n%s%s", code, out, errOut)
	}
	for name, want := range map[string]string{"conf.txt": "mode = slow\n", "greet.txt": "hello world\n"} {
		if got, _ := os.ReadFile(filepath.Join(e.workspace, name)); string(got) != want {
			t.Errorf("%s after undo = %q, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("made.txt survived the undo of the command that made it: %v", err)
	}
	if code, out, errOut := run("diff"); code != 0 || out != "" || !strings.Contains(errOut, "no file changes") {
		t.Errorf("rein diff after undoing all: exit %d\n%s%s", code, out, errOut)
	}
}

// TestTUIDiffAfterContinue: in the chat UI of a continued session, /diff
// shows the earlier run's edit (it once showed nothing while /undo then
// reverted it); rein diff on a terminal is coloured.
func TestTUIDiffAfterContinue(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.workspace, map[string]string{"greet.txt": "hello world\n"})
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "edit_file", `{"path":"greet.txt","old_string":"hello","new_string":"goodbye"}`)),
		sse(textBody("Greeted.")),
	)
	if code, out, errOut := e.startDone(t, 60*time.Second, "run", "--preset", "full", "-e", srv.URL, "greet"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	tm := e.startTUI(t, 100, 30, "--continue", "-e", srv.URL)
	tm.waitText("session")
	tm.typ("/diff")
	tm.key("Enter")
	tm.waitText("+goodbye world")
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")

	tm = e.startTerm(t, 100, 30, "diff")
	tm.waitText("REIN-EXITED 0")
	if s := tm.screen(true); !strings.Contains(s, "+goodbye world") || !strings.Contains(s, "\x1b[32m") {
		t.Errorf("rein diff on a terminal is not coloured:\n%q", s)
	}
}
