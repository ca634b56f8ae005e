//go:build unix

package history

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLoadInstructionsOddFiles(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		"AGENTS.md/readme": "a directory named AGENTS.md",
		"bom/AGENTS.md":    "\uFEFFbom rules \xff\xfe end",
	})
	// A FIFO named AGENTS.md would block a plain open until a writer came.
	if err := os.Mkdir(filepath.Join(ws, "bom", "f"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "bom", "f", "AGENTS.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var text string
	var files []string
	var err error
	go func() {
		defer close(done)
		text, files, err = LoadInstructions(ws, filepath.Join(ws, "bom", "f"), "", 0)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("LoadInstructions blocked on a FIFO")
	}
	if err != nil {
		t.Fatal(err)
	}
	want := "# Instructions from bom/AGENTS.md\n\nbom rules \uFFFD end"
	if diff := cmp.Diff(want, text); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"bom/AGENTS.md"}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// TestInstructionImportFIFO: an import of a FIFO is refused without
// opening it (which would block until a writer came).
func TestInstructionImportFIFO(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"AGENTS.md": "rules @pipe.md"})
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var (
		in  *Instructions
		err error
	)
	go func() {
		defer close(done)
		in, err = LoadInstructionsFrom(InstructionSources{WorkspaceRoot: ws})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("LoadInstructionsFrom blocked on a FIFO import")
	}
	if !errors.Is(err, ErrImportRefused) || len(in.Files) != 1 {
		t.Errorf("files %v, err %v", in.Paths(), err)
	}
}
