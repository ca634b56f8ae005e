package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
)

// TestReplayMasksVolatileText: a command whose output carries a duration
// that changes on every run replays as identical by default, and with
// --exact diverges, shown as a unified diff.
func TestReplayMasksVolatileText(t *testing.T) {
	e := newSTEnv(t)
	cfgDir := filepath.Join(e.home, ".config", "rein")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte("[policy]\npreset = \"full\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := e.config(t, config.Settings{})
	args, _ := json.Marshal(map[string]string{"command": "echo same line; date +%H:%M:%S.%N; date '+took %Nns'"})
	p := modeltest.NewScripted(
		modeltest.ToolCalls(model.ToolCall{ID: "c1", Name: "run_command", Args: args}),
		modeltest.Text("done"),
	)
	id, out, stderr := e.record(t, sessionFlags{}, "time it", p, cfg)
	if out.Kind != agent.Complete {
		t.Fatalf("outcome %+v\n%s", out, stderr)
	}
	_, shown, _ := e.exec(t, "sessions", "show", id)
	if !strings.Contains(shown, "same line") {
		t.Fatalf("the command did not run in the recording:\n%s", shown)
	}
	code, stdout, stderr := e.exec(t, "replay", id)
	if code != 0 || !strings.Contains(stdout, "1 tool result identical") {
		t.Fatalf("masked replay: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = e.exec(t, "replay", "--exact", id)
	if code != ExitFailed {
		t.Fatalf("--exact replay: exit %d, want a divergence\n%s", code, stdout)
	}
	for _, want := range []string{"call 1 (run_command, id c1) diverged", "\n--- recorded\n+++ replayed\n@@ ", "\n same line\n", "\n-took ", "\n+took "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--exact output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestMaskUnreproducible: inode numbers, devices, directory sizes, block
// counts, the parent's line and ls's padding are masked; modes, owners,
// link counts, file sizes and mtimes are still compared.
func TestMaskUnreproducible(t *testing.T) {
	rec := "total 24\n9978114 drwxr-xr-x 3 root root 4096 Mar  8  2024 .\n      3 drwx------ 3 root root   60 Dec  2 04:25 ..\n" +
		"9978194 -rw-r--r-- 2 root root    4 Mar  5  2024 hard.txt\n" +
		"  File: sub\n  Size: 4096      \tBlocks: 8          IO Block: 4096   directory\nDevice: 254,0\tInode: 9978226     Links: 2\n" +
		"  File: a\n  Size: 4         \tBlocks: 8          IO Block: 4096   regular file\nDevice: 254,0\tInode: 9978227     Links: 1\n"
	same := "total 8\n42 drwxr-xr-x 3 root root 60 Mar  8  2024 .\n1 drwxr-xr-x 9 user user 180 Jan  1 10:00 ..\n" +
		"43 -rw-r--r-- 2 root root 4 Mar  5  2024 hard.txt\n" +
		"  File: sub\n  Size: 60        \tBlocks: 0          IO Block: 4096   directory\nDevice: 0,52\tInode: 44     Links: 2\n" +
		"  File: a\n  Size: 4         \tBlocks: 0          IO Block: 512   regular file\nDevice: 0,52\tInode: 45     Links: 1\n"
	if a, b := maskUnreproducible(rec), maskUnreproducible(same); a != b {
		t.Errorf("masked results differ:\n%s\n---\n%s", a, b)
	}
	for _, change := range [][2]string{
		{"-rw-r--r-- 2 root", "-rw-rw-r-- 2 root"},                     // mode
		{"-rw-r--r-- 2 root", "-rw-r--r-- 1 root"},                     // links
		{"2 root root    4", "2 user root    4"},                       // owner
		{"root    4 Mar  5", "root    5 Mar  5"},                       // file size
		{"Mar  5  2024 hard", "Mar  6  2024 hard"},                     // mtime
		{"Size: 4         \tBlocks: 8", "Size: 5         \tBlocks: 8"}, // a file's size in stat
	} {
		changed := strings.Replace(rec, change[0], change[1], 1)
		if changed == rec {
			t.Fatalf("%q is not in the sample", change[0])
		}
		if maskUnreproducible(changed) == maskUnreproducible(rec) {
			t.Errorf("changing %q to %q is masked", change[0], change[1])
		}
	}
	if got := maskUnreproducible("lrwxrwxrwx 1 u g 2 Jan 1 2024 up -> ..\n"); !strings.Contains(got, "up -> ..") || strings.Contains(got, "parent") {
		t.Errorf("a link to .. was taken for the parent: %q", got)
	}
}

// FuzzMaskUnreproducible: any text masks without panicking, and masking
// is idempotent.
func FuzzMaskUnreproducible(f *testing.F) {
	for _, s := range []string{"", "total 4\n", "12 drwxr-xr-x 2 a b 4096 Jan 1 2024 d\n", " 7 -rw", "Device: x\tInode: 3\n  Size: 1 Blocks: 2 IO Block: 3 directory", "drwxr-xr-x 2 a\n..", "-rwxrwxrwx 1 ..\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := maskUnreproducible(s)
		if twice := maskUnreproducible(once); twice != once {
			t.Errorf("not idempotent: %q -> %q -> %q", s, once, twice)
		}
	})
}
