package sessiontest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

// Create with an empty id mints a fresh one each time and returns the
// stored Info: status new, no events, the title cut to TitleMax bytes.
func testCreateMintsIDs(t *testing.T, s session.Store) {
	long := strings.Repeat("ünïcode ", session.TitleMax) // multi-byte runes across the cut
	a := create(t, s, session.Info{Workspace: workspace("a"), Title: long, Model: "m1"})
	b := create(t, s, session.Info{Workspace: workspace("a")})
	if a.ID == "" || b.ID == "" || a.ID == b.ID {
		t.Fatalf("minted ids %q and %q: want two distinct non-empty ids", a.ID, b.ID)
	}
	if a.Status != session.StatusNew || a.Events != 0 || a.Workspace != workspace("a") || a.Model != "m1" {
		t.Errorf("Create returned %+v: want status %q, 0 events, the workspace and model given", a, session.StatusNew)
	}
	if a.Created.IsZero() || a.Updated.IsZero() {
		t.Errorf("Create returned Created %v, Updated %v: want both set", a.Created, a.Updated)
	}
	stored := get(t, s, a.ID)
	for _, in := range []session.Info{a, stored} {
		if len(in.Title) > session.TitleMax || !utf8.ValidString(in.Title) || in.Title == "" {
			t.Errorf("title %q (%d bytes): want valid UTF-8, non-empty, at most TitleMax (%d) bytes", in.Title, len(in.Title), session.TitleMax)
		}
	}
	if stored.ID != a.ID || stored.Title != a.Title || stored.Status != a.Status || stored.Model != a.Model || !stored.Created.Equal(a.Created) {
		t.Errorf("Get = %+v, want what Create returned: %+v", stored, a)
	}
}

// Create keeps a given id; a second session with the same id is refused.
func testCreateKeepsGivenID(t *testing.T, s session.Store) {
	in := create(t, s, session.Info{ID: "given-id_1.x"})
	if in.ID != "given-id_1.x" {
		t.Fatalf("Create with ID %q stored %q", "given-id_1.x", in.ID)
	}
	if _, err := s.Create(ctx(t), session.Info{ID: "given-id_1.x", Workspace: workspace("w")}); err == nil {
		t.Error("a second Create with the same id succeeded")
	}
	if got := get(t, s, in.ID); got.Workspace != workspace("w") {
		t.Errorf("after the refused duplicate, Get = %+v", got)
	}
}

// Create needs a workspace.
func testCreateRefuses(t *testing.T, s session.Store) {
	if _, err := s.Create(ctx(t), session.Info{}); err == nil {
		t.Error("Create without a workspace succeeded")
	}
	list, err := s.List(ctx(t), session.Filter{Limit: -1})
	if err != nil || len(list) != 0 {
		t.Errorf("after a refused Create, List = %v, %v; want no sessions", describe(list), err)
	}
}

// Get takes an id or a unique prefix; an ambiguous prefix is ErrAmbiguous.
func testGetByPrefix(t *testing.T, s session.Store) {
	for _, id := range []string{"pre-aaa1", "pre-aaa2", "pre-bbb"} {
		create(t, s, session.Info{ID: id})
	}
	if got := get(t, s, "pre-b"); got.ID != "pre-bbb" {
		t.Errorf("Get(prefix pre-b) = %s, want pre-bbb", got.ID)
	}
	if got := get(t, s, "pre-aaa1"); got.ID != "pre-aaa1" {
		t.Errorf("Get(pre-aaa1) = %s", got.ID)
	}
	_, err := s.Get(ctx(t), "pre-aaa")
	mustFail(t, "Get(ambiguous prefix)", err, session.ErrAmbiguous)
	_, err = s.Get(ctx(t), "pre")
	mustFail(t, "Get(prefix of all three)", err, session.ErrAmbiguous)
}

// List returns sessions across workspaces, most recently updated first; a
// journal's appends update a session.
func testListOrderAndFilter(t *testing.T, s session.Store) {
	a := create(t, s, session.Info{Workspace: workspace("a")})
	b := create(t, s, session.Info{Workspace: workspace("b")})
	c := create(t, s, session.Info{Workspace: workspace("a")})
	j := journal(t, s, a.ID)
	appendAll(t, j, started(a.ID), message(a.ID, 1, model.UserText("first prompt")))
	closeJournal(t, j)

	all, err := s.List(ctx(t), session.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(all), []string{a.ID, c.ID, b.ID}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v (most recently updated first)", got, want)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Updated.After(all[i-1].Updated) {
			t.Errorf("List: %s (updated %v) after %s (updated %v)", all[i].ID, all[i].Updated, all[i-1].ID, all[i-1].Updated)
		}
	}
	onlyA, err := s.List(ctx(t), session.Filter{Workspace: workspace("a")})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(onlyA), []string{a.ID, c.ID}; !slices.Equal(got, want) {
		t.Errorf("List(workspace a) = %v, want %v", got, want)
	}
	none, err := s.List(ctx(t), session.Filter{Workspace: workspace("nowhere")})
	if err != nil || len(none) != 0 {
		t.Errorf("List(empty workspace) = %v, %v; want none", describe(none), err)
	}
}

// Filter.Limit: 0 means DefaultListLimit, negative no limit.
func testListLimits(t *testing.T, s session.Store) {
	n := session.DefaultListLimit + 2
	for range n {
		create(t, s, session.Info{})
	}
	for _, tt := range []struct{ limit, want int }{{0, session.DefaultListLimit}, {-1, n}, {3, 3}, {n + 10, n}} {
		list, err := s.List(ctx(t), session.Filter{Limit: tt.limit})
		if err != nil || len(list) != tt.want {
			t.Errorf("List(Limit %d) returned %d sessions, %v; want %d", tt.limit, len(list), err, tt.want)
		}
	}
}

// Latest is the most recently updated session of a workspace.
func testLatest(t *testing.T, s session.Store) {
	_, err := s.Latest(ctx(t), workspace("a"))
	mustFail(t, "Latest of an empty store", err, session.ErrNotFound)
	a := create(t, s, session.Info{Workspace: workspace("a")})
	b := create(t, s, session.Info{Workspace: workspace("a")})
	other := create(t, s, session.Info{Workspace: workspace("b")})
	if got, err := s.Latest(ctx(t), workspace("a")); err != nil || got.ID != b.ID {
		t.Errorf("Latest = %s, %v; want the newer %s", got.ID, err, b.ID)
	}
	j := journal(t, s, a.ID)
	appendAll(t, j, started(a.ID))
	closeJournal(t, j)
	if got, err := s.Latest(ctx(t), workspace("a")); err != nil || got.ID != a.ID {
		t.Errorf("after a run of %s, Latest = %s, %v; want %s", a.ID, got.ID, err, a.ID)
	}
	if got, err := s.Latest(ctx(t), workspace("b")); err != nil || got.ID != other.ID {
		t.Errorf("Latest(b) = %s, %v; want %s", got.ID, err, other.ID)
	}
	// No session has the empty workspace (Create needs one): Latest("")
	// must not hand out another workspace's session.
	if got, err := s.Latest(ctx(t), ""); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Latest(\"\") = %s, %v; want ErrNotFound", got.ID, err)
	}
}

// Every method taking an id reports an unknown one as ErrNotFound.
func testUnknownIDs(t *testing.T, s session.Store) {
	create(t, s, session.Info{ID: "known"})
	for _, id := range []string{"unknown", "knownx", ""} {
		_, err := s.Get(ctx(t), id)
		mustFail(t, "Get("+id+")", err, session.ErrNotFound)
		j, err := s.Journal(ctx(t), id)
		if j != nil {
			j.Close()
		}
		mustFail(t, "Journal("+id+")", err, session.ErrNotFound)
		_, err = s.Load(ctx(t), id)
		mustFail(t, "Load("+id+")", err, session.ErrNotFound)
		_, err = s.Fork(ctx(t), id)
		mustFail(t, "Fork("+id+")", err, session.ErrNotFound)
		mustFail(t, "Delete("+id+")", s.Delete(ctx(t), id), session.ErrNotFound)
		var evErr error
		n := 0
		for _, err := range s.Events(ctx(t), id) {
			n++
			evErr = err
		}
		if n != 1 {
			t.Errorf("Events(%s) yielded %d items, want exactly one error", id, n)
		}
		mustFail(t, "Events("+id+")", evErr, session.ErrNotFound)
	}
	if got := get(t, s, "known"); got.ID != "known" {
		t.Errorf("the known session is gone: %+v", got)
	}
}

// Fork copies a session, events included, into a new one whose Parent is
// the original and whose title says it is a fork; the two go their own
// ways after.
func testFork(t *testing.T, s session.Store) {
	src := create(t, s, session.Info{ID: "0123456789abcdef", Workspace: workspace("f"), Model: "m"})
	j := journal(t, s, src.ID)
	appendAll(t, j, started(src.ID), message(src.ID, 1, model.UserText("original prompt")),
		message(src.ID, 2, model.AssistantText("answer")), completed(src.ID, 3, agent.Complete))
	closeJournal(t, j)
	before := records(t, s, src.ID)

	id, err := s.Fork(ctx(t), src.ID[:6]) // a prefix names the parent
	if err != nil {
		t.Fatal(err)
	}
	if id == "" || id == src.ID {
		t.Fatalf("Fork returned id %q", id)
	}
	fork := get(t, s, id)
	if fork.Parent != src.ID || fork.Workspace != src.Workspace {
		t.Errorf("fork %+v: want Parent %s and workspace %s", fork, src.ID, src.Workspace)
	}
	if want := "fork of 01234567: original prompt"; fork.Title != want {
		t.Errorf("fork title %q, want %q", fork.Title, want)
	}
	if fork.Events != int64(len(before)) {
		t.Errorf("fork has %d events, the parent %d", fork.Events, len(before))
	}
	forked := records(t, s, id)
	checkSeqs(t, forked)
	if len(forked) != len(before) {
		t.Fatalf("fork's Events yielded %d records, the parent's %d", len(forked), len(before))
	}
	for i := range forked {
		if forked[i].Event.Type != before[i].Event.Type || !sameMessage(forked[i].Event.Message, before[i].Event.Message) {
			t.Errorf("fork record %d = %s, parent's %s", i+1, forked[i].Event.Type, before[i].Event.Type)
		}
		if forked[i].Event.RunID != id {
			t.Errorf("fork record %d has RunID %q, want the fork's id %s", i+1, forked[i].Event.RunID, id)
		}
	}

	// A fork of a session whose run is going on includes what its
	// journal batched so far.
	j = journal(t, s, src.ID)
	appendAll(t, j, started(src.ID), usageEvent(src.ID, 4, 1, 1))
	live, err := s.Fork(ctx(t), src.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(records(t, s, live)), len(before)+2; got != want {
		t.Errorf("a fork during a run has %d events, want %d", got, want)
	}
	closeJournal(t, j)
	before = records(t, s, src.ID)

	jf := journal(t, s, id)
	appendAll(t, jf, message(id, 4, model.UserText("only in the fork")))
	closeJournal(t, jf)
	if n := len(records(t, s, src.ID)); n != len(before) {
		t.Errorf("appending to the fork changed the parent: %d events, want %d", n, len(before))
	}
	if got := get(t, s, src.ID); got.Parent != "" || got.Title != "original prompt" {
		t.Errorf("the parent changed: %+v", got)
	}
}

// Delete removes a session and its events, and nothing else.
func testDelete(t *testing.T, s session.Store) {
	gone := create(t, s, session.Info{})
	kept := create(t, s, session.Info{})
	for _, id := range []string{gone.ID, kept.ID} {
		j := journal(t, s, id)
		appendAll(t, j, started(id), message(id, 1, model.UserText("prompt of "+id)))
		closeJournal(t, j)
	}
	if err := s.Delete(ctx(t), gone.ID); err != nil {
		t.Fatal(err)
	}
	_, err := s.Get(ctx(t), gone.ID)
	mustFail(t, "Get after Delete", err, session.ErrNotFound)
	_, err = s.Load(ctx(t), gone.ID)
	mustFail(t, "Load after Delete", err, session.ErrNotFound)
	mustFail(t, "a second Delete", s.Delete(ctx(t), gone.ID), session.ErrNotFound)
	list, err := s.List(ctx(t), session.Filter{Limit: -1})
	if err != nil || !slices.Equal(ids(list), []string{kept.ID}) {
		t.Errorf("List after Delete = %v, %v; want just %s", describe(list), err, kept.ID)
	}
	if n := len(records(t, s, kept.ID)); n != 2 {
		t.Errorf("the other session has %d events after the Delete, want 2", n)
	}
	// A new session may take the deleted one's id, and starts empty.
	again := create(t, s, session.Info{ID: gone.ID})
	if again.Events != 0 || len(records(t, s, again.ID)) != 0 {
		t.Errorf("a session re-created with a deleted id has events: %+v", again)
	}
}

func sameMessage(a, b *model.Message) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Role == b.Role && a.Text() == b.Text() && len(a.Parts) == len(b.Parts)
}
