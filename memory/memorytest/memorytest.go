// Package memorytest is the conformance suite for memory.Store
// implementations: Run it from a test with a function that opens a fresh,
// empty store with the given limits.
package memorytest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/reinharness/rein/memory"
)

// Open returns a new empty store enforcing l (zero fields: defaults). The
// suite closes it.
type Open func(t *testing.T, l memory.Limits) memory.Store

// Workspaces used by the suite.
const (
	WorkspaceA = "/work/a"
	WorkspaceB = "/work/b"
)

// Run runs every conformance test against stores from open.
func Run(t *testing.T, open Open) {
	tests := []struct {
		name string
		fn   func(*testing.T, Open)
	}{
		{"PutGet", testPutGet},
		{"Update", testUpdate},
		{"Delete", testDelete},
		{"Scopes", testScopes},
		{"Redaction", testRedaction},
		{"Invalid", testInvalid},
		{"EntryCap", testEntryCap},
		{"TotalCap", testTotalCap},
		{"Search", testSearch},
		{"SearchTags", testSearchTags},
		{"HostileQueries", testHostileQueries},
		{"ListOrderAndLimit", testListOrderAndLimit},
		{"Concurrent", testConcurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

func fresh(t *testing.T, open Open, l memory.Limits) memory.Store {
	t.Helper()
	s := open(t, l)
	t.Cleanup(func() { s.Close() })
	return s
}

func put(t *testing.T, s memory.Store, e memory.Entry) memory.Entry {
	t.Helper()
	got, err := s.Put(context.Background(), e)
	if err != nil {
		t.Fatalf("Put(%q): %v", e.Text, err)
	}
	return got
}

func ws(ws, text string, tags ...string) memory.Entry {
	return memory.Entry{Scope: memory.ScopeWorkspace, Workspace: ws, Text: text, Tags: tags, Source: memory.Source{Kind: memory.SourceAgent, SessionID: "s1"}}
}

func user(text string) memory.Entry {
	return memory.Entry{Scope: memory.ScopeUser, Text: text, Source: memory.Source{Kind: memory.SourceUser}}
}

func testPutGet(t *testing.T, open Open) {
	s := fresh(t, open, memory.Limits{})
	e := put(t, s, ws(WorkspaceA, "  the tests need GOFLAGS=-mod=mod  ", "Build", "build", "go"))
	if !memory.ValidID(e.ID) || e.Created.IsZero() || !e.Updated.Equal(e.Created) {
		t.Fatalf("Put returned %+v: want a valid id and Created == Updated", e)
	}
	got, err := s.Get(context.Background(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%s|workspace|%s|the tests need GOFLAGS=-mod=mod|build,go|agent|s1", e.ID, WorkspaceA)
	if g := describe(got); g != want {
		t.Errorf("Get = %s\nwant  %s", g, want)
	}
	if !got.Created.Equal(e.Created) || !got.Updated.Equal(e.Updated) {
		t.Errorf("times changed in storage: put %v/%v, got %v/%v", e.Created, e.Updated, got.Created, got.Updated)
	}
}

func describe(e memory.Entry) string {
	return strings.Join([]string{e.ID, string(e.Scope), e.Workspace, e.Text, strings.Join(e.Tags, ","), string(e.Source.Kind), e.Source.SessionID}, "|")
}

func testUpdate(t *testing.T, open Open) {
	s := fresh(t, open, memory.Limits{})
	e := put(t, s, ws(WorkspaceA, "old text"))
	upd := memory.Entry{ID: e.ID, Scope: memory.ScopeUser, Text: "new text", Source: memory.Source{Kind: memory.SourceUser}}
	got := put(t, s, upd)
	if got.Scope != memory.ScopeWorkspace || got.Workspace != WorkspaceA || !got.Created.Equal(e.Created) || got.Updated.Before(e.Updated) {
		t.Fatalf("update changed scope, workspace or created, or moved updated back: %+v (was %+v)", got, e)
	}
	stored, _ := s.Get(context.Background(), e.ID)
	if stored.Text != "new text" || stored.Source.Kind != memory.SourceUser {
		t.Fatalf("stored after update: %+v", stored)
	}
	if hits, _ := s.Search(context.Background(), "old", memory.Filter{Workspace: WorkspaceA}); len(hits) != 0 {
		t.Errorf("search still finds the replaced text: %+v", hits)
	}
	if _, err := s.Put(context.Background(), memory.Entry{ID: memory.NewID(), Scope: memory.ScopeUser, Text: "x"}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Put with an unknown id: err = %v, want ErrNotFound", err)
	}
}

func testDelete(t *testing.T, open Open) {
	s := fresh(t, open, memory.Limits{})
	ctx := context.Background()
	e := put(t, s, ws(WorkspaceA, "delete me"))
	if err := s.Delete(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, e.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Get after Delete: %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx, e.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("second Delete: %v, want ErrNotFound", err)
	}
	for _, id := range []string{"", "x", "m'; DROP TABLE entries; --", strings.Repeat("m", 5000)} {
		if _, err := s.Get(ctx, id); !errors.Is(err, memory.ErrNotFound) {
			t.Errorf("Get(%.20q): %v, want ErrNotFound", id, err)
		}
	}
	if hits, _ := s.Search(ctx, "delete", memory.Filter{Workspace: WorkspaceA}); len(hits) != 0 {
		t.Errorf("search finds a deleted entry: %+v", hits)
	}
}

func testScopes(t *testing.T, open Open) {
	s := fresh(t, open, memory.Limits{})
	ctx := context.Background()
	a := put(t, s, ws(WorkspaceA, "alpha deploys with make ship"))
	b := put(t, s, ws(WorkspaceB, "beta deploys with make ship"))
	u := put(t, s, user("the user prefers short answers about ship dates"))
	if u.Workspace != "" {
		t.Errorf("user entry kept a workspace: %q", u.Workspace)
	}
	ids := func(es []memory.Entry) string {
		var out []string
		for _, e := range es {
			out = append(out, e.ID)
		}
		return strings.Join(out, ",")
	}
	hitIDs := func(hs []memory.Hit) []memory.Entry {
		var out []memory.Entry
		for _, h := range hs {
			out = append(out, h.Entry)
		}
		return out
	}
	for _, c := range []struct {
		f    memory.Filter
		want []string
	}{
		{memory.Filter{Workspace: WorkspaceA}, []string{a.ID, u.ID}},
		{memory.Filter{Workspace: WorkspaceB}, []string{b.ID, u.ID}},
		{memory.Filter{Workspace: "/elsewhere"}, []string{u.ID}},
		{memory.Filter{}, []string{u.ID}},
		{memory.Filter{Workspace: WorkspaceA, Scope: memory.ScopeWorkspace}, []string{a.ID}},
		{memory.Filter{Workspace: WorkspaceA, Scope: memory.ScopeUser}, []string{u.ID}},
		{memory.Filter{AllWorkspaces: true}, []string{a.ID, b.ID, u.ID}},
	} {
		list, err := s.List(ctx, c.f)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := s.Search(ctx, "ship", c.f)
		if err != nil {
			t.Fatal(err)
		}
		for what, got := range map[string][]memory.Entry{"List": list, "Search": hitIDs(hits)} {
			if g, w := sorted(ids(got)), sorted(strings.Join(c.want, ",")); g != w {
				t.Errorf("%s(%+v) = %s, want %s", what, c.f, g, w)
			}
		}
	}
	if !a.VisibleIn(WorkspaceA) || a.VisibleIn(WorkspaceB) || !u.VisibleIn(WorkspaceB) {
		t.Error("VisibleIn disagrees with the scopes")
	}
}

func sorted(csv string) string {
	parts := strings.Split(csv, ",")
	for i := range parts {
		for j := i + 1; j < len(parts); j++ {
			if parts[j] < parts[i] {
				parts[i], parts[j] = parts[j], parts[i]
			}
		}
	}
	return strings.Join(parts, ",")
}
