package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestChildRulesetInsideNamespaces: the ruleset rein builds outside holds
// inside bubblewrap's namespaces (rules name inodes, which the binds keep)
// and, with its other descriptors, never reaches the command. The
// sandbox's /tmp is a tmpfs bubblewrap makes writable, so only Landlock
// stops a write there; the workspace stays writable; the command's open
// descriptors are its standard streams alone.
func TestChildRulesetInsideNamespaces(t *testing.T) {
	if _, err := Available(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	if _, err := Namespaces(); err != nil {
		if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
			t.Fatalf("REIN_REQUIRE_INTEROP=1 but no namespaces: %v", err)
		}
		t.Skipf("no namespaces here: %v", err)
	}
	dir := t.TempDir()
	script := `touch /tmp/escaped 2>/dev/null && echo tmp-writable
echo in > inside && cat inside
for f in /proc/$$/fd/*; do echo "fd ${f##*/} $(readlink "$f")"; done`
	for _, lim := range []Limits{{}, limitsOff} {
		l, err := Prepare(Policy{Mode: Required, Writable: []string{dir}, Dir: dir, Limits: lim}, []string{"bash", "-c", script})
		if err != nil {
			t.Fatal(err)
		}
		if l.ruleset == nil || l.Isolation != IsolationFull {
			t.Fatalf("no ruleset for a full sandbox: %+v", l)
		}
		cmd := &exec.Cmd{Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}}
		l.Apply(cmd)
		out, err := cmd.CombinedOutput()
		l.Release(cmd.ProcessState)
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		got := string(out)
		if strings.Contains(got, "tmp-writable") {
			t.Errorf("the command wrote to the sandbox's /tmp: Landlock is not enforced inside (%q)", got)
		}
		if !strings.HasPrefix(got, "in\n") {
			t.Errorf("the workspace is not writable: %q", got)
		}
		var fds []string
		for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
			if f, ok := strings.CutPrefix(line, "fd "); ok {
				fds = append(fds, f)
			}
		}
		// What rein hands the child: the ruleset (anon_inode:landlock-
		// ruleset), the cgroup's files and the binary itself.
		exe, _ := os.Executable()
		for _, f := range fds {
			if strings.Contains(f, "landlock") || strings.Contains(f, "cgroup") || (exe != "" && strings.Contains(f, exe)) {
				t.Errorf("a descriptor of the sandbox reached the command: %q (all: %q)", f, fds)
			}
		}
		if len(fds) < 3 {
			t.Errorf("the descriptor listing did not run: %q", got)
		}
	}
	if _, err := os.Stat("/tmp/escaped"); err == nil {
		t.Error("/tmp/escaped exists on the host")
	}
}
