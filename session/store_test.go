package session_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

func TestCreateGetListAcrossWorkspaces(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	wsA, wsB := "/src/alpha", "/src/beta"
	a1 := create(t, s, wsA)
	b1 := create(t, s, wsB)
	a2 := create(t, s, wsA)

	// Touch a1 last so it sorts first.
	j, err := s.Journal(ctx, a1.ID)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, j, a1.ID, agent.Event{Type: agent.EventSessionStarted}, msgEvent(model.UserText("fix   the\nbug please")))
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	all, err := s.List(ctx, session.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ ID, Workspace, Title, Status string }
	var got []row
	for _, in := range all {
		got = append(got, row{in.ID, in.Workspace, in.Title, in.Status})
	}
	want := []row{
		{a1.ID, wsA, "fix the bug please", session.StatusRunning},
		{a2.ID, wsA, "", session.StatusNew},
		{b1.ID, wsB, "", session.StatusNew},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}

	onlyB, err := s.List(ctx, session.Filter{Workspace: wsB})
	if err != nil || len(onlyB) != 1 || onlyB[0].ID != b1.ID {
		t.Errorf("List(workspace %s) = %v, %v; want just %s", wsB, onlyB, err, b1.ID)
	}
	limited, err := s.List(ctx, session.Filter{Limit: 2})
	if err != nil || len(limited) != 2 {
		t.Errorf("List(limit 2) returned %d sessions, %v", len(limited), err)
	}
	latest, err := s.Latest(ctx, wsA)
	if err != nil || latest.ID != a1.ID {
		t.Errorf("Latest(%s) = %s, %v; want %s", wsA, latest.ID, err, a1.ID)
	}
	if _, err := s.Latest(ctx, "/nowhere"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Latest(empty workspace) error = %v, want ErrNotFound", err)
	}
	info, err := s.Get(ctx, a1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if info.Events != 2 || info.Model != "test-model" {
		t.Errorf("Get: events %d model %q; want 2, test-model", info.Events, info.Model)
	}
}

func TestResolvePrefixes(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	for _, id := range []string{"abc111", "abc222", "xyz_1"} {
		if _, err := s.Create(ctx, session.Info{ID: id, Workspace: "/w"}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		id   string
		want string
		err  error
	}{
		{"abc111", "abc111", nil},
		{"abc1", "abc111", nil},
		{"abc", "", session.ErrAmbiguous},
		{"xyz", "xyz_1", nil},
		{"xyz%", "", session.ErrNotFound}, // LIKE wildcards are literal
		{"x_z", "", session.ErrNotFound},
		{"nope", "", session.ErrNotFound},
		{"", "", session.ErrNotFound},
	}
	for _, tt := range tests {
		info, err := s.Get(ctx, tt.id)
		if !errors.Is(err, tt.err) || (tt.err == nil && info.ID != tt.want) {
			t.Errorf("Get(%q) = %q, %v; want %q, %v", tt.id, info.ID, err, tt.want, tt.err)
		}
	}
}

func TestCreateRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	for _, in := range []session.Info{
		{Workspace: "relative/dir"},
		{Workspace: ""},
		{ID: "../etc/passwd", Workspace: "/w"},
		{ID: ".hidden", Workspace: "/w"},
		{ID: "a b", Workspace: "/w"},
		{ID: strings.Repeat("a", 129), Workspace: "/w"},
	} {
		if _, err := s.Create(ctx, in); err == nil {
			t.Errorf("Create(%+v) succeeded, want an error", in)
		}
	}
	if _, err := s.Create(ctx, session.Info{ID: "dup", Workspace: "/w"}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Create(ctx, session.Info{ID: "dup", Workspace: "/w"})
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second Create(dup) error = %v, want 'already exists'", err)
	}
}

func TestTitleIsRedactedAndClipped(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	long := "use key sk-proj-ABCDEFGHIJKLMNOPQRSTUV then " + strings.Repeat("ü", 200)
	appendAll(t, j, info.ID, msgEvent(model.UserText(long)), msgEvent(model.UserText("second prompt")))
	j.Close()
	got, err := s.Get(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got.Title, "sk-proj") || !strings.HasPrefix(got.Title, "use key [REDACTED] then ü") {
		t.Errorf("title %q: want the first prompt, redacted", got.Title)
	}
	if len(got.Title) > session.TitleMax || !strings.HasSuffix(got.Title, "…") {
		t.Errorf("title is %d bytes (%q); want at most %d ending in …", len(got.Title), got.Title, session.TitleMax)
	}
}

func TestForkCopiesEventsAndDiverges(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	parent := create(t, s, "/w")
	j, err := s.Journal(ctx, parent.ID)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, j, parent.ID, msgEvent(model.UserText("one")), msgEvent(model.AssistantText("two")))
	// Fork while the parent's journal is open: pending events are
	// flushed first, so the fork sees all of them.
	forkID, err := s.Fork(ctx, parent.ID)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, j, parent.ID, msgEvent(model.UserText("parent only")))
	j.Close()

	fj, err := s.Journal(ctx, forkID)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, fj, forkID, msgEvent(model.UserText("fork only")))
	fj.Close()

	ps, err := s.Load(ctx, parent.ID)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := s.Load(ctx, forkID)
	if err != nil {
		t.Fatal(err)
	}
	texts := func(msgs []model.Message) []string {
		var out []string
		for _, m := range msgs {
			out = append(out, m.Text())
		}
		return out
	}
	if diff := cmp.Diff([]string{"one", "two", "parent only"}, texts(ps.Messages)); diff != "" {
		t.Errorf("parent messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"one", "two", "fork only"}, texts(fs.Messages)); diff != "" {
		t.Errorf("fork messages (-want +got):\n%s", diff)
	}
	if fs.Info.Parent != parent.ID || fs.Info.Title != "fork of "+parent.ID[:min(8, len(parent.ID))]+": one" || fs.Info.Workspace != "/w" {
		t.Errorf("fork info %+v: want parent %s, title 'fork of …: one', workspace /w", fs.Info, parent.ID)
	}
	for r, err := range s.Events(ctx, forkID) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Event.RunID != forkID {
			t.Errorf("fork event %d has RunID %q, want %q", r.Seq, r.Event.RunID, forkID)
		}
	}
}

func TestDelete(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, j, info.ID, msgEvent(model.UserText("x")))
	if err := s.Delete(ctx, info.ID); err == nil {
		t.Error("Delete with an open journal succeeded; want an error")
	}
	j.Close()
	if err := s.Delete(ctx, info.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, info.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Get after Delete: %v, want ErrNotFound", err)
	}
	n := 0
	for _, err := range s.Events(ctx, info.ID) {
		if !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Events after Delete: %v, want ErrNotFound", err)
		}
		n++
	}
	if n != 1 {
		t.Errorf("Events after Delete yielded %d items, want 1 error", n)
	}
	if err := s.Delete(ctx, info.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("second Delete: %v, want ErrNotFound", err)
	}
	locks, _ := filepath.Glob(filepath.Join(filepath.Dir(s.Path()), "locks", info.ID+"*"))
	if len(locks) != 0 {
		t.Errorf("lock files left after Delete: %v", locks)
	}
}

func TestStateDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name     string
		override string
		env      map[string]string
		want     string
		wantErr  bool
	}{
		{"override", "/tmp/st", map[string]string{"HOME": "/h"}, "/tmp/st", false},
		{"xdg", "", map[string]string{"HOME": "/h", "XDG_STATE_HOME": "/x"}, "/x/rein", false},
		{"relative xdg ignored", "", map[string]string{"HOME": "/h", "XDG_STATE_HOME": "x"}, "/h/.local/state/rein", false},
		{"home", "", map[string]string{"HOME": "/h"}, "/h/.local/state/rein", false},
		{"nothing", "", map[string]string{}, "", true},
	}
	for _, tt := range tests {
		got, err := session.StateDir(tt.override, env(tt.env))
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: StateDir = %q, %v; want %q (error %v)", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestClosedStore(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	info := create(t, s, "/w")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err == nil {
		t.Error("Close with an open journal succeeded; want an error")
	}
	j.Close()
	if err := j.Append(ctx, agent.Event{Type: agent.EventUsage, RunID: info.ID}); !errors.Is(err, session.ErrClosed) {
		t.Errorf("Append after journal Close: %v, want ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ctx, session.Filter{}); !errors.Is(err, session.ErrClosed) {
		t.Errorf("List after Close: %v, want ErrClosed", err)
	}
}
