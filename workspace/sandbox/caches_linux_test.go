package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCachesBoundOverHiddenStateDir: a cache directory inside a hidden
// directory (rein's state directory) is writable inside the namespaces
// while the rest of that directory stays masked, and Landlock lets the
// command write it.
func TestCachesBoundOverHiddenStateDir(t *testing.T) {
	if _, err := Namespaces(); err != nil {
		t.Skip(err)
	}
	ws, state := t.TempDir(), t.TempDir()
	secret := filepath.Join(state, "sessions.db")
	os.WriteFile(secret, []byte("secret"), 0o600)
	c := Caches{Dir: CacheDir(state, ws), Kinds: []string{CacheGo}}
	if err := c.Ensure(ws); err != nil {
		t.Fatal(err)
	}
	gocache := filepath.Join(c.Dir, "go-build")
	p := Policy{Writable: []string{ws}, Hidden: []string{state}, Caches: c.Dirs(), Dir: ws, Visible: []string{ws}}
	script := "echo hit > " + gocache + "/entry && cat " + secret + " 2>&1; ls -A " + c.Dir
	l, err := Prepare(p, []string{"sh", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unused")
	cmd.Env = os.Environ()
	l.Apply(cmd)
	out, err := cmd.CombinedOutput()
	l.Release(cmd.ProcessState)
	if strings.Contains(string(out), "secret") {
		t.Errorf("the hidden state directory is readable: %s", out)
	}
	if b, rerr := os.ReadFile(filepath.Join(gocache, "entry")); rerr != nil || string(b) != "hit\n" {
		t.Errorf("the cache was not writable: %v %q (%v)\n%s", rerr, b, err, out)
	}
	if got := strings.Fields(string(out)); len(got) == 0 || got[len(got)-1] != "gomod" || strings.Contains(string(out), WorkspaceFile+"\n") {
		t.Errorf("inside, the cache directory should show the bound kinds only: %s", out)
	}
}

// TestCachesWritableUnderLandlockAlone: without bubblewrap, Landlock lets
// the command write the cache directories and nothing else of the state
// directory.
func TestCachesWritableUnderLandlockAlone(t *testing.T) {
	if _, err := Available(); err != nil {
		t.Skip(err)
	}
	ws, state := t.TempDir(), t.TempDir()
	c := Caches{Dir: CacheDir(state, ws), Kinds: []string{CachePip}}
	if err := c.Ensure(ws); err != nil {
		t.Fatal(err)
	}
	pip := filepath.Join(c.Dir, "pip")
	p := Policy{Writable: []string{ws}, Caches: c.Dirs(), Dir: ws,
		Namespaces: func() (string, error) { return "", errors.New("pretend there is no bubblewrap") }}
	script := "echo hit > " + pip + "/entry; echo bad > " + filepath.Join(state, "planted") + " || echo denied"
	l, err := Prepare(p, []string{"sh", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	if l.Isolation != IsolationLandlock {
		t.Fatalf("isolation %s", l.Isolation)
	}
	cmd := exec.Command("unused")
	cmd.Env = os.Environ()
	l.Apply(cmd)
	out, _ := cmd.CombinedOutput()
	l.Release(cmd.ProcessState)
	if b, err := os.ReadFile(filepath.Join(pip, "entry")); err != nil || string(b) != "hit\n" {
		t.Errorf("the cache was not writable: %v %q\n%s", err, b, out)
	}
	if _, err := os.Stat(filepath.Join(state, "planted")); err == nil || !strings.Contains(string(out), "denied") {
		t.Errorf("the state directory was writable: %s", out)
	}
}
