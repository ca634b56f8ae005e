package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// replayTree lays out a workspace whose metadata read-only commands show:
// modes other than the umask's, mtimes in the past, a symlink, a hard link
// and a subdirectory with its own mode and mtime.
func replayTree(t *testing.T, ws string) {
	t.Helper()
	writeFiles(t, ws, map[string]string{"old.txt": "old\n", "new.txt": "new\n", "run.sh": "#!/bin/sh\n", "sub/inner.txt": "inner\n"})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("old.txt", filepath.Join(ws, "link")))
	must(os.Link(filepath.Join(ws, "new.txt"), filepath.Join(ws, "hard.txt")))
	must(os.Chmod(filepath.Join(ws, "old.txt"), 0o600))
	must(os.Chmod(filepath.Join(ws, "run.sh"), 0o775))
	must(os.Chmod(filepath.Join(ws, "sub"), 0o750))
	base := time.Date(2024, 3, 1, 10, 30, 0, 123456789, time.UTC)
	for i, name := range []string{"old.txt", "run.sh", "sub/inner.txt", "new.txt", "sub", "."} {
		ts := base.Add(time.Duration(i) * 36 * time.Hour)
		must(os.Chtimes(filepath.Join(ws, name), ts, ts))
	}
}

// TestBinaryReplayReadOnlyCommandsIdentical: ls -la, stat and find -newer
// run through rein run replay as identical: the scratch copy keeps modes,
// mtimes, symlinks and hard links, and what cannot be reproduced (inode
// numbers, change times, the parent directory) is masked.
func TestBinaryReplayReadOnlyCommandsIdentical(t *testing.T) {
	e := newEnv(t)
	replayTree(t, e.workspace)
	stateDir := filepath.Join(e.home, "state")
	cmd := "ls -la; ls -la sub; ls -lai; stat ./* sub; find . -newer old.txt | sort; ls -l --time-style=full-iso link"
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "run_command", fmt.Sprintf(`{"command":%q}`, cmd))),
		sse(textBody("done")),
	)
	code, out, errOut := e.startDone(t, 60*time.Second, "run", "--preset", "full", "--approve", "auto", "--state-dir", stateDir, "-e", srv.URL, "look around")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	id := e.sessionIDOf(t, stateDir)
	_, shown, _ := e.startDone(t, 30*time.Second, "sessions", "show", "--json", "--state-dir", stateDir, id)
	for _, want := range []string{"-rw------- ", "-rwxrwxr-x ", "link -> old.txt", "./new.txt"} {
		if !strings.Contains(shown, want) {
			t.Fatalf("the recording lacks %q:\n%s", want, shown)
		}
	}
	code, out, errOut = e.startDone(t, 60*time.Second, "replay", "--state-dir", stateDir, id)
	if code != 0 || !strings.Contains(out, "1 tool result identical") {
		t.Fatalf("replay: exit %d, want 0 and identical\n%s%s\nrecorded:\n%s", code, out, errOut, shown)
	}
}
