//go:build linux

package workspace

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/workspace/sandbox"
	"golang.org/x/sys/unix"
)

// visibleTempDir is a temporary directory outside /tmp: the sandbox mounts
// an empty /tmp, so a sentinel under /tmp would be out of reach for a
// reason that says nothing about the read-only root.
func visibleTempDir(t *testing.T) string {
	t.Helper()
	base := "/var/tmp"
	if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
		base, _ = os.Getwd()
	}
	dir, err := os.MkdirTemp(base, "rein-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// requireNamespaces skips (loudly) or, under REIN_REQUIRE_INTEROP=1 as
// scripts/test sets it, fails when bubblewrap or Landlock is unusable.
func requireNamespaces(t *testing.T) {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
			t.Fatalf("REIN_REQUIRE_INTEROP=1 but "+format, args...)
		}
		t.Skipf("SKIPPING sandbox test: "+format, args...)
	}
	if _, err := sandbox.Available(); err != nil {
		missing("the kernel lacks Landlock: %v", err)
	}
	if _, err := sandbox.Namespaces(); err != nil {
		missing("%v (install bubblewrap: apt-get install bubblewrap)", err)
	}
}

// run executes a command in ws, failing the test if it could not start.
func run(t *testing.T, ws *Workspace, cmd string, env ...string) ExecResult {
	t.Helper()
	res, err := ws.Exec(context.Background(), ExecOptions{Command: cmd, Env: env, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return res
}

// fileState is everything about a file an attack could change.
type fileState struct {
	Mode, UID, GID   uint32
	Size             int64
	Mtime, Ctime     unix.Timespec
	Contents, Xattrs string
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		t.Fatalf("stat %s: %v", path, err)
	}
	b, _ := os.ReadFile(path)
	s := fileState{Mode: st.Mode, UID: st.Uid, GID: st.Gid, Size: st.Size, Mtime: st.Mtim, Ctime: st.Ctim, Contents: string(b)}
	buf := make([]byte, 4096)
	if n, err := unix.Llistxattr(path, buf); err == nil {
		for _, name := range strings.Split(strings.TrimRight(string(buf[:n]), "\x00"), "\x00") {
			v := make([]byte, 4096)
			m, _ := unix.Lgetxattr(path, name, v)
			if m < 0 {
				m = 0
			}
			s.Xattrs += name + "=" + string(v[:m]) + ";"
		}
	}
	return s
}

// dirNames lists a directory's entries.
func dirNames(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, ",")
}
