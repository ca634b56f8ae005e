//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// TestRunRemovesLeftoverTempFiles: `rein run` starts by removing the
// temporary files a killed write left (.rein-tmp-<12 hex>, unheld, not
// fresh), says so, and leaves alone one a live writer holds and files
// that only look similar.
func TestRunRemovesLeftoverTempFiles(t *testing.T) {
	e := newEnv(t)
	old := time.Now().Add(-time.Minute)
	plant := func(rel string) string {
		p := filepath.Join(e.workspace, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("half a file"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
		return p
	}
	leftover := plant("pkg/.rein-tmp-0a1b2c3d4e5f")
	held := plant(".rein-tmp-00112233aabb")
	lookalike := plant("notes.rein-tmp-0a1b2c3d4e5f")
	f, err := os.Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewServer(t, sse(textBody("hello")))
	p := e.start(t, "run", "--state-dir", filepath.Join(e.home, "state"), "-e", srv.URL, "say hello")
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("rein run exited %d\n%s", code, p.stderr)
	}
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Errorf("the leftover temporary file is still there (%v)", err)
	}
	for _, keep := range []string{held, lookalike} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s was removed: %v", keep, err)
		}
	}
	if !strings.Contains(p.stderr.String(), "removed 1 temporary file") || !strings.Contains(p.stderr.String(), "pkg/.rein-tmp-0a1b2c3d4e5f") {
		t.Errorf("stderr does not report the removal:\n%s", p.stderr)
	}
}
