package workspace

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSandboxPolicyIsTheCommandsOwn: hooks, servers and checks get the
// instance commands get — same writable, protected, hidden and mode —
// with the network the caller decided and their own directory.
func TestSandboxPolicyIsTheCommandsOwn(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{Sandbox: "auto", SandboxProtected: []string{dir + "/.git/config"}, SandboxHidden: []string{"/secret"}, SandboxWritable: []string{"/cache"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tmp, _ := w.TempDir()
	for _, network := range []bool{false, true} {
		p, err := w.SandboxPolicy(network, "")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{w.Dir(), tmp, "/cache"}, p.Writable); diff != "" {
			t.Errorf("writable (-want +got):\n%s", diff)
		}
		if p.Network != network || p.Dir != w.Dir() || p.Mode != "auto" || !slices.Equal(p.Protected, []string{dir + "/.git/config"}) || !slices.Equal(p.Hidden, []string{"/secret"}) {
			t.Errorf("policy = %+v", p)
		}
	}
	env, err := w.SandboxEnv([]string{"PATH=/bin", "API_TOKEN=s3cr3tvalue", "TMPDIR=/tmp", "LD_PRELOAD=/x.so"}, true)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(env, "\n")
	if strings.Contains(joined, "s3cr3tvalue") || strings.Contains(joined, "LD_PRELOAD") || !strings.Contains(joined, "TMPDIR="+tmp) || !strings.Contains(joined, "PATH=/bin") {
		t.Errorf("env:\n%s", joined)
	}
	raw, _ := w.SandboxEnv([]string{"API_TOKEN=kept"}, false)
	if !slices.Contains(raw, "API_TOKEN=kept") {
		t.Errorf("scrub=false dropped a chosen variable: %v", raw)
	}
	w.Close()
	if _, err := w.SandboxPolicy(false, ""); err == nil {
		t.Error("a closed workspace gave a policy")
	}
}
