package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCacheDirPerWorkspace: each workspace gets its own directory under
// the state directory's cache/, stable across calls.
func TestCacheDirPerWorkspace(t *testing.T) {
	a, b := CacheDir("/s", "/w/one"), CacheDir("/s", "/w/two")
	if a == b || a != CacheDir("/s", "/w/one/") || filepath.Dir(a) != "/s/cache" {
		t.Errorf("CacheDir: %s %s", a, b)
	}
}

// TestCachesEnvAndDirs: only enabled kinds get directories and variables.
func TestCachesEnvAndDirs(t *testing.T) {
	c := Caches{Dir: "/c", Kinds: []string{CacheGo, CachePip}}
	if got := c.Dirs(); !slices.Equal(got, []string{"/c/go-build", "/c/gomod", "/c/pip"}) {
		t.Errorf("Dirs = %q", got)
	}
	if d, ok := c.Var("GOMODCACHE"); !ok || d != "/c/gomod" {
		t.Errorf("Var(GOMODCACHE) = %q %v", d, ok)
	}
	if _, ok := c.Var("CARGO_HOME"); ok {
		t.Error("cargo is off but has a directory")
	}
	if (Caches{Kinds: CacheKinds}).Dirs() != nil || (Caches{Dir: "/c"}).Dirs() != nil {
		t.Error("caches without a directory or kinds have directories")
	}
	dir := filepath.Join(t.TempDir(), "c")
	c.Dir = dir
	if err := c.Ensure("/w"); err != nil {
		t.Fatal(err)
	}
	u, err := DiskUsage(dir)
	if err != nil || u.Workspace != "/w" || len(u.Bytes) != 3 {
		t.Errorf("DiskUsage = %+v %v", u, err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("cache directory mode: %v %v", fi, err)
	}
}

func writeAged(t *testing.T, p string, size int, age time.Duration) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-age)
	os.Chtimes(p, at, at)
}

// TestPruneCaches: above the cap the oldest units go first until the rest
// fits; the build cache loses single files, the module cache (an unpacked,
// read-only tree) goes as a whole or not at all.
func TestPruneCaches(t *testing.T) {
	dir := t.TempDir()
	writeAged(t, filepath.Join(dir, "go-build", "aa", "old"), 4000, 5*time.Hour)
	writeAged(t, filepath.Join(dir, "go-build", "bb", "new"), 4000, time.Minute)
	writeAged(t, filepath.Join(dir, "gomod", "m@v1", "a.go"), 3000, 4*time.Hour)
	writeAged(t, filepath.Join(dir, "gomod", "m@v1", "b.go"), 3000, 3*time.Hour)
	writeAged(t, filepath.Join(dir, "pip", "wheel"), 2000, 2*time.Hour)
	os.Chmod(filepath.Join(dir, "gomod", "m@v1"), 0o555)

	if freed, err := PruneCaches(dir, 0); err != nil || freed != 0 {
		t.Fatalf("no cap: freed %d %v", freed, err)
	}
	if freed, err := PruneCaches(dir, 20000); err != nil || freed != 0 {
		t.Fatalf("under the cap: freed %d %v", freed, err)
	}
	// 16000 bytes, cap 9000: the old build file (4000) and then the
	// module tree (6000, newest file 3h old) go; pip (2h) and the new
	// build file stay.
	freed, err := PruneCaches(dir, 9000)
	if err != nil || freed != 10000 {
		t.Fatalf("freed %d %v, want 10000", freed, err)
	}
	for p, want := range map[string]bool{
		"go-build/aa/old": false, "gomod": false, "go-build/bb/new": true, "pip/wheel": true,
	} {
		if _, err := os.Stat(filepath.Join(dir, p)); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", p, err == nil, want)
		}
	}
}

// TestClearCaches: one kind, or everything; the Go module cache's
// read-only directories do not stop it, and a symlink out of the cache is
// removed, not followed.
func TestClearCaches(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "keep")
	writeAged(t, outside, 10, 0)
	dir := filepath.Join(t.TempDir(), "c")
	c := Caches{Dir: dir, Kinds: CacheKinds}
	if err := c.Ensure("/w"); err != nil {
		t.Fatal(err)
	}
	writeAged(t, filepath.Join(dir, "gomod", "m@v1", "go.mod"), 10, 0)
	os.Chmod(filepath.Join(dir, "gomod", "m@v1"), 0o555)
	os.Symlink(filepath.Dir(outside), filepath.Join(dir, "npm", "link"))
	if err := ClearCaches(dir, []string{CacheGo}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gomod")); !os.IsNotExist(err) {
		t.Errorf("gomod left: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pip")); err != nil {
		t.Errorf("pip removed with go: %v", err)
	}
	if err := ClearCaches(dir, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cache directory left: %v", err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("clear followed a symlink out of the cache: %v", err)
	}
	if _, err := ParseCacheKind("maven"); err == nil || !strings.Contains(err.Error(), "go, npm") {
		t.Errorf("ParseCacheKind(maven) = %v", err)
	}
}
