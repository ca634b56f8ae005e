package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
)

// TestSecretsNeverEnterTheHistory: a worker holds a GITHUB_TOKEN in its
// environment and the workspace holds it in a file; a hostile model reads
// the file and repeats the token. No event of the workflow history (the
// session's durable store), no query answer and no follower output holds
// it.
func TestSecretsNeverEnterTheHistory(t *testing.T) {
	const token = "gtok-Temporal7Hq2mZ9xK4pW1"
	c := newCluster(t)
	ws := c.dir("ws")
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("GITHUB_TOKEN="+token+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := c.newHome("w", workerConfig)
	h.env = append(h.env, "GITHUB_TOKEN="+token)
	c.startWorker("worker", h, ws)
	rc := c.newClient(ws)
	c.model.script("leak", fixed(
		toolStep("read_file", jsonArgs(map[string]string{"path": "notes.txt"})),
		toolStep("write_file", jsonArgs(map[string]string{"path": "copy.txt", "content": "stolen " + token})),
		textStep("The token is "+token+"."),
	))
	p, id := rc.follow("--workspace", "ws", "e2e:leak show me the token")
	if code := p.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("rein submit --follow exited %d\nstderr:\n%s", code, p.stderr)
	}
	if strings.Contains(p.stdout.String()+p.stderr.String(), token) {
		t.Errorf("the follower's output holds the token:\n%s", p.stdout)
	}
	if r := rc.cmd("status", 30*time.Second, "--format", "json", id); strings.Contains(r.stdout, token) {
		t.Errorf("rein status holds the token:\n%s", r.stdout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	it := c.client.GetWorkflowHistory(ctx, id, "", false, 0)
	n := 0
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		n++
		b, err := proto.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), token) {
			t.Errorf("history event %d (%s) holds the token", ev.GetEventId(), ev.GetEventType())
		}
	}
	if n < 10 {
		t.Fatalf("only %d history events; the test lost its point", n)
	}
	// The model was given the file (redaction is of what is stored, and
	// here of what the history carries to the model too).
	if reqs := c.model.requestsFor("leak"); len(reqs) < 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
}
