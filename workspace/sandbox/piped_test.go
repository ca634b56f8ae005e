package sandbox

import (
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestStartPiped(t *testing.T) {
	l, err := Prepare(Policy{Mode: Off, Dir: t.TempDir()}, []string{"sh", "-c", "read line; echo \"out:$line\"; echo err >&2"})
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{}
	p, err := l.StartPiped(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(p.Stdin, "hello\n"); err != nil {
		t.Fatal(err)
	}
	p.Stdin.Close()
	out, _ := io.ReadAll(p.Stdout)
	errOut, _ := io.ReadAll(p.Stderr)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	l.Release(cmd.ProcessState)
	if strings.TrimSpace(string(out)) != "out:hello" || strings.TrimSpace(string(errOut)) != "err" {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}

func TestStartPipedFailure(t *testing.T) {
	// The program is found; the start fails (its directory is gone), and
	// StartPiped reports it with no process left.
	l, err := Prepare(Policy{Mode: Off, Dir: t.TempDir()}, []string{"true"})
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Dir: filepath.Join(t.TempDir(), "gone")}
	if p, err := l.StartPiped(cmd); err == nil {
		t.Fatalf("started in a missing directory: %+v", p)
	}
	if cmd.Process != nil {
		t.Error("a process was left")
	}
}
