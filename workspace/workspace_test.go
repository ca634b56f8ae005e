package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fixture is a workspace with hostile symlinks next to an outside
// directory holding a sentinel file that must never change.
type fixture struct {
	ws       *Workspace
	dir      string // workspace directory
	outside  string // sibling directory outside the workspace
	sentinel string // file in outside
	before   []byte
	mtime    time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	parent := t.TempDir()
	f := &fixture{dir: filepath.Join(parent, "ws"), outside: filepath.Join(parent, "outside")}
	for _, d := range []string{f.dir, f.outside, filepath.Join(f.dir, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.sentinel = filepath.Join(f.outside, "secret.txt")
	f.before = []byte("do not touch\n")
	mustWrite(t, f.sentinel, f.before)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(f.sentinel, old, old); err != nil {
		t.Fatal(err)
	}
	f.mtime = old
	mustWrite(t, filepath.Join(f.dir, "sub", "ok.txt"), []byte("inside\n"))
	links := map[string]string{
		"etc":      "/etc",                        // absolute, outside
		"outdir":   "../outside",                  // symlinked directory outside
		"outfile":  "../outside/secret.txt",       // symlinked file outside
		"abs":      f.sentinel,                    // absolute symlink to the sentinel
		"procroot": "/proc/self/root",             // the whole filesystem again
		"up":       "..",                          // the parent
		"deep":     "sub/../../outside",           // escapes after a detour
		"inlink":   "sub",                         // harmless: stays inside
		"chain":    "inlink/../outdir/secret.txt", // escapes through another link
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(f.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Open(f.dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	f.ws = ws
	return f
}

// checkSentinel fails the test if anything outside the workspace changed.
func (f *fixture) checkSentinel(t *testing.T) {
	t.Helper()
	got, err := os.ReadFile(f.sentinel)
	if err != nil {
		t.Fatalf("sentinel: %v", err)
	}
	if diff := cmp.Diff(string(f.before), string(got)); diff != "" {
		t.Errorf("sentinel changed (-want +got):\n%s", diff)
	}
	fi, err := os.Stat(f.sentinel)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.ModTime().Equal(f.mtime) {
		t.Errorf("sentinel mtime changed: %v, want %v", fi.ModTime(), f.mtime)
	}
	entries, err := os.ReadDir(f.outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("outside directory holds %v, want only secret.txt", names)
	}
}

func mustWrite(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// escapePaths are spellings of places outside the workspace.
func (f *fixture) escapePaths() []string {
	return []string{
		"../outside/secret.txt",
		"sub/../../outside/secret.txt",
		f.sentinel,
		"/etc/passwd",
		"/proc/self/root/etc/passwd",
		"/proc/self/root" + f.sentinel,
		"etc/passwd",
		"outdir/secret.txt",
		"outfile",
		"abs",
		"procroot/etc/passwd",
		"up/outside/secret.txt",
		"deep/secret.txt",
		"chain",
		"a\x00b",
	}
}

func TestRel(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		in, want string
		escape   bool
	}{
		{in: "", want: "."},
		{in: ".", want: "."},
		{in: "a/b", want: "a/b"},
		{in: "./a//b/", want: "a/b"},
		{in: "a/../b", want: "b"},
		{in: f.dir, want: "."},
		{in: f.dir + "/x/y", want: "x/y"},
		{in: f.dir + "/../ws/x", want: "x"},
		{in: "..", escape: true},
		{in: "../x", escape: true},
		{in: "a/../../x", escape: true},
		{in: "/etc/passwd", escape: true},
		{in: f.dir + "x/y", escape: true}, // a sibling sharing the prefix
		{in: f.outside, escape: true},
		{in: "/proc/self/root" + f.dir + "/x", escape: true},
		{in: "nul\x00byte", escape: true},
	}
	for _, tt := range tests {
		got, err := f.ws.Rel(tt.in)
		if tt.escape {
			if !errors.Is(err, ErrEscape) {
				t.Errorf("Rel(%q) = %q, %v; want ErrEscape", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Rel(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestRelAcceptsTheUnresolvedSpelling(t *testing.T) {
	parent := t.TempDir()
	real := filepath.Join(parent, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(link, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for _, in := range []string{link + "/a.txt", real + "/a.txt"} {
		if got, err := ws.Rel(in); err != nil || got != "a.txt" {
			t.Errorf("Rel(%q) = %q, %v; want a.txt", in, got, err)
		}
	}
}

func TestEscapesFailEverywhere(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ops := map[string]func(p string) error{
		"ReadFile":  func(p string) error { _, err := f.ws.ReadFile(p); return err },
		"ReadText":  func(p string) error { _, err := f.ws.ReadText(p); return err },
		"OpenFile":  func(p string) error { fl, err := f.ws.OpenFile(p); closeIf(fl); return err },
		"Stat":      func(p string) error { _, err := f.ws.Stat(p); return err },
		"ReadDir":   func(p string) error { _, err := f.ws.ReadDir(p); return err },
		"WriteFile": func(p string) error { _, err := f.ws.WriteFile(ctx, p, []byte("pwned")); return err },
		"Remove":    func(p string) error { _, err := f.ws.Remove(ctx, p); return err },
		"Rename": func(p string) error {
			_, err := f.ws.Transact(ctx, func(tx *Tx) error { return tx.Rename("sub/ok.txt", p) })
			return err
		},
		"Exec.Dir": func(p string) error {
			_, err := f.ws.Exec(ctx, ExecOptions{Command: "true", Dir: filepath.Dir(p)})
			return err
		},
	}
	for opName, op := range ops {
		for _, p := range f.escapePaths() {
			if opName == "Exec.Dir" && filepath.Dir(p) == "." {
				continue // the workspace root itself is fine
			}
			err := op(p)
			if err == nil {
				t.Errorf("%s(%q) succeeded; want an error", opName, p)
				continue
			}
			if !errors.Is(err, ErrEscape) {
				t.Errorf("%s(%q) = %v; want ErrEscape", opName, p, err)
			}
			if errors.Is(err, ErrEscape) && !strings.Contains(err.Error(), "path escapes the workspace") {
				t.Errorf("%s(%q) error %q lacks the clear wording", opName, p, err)
			}
		}
	}
	f.checkSentinel(t)
	if n := len(f.ws.Changes()); n != 0 {
		t.Errorf("journal has %d changes after failed escapes", n)
	}
}

func closeIf(f *os.File) {
	if f != nil {
		f.Close()
	}
}

func TestInsideSymlinksWork(t *testing.T) {
	f := newFixture(t)
	got, err := f.ws.ReadText("inlink/ok.txt")
	if err != nil || got != "inside\n" {
		t.Fatalf("ReadText through an inside link = %q, %v", got, err)
	}
	c, err := f.ws.WriteFile(context.Background(), "inlink/ok.txt", []byte("changed\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != "sub/ok.txt" {
		t.Errorf("journal path = %q, want the canonical sub/ok.txt", c.Path)
	}
	if fi, err := os.Lstat(filepath.Join(f.dir, "inlink")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the symlink itself was replaced: %v %v", fi, err)
	}
}

func TestReadCapsAndBinary(t *testing.T) {
	dir := t.TempDir()
	ws, err := Open(dir, Options{MaxReadBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	mustWrite(t, filepath.Join(dir, "big"), []byte(strings.Repeat("x", 101)))
	mustWrite(t, filepath.Join(dir, "exact"), []byte(strings.Repeat("x", 100)))
	mustWrite(t, filepath.Join(dir, "nul"), []byte("ab\x00cd"))
	mustWrite(t, filepath.Join(dir, "latin1"), []byte("caf\xe9"))
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.ReadFile("big"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile(big) = %v, want ErrTooLarge", err)
	}
	if b, err := ws.ReadFile("exact"); err != nil || len(b) != 100 {
		t.Errorf("ReadFile(exact) = %d bytes, %v", len(b), err)
	}
	for _, name := range []string{"nul", "latin1"} {
		if _, err := ws.ReadText(name); !errors.Is(err, ErrBinary) {
			t.Errorf("ReadText(%s) = %v, want ErrBinary", name, err)
		}
	}
	if _, err := ws.ReadFile("d"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("ReadFile(dir) = %v, want 'is a directory'", err)
	}
	if _, err := ws.ReadFile("missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v, want ErrNotExist", err)
	}
}

func TestReadRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	ws, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := mkfifo(filepath.Join(dir, "pipe")); err != nil {
		t.Skipf("mkfifo unsupported here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := ws.ReadFile("pipe"); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadFile(fifo) = %v, want 'not a regular file'", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile on a FIFO blocked")
	}
}

func TestIsBinary(t *testing.T) {
	cut := strings.Repeat("a", binarySniffBytes-1) + "é" // é straddles the window
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"empty", "", false},
		{"ascii", "hello\n", false},
		{"utf8", "naïve – ok", false},
		{"nul", "a\x00b", true},
		{"invalid", "\xff\xfe", true},
		{"rune cut by window", cut, false},
		{"nul after window", strings.Repeat("a", binarySniffBytes) + "\x00", false},
	}
	for _, tt := range tests {
		if got := IsBinary([]byte(tt.in)); got != tt.want {
			t.Errorf("%s: IsBinary = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open("", Options{}); err == nil {
		t.Error("Open(\"\") succeeded")
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing"), Options{}); err == nil {
		t.Error("Open(missing) succeeded")
	}
	if _, err := Open(t.TempDir(), Options{Sandbox: "sometimes"}); err == nil || !strings.Contains(err.Error(), "auto, required or off") {
		t.Errorf("Open with a bad sandbox mode = %v", err)
	}
}

func TestClosed(t *testing.T) {
	ws, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := ws.TempDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("private temp dir survives Close: %v", err)
	}
	ctx := context.Background()
	if _, err := ws.WriteFile(ctx, "x", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("WriteFile after Close = %v", err)
	}
	if _, err := ws.Exec(ctx, ExecOptions{Command: "true"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Exec after Close = %v", err)
	}
	if err := ws.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}
