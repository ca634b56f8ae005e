package cli_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/session"
)

// TestFileChangesJournaled checks that the files a tool call changed are
// recorded in the session beside its result, naming the call by its
// idempotency key.
func TestFileChangesJournaled(t *testing.T) {
	e := newEnv(t)
	stateDir := filepath.Join(e.home, "state")
	srv := modeltest.NewServer(t,
		sse(toolBody("w1", "write_file", `{"path":"notes/todo.txt","content":"ship it\n"}`)),
		sse(textBody("written")),
	)
	res := e.run(t, "run", "--state-dir", stateDir, "--output-format", "json", "-e", srv.URL, "write the todo")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	ctx := context.Background()
	store, err := session.Open(ctx, session.Config{Path: filepath.Join(stateDir, session.DatabaseFile)})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	latest, err := store.Latest(ctx, e.workspace)
	if err != nil {
		t.Fatal(err)
	}
	var key string
	var changes []*agent.FileChange
	for rec, err := range store.Events(ctx, latest.ID) {
		if err != nil {
			t.Fatal(err)
		}
		switch rec.Event.Type {
		case agent.EventToolCall:
			key = rec.Event.IdempotencyKey
		case agent.EventFileChange:
			changes = append(changes, rec.Event.FileChange)
		}
	}
	if len(changes) != 1 {
		t.Fatalf("the session holds %d file changes, want 1", len(changes))
	}
	c := changes[0]
	if c.Path != "notes/todo.txt" || c.Kind != "create" || c.CallKey == "" || c.CallKey != key || c.AfterSize != int64(len("ship it\n")) || c.AfterHash == "" {
		t.Errorf("file change = %+v (call key %q)", *c, key)
	}
}
