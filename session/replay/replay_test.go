package replay_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/session/replay"
	"github.com/reinharness/rein/tool"
)

type pathIn struct {
	Path string `json:"path"`
	Text string `json:"text,omitempty"`
}

// fileTools are a reader and an appender confined to root by os.Root.
func fileTools(t testing.TB, root string) *tool.Set {
	t.Helper()
	cat := tool.Func("cat", "read a file", func(ctx context.Context, in pathIn) (string, error) {
		r, err := os.OpenRoot(root)
		if err != nil {
			return "", err
		}
		defer r.Close()
		b, err := r.ReadFile(in.Path)
		return string(b), err
	})
	add := tool.Func("add", "append to a file", func(ctx context.Context, in pathIn) (string, error) {
		r, err := os.OpenRoot(root)
		if err != nil {
			return "", err
		}
		defer r.Close()
		f, err := r.OpenFile(in.Path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return "", err
		}
		defer f.Close()
		_, err = f.WriteString(in.Text)
		return "appended", err
	}, tool.WithEffects(tool.Effects{WritesFiles: true}))
	set, err := tool.NewSet(cat, add)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func fcall(id, name, path, text string) model.ToolCall {
	args, _ := json.Marshal(pathIn{Path: path, Text: text})
	return model.ToolCall{ID: id, Name: name, Args: args}
}

// denyAdds is a policy that denies "add" calls to "locked.txt".
type denyAdds struct{}

func (denyAdds) Decide(_ context.Context, c policy.Call) policy.Decision {
	if c.Spec.Name == "add" && strings.Contains(string(c.Args), "locked.txt") {
		return policy.Decision{Action: policy.Deny, Reason: "locked.txt is read-only", Rule: "test"}
	}
	return policy.Decision{Action: policy.Allow}
}

// record runs the script against ws with a journal and returns the store
// and the session id.
func record(t *testing.T, ws string, turns ...modeltest.Turn) (*session.SQLite, string) {
	t.Helper()
	ctx := context.Background()
	store, err := session.Open(ctx, session.Config{Path: filepath.Join(t.TempDir(), "sessions.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	info, err := store.Create(ctx, session.Info{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	j, err := store.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	a, err := agent.New(agent.Config{
		Provider: modeltest.NewScripted(turns...), Tools: fileTools(t, ws), Policy: denyAdds{},
		Journal: j, FanOut: agent.Sequential{}, ContextWindow: 100000,
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.RunToEnd(ctx, agent.NewConversation(info.ID), "edit the notes")
	if err != nil || out.Kind != agent.Complete {
		t.Fatalf("recording run: %+v, %v", out, err)
	}
	return store, info.ID
}

func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

var script = []modeltest.Turn{
	modeltest.ToolCalls(fcall("c1", "cat", "notes.txt", "")),
	modeltest.ToolCalls(fcall("c2", "add", "notes.txt", "line two\n"), fcall("c3", "add", "locked.txt", "x")),
	modeltest.ToolCalls(fcall("c4", "cat", "notes.txt", ""), fcall("c5", "cat", "missing.txt", "")),
	modeltest.Text("done"),
}

func replayIn(t *testing.T, store session.Store, id, ws string, mutate ...func(*replay.Config)) *replay.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir, cleanup, err := replay.Scratch(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	cfg := replay.Config{Store: store, Session: id, Tools: fileTools(t, dir)}
	for _, m := range mutate {
		m(&cfg)
	}
	rep, err := replay.Run(ctx, cfg)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	return rep
}

func TestReplayIdentical(t *testing.T) {
	ws := workspace(t, map[string]string{"notes.txt": "line one\n"})
	store, id := record(t, ws, script...)
	// The recording changed the workspace; replay from the state it
	// started in.
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("line one\n"), 0o644)
	rep := replayIn(t, store, id, ws)
	if rep.Divergence != nil {
		t.Fatalf("divergence in an identical replay:\n%s", rep.Divergence)
	}
	if rep.Compared != 5 || rep.Skipped != 0 {
		t.Errorf("compared %d, skipped %d; want 5, 0", rep.Compared, rep.Skipped)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(got) != "line one\n" {
		t.Errorf("the replay wrote into the real workspace: %q", got)
	}
}

func TestReplayReportsTheFirstDivergence(t *testing.T) {
	ws := workspace(t, map[string]string{"notes.txt": "line one\n"})
	store, id := record(t, ws, script...)
	// The file now starts differently: the very first read diverges.
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("line 1\n"), 0o644)
	rep := replayIn(t, store, id, ws)
	d := rep.Divergence
	if d == nil {
		t.Fatal("no divergence reported")
	}
	if d.Index != 1 || d.CallID != "c1" || d.Tool != "cat" || rep.Compared != 1 {
		t.Errorf("divergence at call %d (%s %s) after %d compared; want call 1 (c1 cat)", d.Index, d.CallID, d.Tool, rep.Compared)
	}
	s := d.String()
	for _, want := range []string{"call 1 (cat, id c1) diverged", "\n--- recorded\n+++ replayed\n@@ -1 +1 @@\n-line one\n+line 1\n", `notes.txt`} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
}

func TestReplayNormalizeAndErrorFlag(t *testing.T) {
	ws := workspace(t, map[string]string{"notes.txt": "line one\n"})
	store, id := record(t, ws, script...)
	// missing.txt now exists: call 5 succeeds where it failed.
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("line one\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "missing.txt"), []byte("here now"), 0o644)
	rep := replayIn(t, store, id, ws)
	if d := rep.Divergence; d == nil || d.Index != 5 || d.Recorded.IsError == d.Replayed.IsError || !strings.Contains(d.String(), "is_error: recorded true, replayed false") {
		t.Fatalf("want call 5 to diverge on is_error, got %+v", d)
	}
	// A normalizer can declare differences irrelevant.
	os.Remove(filepath.Join(ws, "missing.txt"))
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("line 1\n"), 0o644)
	digits := regexp.MustCompile(`one|1`)
	rep = replayIn(t, store, id, ws, func(c *replay.Config) {
		c.Normalize = func(s string) string { return digits.ReplaceAllString(s, "N") }
	})
	if rep.Divergence != nil {
		t.Errorf("normalized replay diverged:\n%s", rep.Divergence)
	}
}

func TestReplayHardDenialDiverges(t *testing.T) {
	ws := workspace(t, map[string]string{"notes.txt": "line one\n"})
	store, id := record(t, ws, script...)
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("line one\n"), 0o644)
	rep := replayIn(t, store, id, ws, func(c *replay.Config) { c.Policy = hardDenyAdds{} })
	if d := rep.Divergence; d == nil || d.Index != 2 || !strings.Contains(d.Replayed.Content, "never in replay") {
		t.Fatalf("want call 2 refused by the hard denial, got %+v", d)
	}
}

type hardDenyAdds struct{}

func (hardDenyAdds) Decide(_ context.Context, c policy.Call) policy.Decision {
	if c.Spec.Name == "add" {
		return policy.Decision{Action: policy.Deny, Hard: true, Reason: "never in replay"}
	}
	// A soft denial must not override the recording.
	return policy.Decision{Action: policy.Deny, Reason: "soft"}
}

// TestReplayAcrossResume replays a session that crashed mid-call and was
// resumed: the interrupted call cannot be compared and is skipped, the
// rest is.
func TestReplayAcrossResume(t *testing.T) {
	ctx := context.Background()
	ws := workspace(t, map[string]string{"notes.txt": "one\n"})
	store, err := session.Open(ctx, session.Config{Path: filepath.Join(t.TempDir(), "sessions.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	info, _ := store.Create(ctx, session.Info{Workspace: ws})
	j, _ := store.Journal(ctx, info.ID)
	c1, c2 := fcall("c1", "cat", "notes.txt", ""), fcall("c2", "add", "notes.txt", "two\n")
	asst := model.Message{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCallPart(c1), model.ToolCallPart(c2)}}
	user := model.UserText("go")
	// A run killed while c2 ran: its result never recorded.
	for _, ev := range []agent.Event{
		{Type: agent.EventSessionStarted},
		{Type: agent.EventMessage, Message: &user},
		{Type: agent.EventMessage, Message: &asst},
		{Type: agent.EventToolCall, ToolCall: &c1},
		{Type: agent.EventToolDecision, Decision: &agent.Decision{CallID: "c1", Action: "allow"}},
		{Type: agent.EventToolCall, ToolCall: &c2},
		{Type: agent.EventToolDecision, Decision: &agent.Decision{CallID: "c2", Action: "allow"}},
		{Type: agent.EventToolResult, ToolResult: &model.ToolResult{CallID: "c1", Name: "cat", Content: "one\n"}},
	} {
		ev.RunID = info.ID
		if err := j.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	res, err := session.Resume(ctx, store, info.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := agent.New(agent.Config{
		Provider: modeltest.NewScripted(modeltest.ToolCalls(fcall("c3", "cat", "notes.txt", "")), modeltest.Text("ok")),
		Tools:    fileTools(t, ws), Journal: res.Journal, ContextWindow: 100000,
	})
	if out, err := a.RunToEnd(ctx, res.Conversation, ""); err != nil || out.Kind != agent.Complete {
		t.Fatalf("resumed run: %+v %v", out, err)
	}
	res.Journal.Close()

	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("one\n"), 0o644)
	rep := replayIn(t, store, info.ID, ws)
	// c2 appends "two" in the replay (the crash prevented it in the
	// recording), so c3 reads "one\ntwo\n" where the recording read
	// "one\n": that is the divergence the crash explains.
	if rep.Skipped != 1 || rep.Divergence == nil || rep.Divergence.CallID != "c3" {
		t.Fatalf("report %+v; want c2 skipped and c3 diverging", rep)
	}
}

func TestReplayErrors(t *testing.T) {
	ctx := context.Background()
	store, err := session.Open(ctx, session.Config{Path: filepath.Join(t.TempDir(), "sessions.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := replay.Run(ctx, replay.Config{Store: store, Session: "nope", Tools: fileTools(t, t.TempDir())}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("unknown session: %v", err)
	}
	info, _ := store.Create(ctx, session.Info{Workspace: "/w"})
	if _, err := replay.Run(ctx, replay.Config{Store: store, Session: info.ID, Tools: fileTools(t, t.TempDir())}); err == nil || !strings.Contains(err.Error(), "nothing to replay") {
		t.Errorf("empty session: %v", err)
	}
	if _, err := replay.Run(ctx, replay.Config{Store: store, Session: info.ID}); err == nil {
		t.Error("no tools: no error")
	}
}

func TestScratchCopiesTheTree(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(src, "a", "b", "f.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(src, "top.txt"), []byte("top"), 0o600)
	os.Symlink("a/b/f.sh", filepath.Join(src, "link"))
	dir, cleanup, err := replay.Scratch(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "a", "b", "f.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("f.sh: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "top.txt")); string(b) != "top" {
		t.Errorf("top.txt = %q", b)
	}
	if l, err := os.Readlink(filepath.Join(dir, "link")); err != nil || l != "a/b/f.sh" {
		t.Errorf("link = %q, %v", l, err)
	}
	cleanup()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("cleanup left the scratch directory")
	}
	if _, _, err := replay.Scratch(context.Background(), filepath.Join(src, "top.txt")); err == nil {
		t.Error("Scratch of a file succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := replay.Scratch(ctx, src); !errors.Is(err, context.Canceled) {
		t.Errorf("Scratch with a cancelled context: %v", err)
	}
}

// TestReplayReusedCallIDs: a recording from a server that names every
// call call_0 replays call by call: each replayed result is compared with
// its own turn's recorded one, not with the first call_0's.
func TestReplayReusedCallIDs(t *testing.T) {
	reused := []modeltest.Turn{
		modeltest.ToolCalls(fcall("call_0", "cat", "notes.txt", "")),
		modeltest.ToolCalls(fcall("call_0", "add", "notes.txt", "line two\n")),
		modeltest.ToolCalls(fcall("call_0", "cat", "notes.txt", "")),
		modeltest.ToolCalls(fcall("call_0", "add", "locked.txt", "x")),
		modeltest.Text("done"),
	}
	ws := workspace(t, map[string]string{"notes.txt": "line one\n"})
	store, id := record(t, ws, reused...)
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("line one\n"), 0o644)
	rep := replayIn(t, store, id, ws)
	if rep.Divergence != nil {
		t.Fatalf("divergence in an identical replay:\n%s", rep.Divergence)
	}
	if rep.Compared != 4 {
		t.Errorf("compared %d, want 4", rep.Compared)
	}

	// A changed workspace diverges at the first call, named by its
	// position.
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("line 1\n"), 0o644)
	rep = replayIn(t, store, id, ws)
	if d := rep.Divergence; d == nil || d.Index != 1 || d.CallID != "call_0" {
		t.Fatalf("divergence %+v, want call 1 (call_0)", d)
	}
}
