package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// patchArgs is apply_patch's arguments for patch.
func patchArgs(patch string) string {
	b, _ := json.Marshal(map[string]string{"patch": patch})
	return string(b)
}

// undoEnv is a workspace with three files and a scripted model whose run
// makes three tool calls: an edit, a creation, and a deletion by patch.
func undoEnv(t *testing.T) (*env, *modeltest.Server) {
	t.Helper()
	e := newEnv(t)
	writeFiles(t, e.workspace, map[string]string{
		"a.txt":    "alpha\n",
		"gone.txt": "doomed\n",
	})
	srv := modeltest.NewServer(t,
		sse(toolBody("e1", "edit_file", `{"path":"a.txt","old_string":"alpha","new_string":"ALPHA"}`)),
		sse(toolBody("w1", "write_file", `{"path":"new/b.txt","content":"bee\n"}`)),
		sse(toolBody("p1", "apply_patch", patchArgs("--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-doomed\n"))),
		sse(textBody("done")),
	)
	return e, srv
}

func readWS(t *testing.T, e *env, name string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.workspace, name))
	if os.IsNotExist(err) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// runBinary runs the real binary to its end.
func (e *env) runBinary(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	p := e.start(t, args...)
	p.stdin.Close()
	code = p.wait(t, 60*time.Second)
	return code, p.stdout.String(), p.stderr.String()
}

// TestUndoAcrossRuns: `rein run` edits, creates and deletes files (three
// calls); separate `rein undo` processes revert them one call at a time,
// newest first — the deleted file comes back, the created one goes, the
// edit is reverted — and a fourth finds nothing left.
func TestUndoAcrossRuns(t *testing.T) {
	e, srv := undoEnv(t)
	state := filepath.Join(e.home, "state")
	if code, _, stderr := e.runBinary(t, "run", "--state-dir", state, "-e", srv.URL, "change things"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if _, ok := readWS(t, e, "gone.txt"); ok {
		t.Fatal("the run did not delete gone.txt")
	}
	steps := []struct {
		want  string
		check func() bool
	}{
		{"restored gone.txt (the call deleted it)", func() bool { s, ok := readWS(t, e, "gone.txt"); return ok && s == "doomed\n" }},
		{"removed new/b.txt (the call created it)", func() bool { _, ok := readWS(t, e, "new/b.txt"); return !ok }},
		{"restored a.txt", func() bool { s, _ := readWS(t, e, "a.txt"); return s == "alpha\n" }},
	}
	for i, st := range steps {
		code, stdout, stderr := e.runBinary(t, "undo", "--state-dir", state)
		if code != 0 || !strings.Contains(stdout, st.want) {
			t.Fatalf("undo %d: exit %d, stdout %q, stderr %q; want %q", i+1, code, stdout, stderr, st.want)
		}
		if !st.check() {
			t.Fatalf("undo %d reported %q but the workspace does not show it", i+1, st.want)
		}
	}
	code, _, stderr := e.runBinary(t, "undo", "--state-dir", state)
	if code != 1 || !strings.Contains(stderr, "nothing to undo") {
		t.Errorf("undo with nothing left: exit %d, stderr %q", code, stderr)
	}
}

// TestUndoRefusesFileChangedSince: a file edited by hand after the run is
// refused by name, and left as the user wrote it; undo N counts calls.
func TestUndoRefusesFileChangedSince(t *testing.T) {
	e, srv := undoEnv(t)
	state := filepath.Join(e.home, "state")
	if code, _, stderr := e.runBinary(t, "run", "--state-dir", state, "-e", srv.URL, "change things"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	writeFiles(t, e.workspace, map[string]string{"a.txt": "edited by hand\n"})
	code, stdout, stderr := e.runBinary(t, "undo", "--state-dir", state, "3")
	if code != 1 {
		t.Fatalf("undo 3: exit %d, want 1\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, want := range []string{"restored gone.txt", "removed new/b.txt"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q (the two newer calls are undone first):\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "a.txt was changed since") || !strings.Contains(stderr, "the edit_file call e1") {
		t.Errorf("stderr does not refuse a.txt by name and call:\n%s", stderr)
	}
	if s, _ := readWS(t, e, "a.txt"); s != "edited by hand\n" {
		t.Errorf("a.txt = %q, want the hand edit kept", s)
	}
	// The refused call stays undoable once the file is back.
	writeFiles(t, e.workspace, map[string]string{"a.txt": "ALPHA\n"})
	if code, stdout, stderr := e.runBinary(t, "undo", "--state-dir", state); code != 0 || !strings.Contains(stdout, "restored a.txt") {
		t.Errorf("undo after restoring the hand edit: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestChatContinueUndoesEarlierRun: `rein run` changes a file, then
// `rein chat --continue` undoes it with /undo — before, /undo only knew
// its own process's changes ("nothing to undo").
func TestChatContinueUndoesEarlierRun(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.workspace, map[string]string{"greet.txt": "hello world\n"})
	state := filepath.Join(e.home, "state")
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "edit_file", `{"path":"greet.txt","old_string":"hello","new_string":"goodbye"}`)),
		sse(textBody("Changed it.")),
	)
	if code, _, stderr := e.runBinary(t, "run", "--state-dir", state, "-e", srv.URL, "say goodbye"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	p := e.start(t, "chat", "--continue", "--state-dir", state, "-e", srv.URL)
	p.stdin.Write([]byte("/undo\n/undo\n"))
	p.stdin.Close()
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("chat: exit %d\n%s", code, p.stderr)
	}
	stderr := p.stderr.String()
	if !strings.Contains(stderr, "undid 1 change of the edit_file call c1:\n  restored greet.txt\n") {
		t.Errorf("chat's /undo did not undo the earlier run's edit:\n%s", stderr)
	}
	if !strings.Contains(stderr, "nothing to undo") {
		t.Errorf("the second /undo found something to undo:\n%s", stderr)
	}
	if s, _ := readWS(t, e, "greet.txt"); s != "hello world\n" {
		t.Errorf("greet.txt = %q, want the original", s)
	}
}

// TestUndoLargeFileRefused: a file over the per-file image cap (8 MiB)
// changed by a call is refused by name: its earlier content was not kept.
func TestUndoLargeFileRefused(t *testing.T) {
	e := newEnv(t)
	big := strings.Repeat("0123456789abcde\n", (8<<20)/16+1) // just over 8 MiB
	writeFiles(t, e.workspace, map[string]string{"big.txt": big})
	state := filepath.Join(e.home, "state")
	srv := modeltest.NewServer(t,
		sse(toolBody("w1", "write_file", `{"path":"big.txt","content":"small now\n"}`)),
		sse(textBody("done")),
	)
	if code, _, stderr := e.runBinary(t, "run", "--state-dir", state, "-e", srv.URL, "shrink it"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	code, _, stderr := e.runBinary(t, "undo", "--state-dir", state)
	if code != 1 || !strings.Contains(stderr, "big.txt had before it was not kept") {
		t.Errorf("undo of an over-cap file: exit %d, stderr %q", code, stderr)
	}
	if s, _ := readWS(t, e, "big.txt"); s != "small now\n" {
		t.Errorf("big.txt = %q, want it left as the call left it", s)
	}
}
