package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestChildRejectsBadMarker re-executes this test binary as a sandbox
// child with a corrupt marker: it must refuse to run the command.
func TestChildRejectsBadMarker(t *testing.T) {
	dir := t.TempDir()
	flag := filepath.Join(dir, "ran")
	tests := []struct {
		name, marker string
		args         []string
		want         string
	}{
		{"garbage", "{not json", []string{"rein-sandbox", "/usr/bin/touch", "touch", flag}, "bad " + envMarker},
		{"no command", `{"mode":"auto"}`, []string{"rein-sandbox"}, "no command"},
		{"missing binary", `{"mode":"auto","all_read":true}`, []string{"rein-sandbox", "/nonexistent/bin", "x"}, "exec /nonexistent/bin"},
	}
	for _, tt := range tests {
		cmd := &exec.Cmd{Path: selfExe, Args: tt.args, Env: append(os.Environ(), envMarker+"="+tt.marker)}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != childExitCode {
			t.Errorf("%s: err = %v, want exit %d (output %q)", tt.name, err, childExitCode, out)
		}
		if !strings.Contains(string(out), "rein sandbox: "+tt.want) {
			t.Errorf("%s: output %q lacks %q", tt.name, out, tt.want)
		}
	}
	if _, err := os.Stat(flag); err == nil {
		t.Error("the command ran despite the corrupt marker")
	}
}

// TestAvailableOnThisKernel documents the environment the Landlock tests
// ran on; it fails only if the probe contradicts itself.
func TestAvailableOnThisKernel(t *testing.T) {
	abi, err := Available()
	if err != nil {
		t.Skipf("kernel lacks Landlock (the sandbox tests in workspace skip too): %v", err)
	}
	if abi < 1 {
		t.Fatalf("Available() = %d with no error", abi)
	}
	t.Logf("Landlock ABI %d", abi)
}
