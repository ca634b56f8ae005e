package cli_test

import (
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// TestChatHashSavesMemory: in line mode (no terminal, nobody to ask) a
// #note goes to workspace memory, /memory lists it, no turn is sent, and
// /memory rm removes it.
func TestChatHashSavesMemory(t *testing.T) {
	srv := modeltest.NewServer(t)
	e := newEnv(t)
	res := e.invoke("#the build uses make\n/memory\n#\n/memory bogus\n/exit\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	for _, want := range []string{"to workspace memory", "[workspace] the build uses make", "#TEXT saves TEXT", "/memory takes nothing"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests for memory lines", n)
	}
	list := e.run(t, "memory", "list", "--json")
	if !strings.Contains(list.stdout, `"source":{"kind":"user"`) || !strings.Contains(list.stdout, `"scope":"workspace"`) {
		t.Fatalf("stored: %s", list.stdout)
	}
	id := strings.Split(strings.Split(list.stdout, `"id":"`)[1], `"`)[0]
	res = e.invoke("/memory rm "+id+"\n/memory\n").run(t, "chat", "-e", srv.URL)
	if !strings.Contains(res.stderr, "removed "+id) || !strings.Contains(res.stderr, "no memories here yet") {
		t.Errorf("/memory rm:\n%s", res.stderr)
	}
}

// TestTUIHashAsksScope: on a terminal, #note asks for the scope with one
// key; u stores it as a user memory.
func TestTUIHashAsksScope(t *testing.T) {
	srv := modeltest.NewServer(t)
	e := newEnv(t)
	tm := e.startTUI(t, 100, 30, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("#answer in British English")
	tm.key("Enter")
	tm.waitText("u = user")
	tm.typ("u")
	tm.key("Enter")
	tm.waitText("to user memory")
	tm.typ("/memory")
	tm.key("Enter")
	tm.waitText("[user] answer in British English")
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
	if got := e.run(t, "memory", "list", "--scope", "user", "-C", t.TempDir()); !strings.Contains(got.stdout, "answer in British English") {
		t.Errorf("not stored as a user memory: %q", got.stdout)
	}
}
