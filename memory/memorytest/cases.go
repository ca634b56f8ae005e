package memorytest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/reinharness/rein/memory"
)

// SecretKey is a key the redactor recognises by its form.
const SecretKey = "sk-live0123456789abcdefABCDEF"

func testRedaction(t *testing.T, open Open) {
	s := fresh(t, open, memory.Limits{})
	ctx := context.Background()
	e := put(t, s, ws(WorkspaceA, `the staging key is `+SecretKey+` and {"password": "hunter2hunter2"}`, "key "+SecretKey[:20]))
	got, err := s.Get(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	all := describe(got) + describe(e)
	for _, leak := range []string{SecretKey, "hunter2hunter2"} {
		if strings.Contains(all, leak) {
			t.Errorf("secret %q reached the store: %s", leak, all)
		}
	}
	if !strings.Contains(got.Text, "[REDACTED]") || !strings.Contains(got.Text, "the staging key is") {
		t.Errorf("redacted text = %q: want the note kept and the secret marked", got.Text)
	}
	if hits, _ := s.Search(ctx, "hunter2hunter2", memory.Filter{Workspace: WorkspaceA}); len(hits) != 0 {
		t.Errorf("the redacted secret is searchable: %+v", hits)
	}
}

func testInvalid(t *testing.T, open Open) {
	s := fresh(t, open, memory.Limits{})
	for name, e := range map[string]memory.Entry{
		"empty text":         ws(WorkspaceA, "   \n"),
		"bad scope":          {Scope: "team", Text: "x"},
		"no scope":           {Text: "x"},
		"no workspace":       ws("", "x"),
		"relative workspace": ws("rel/dir", "x"),
		"bad source":         {Scope: memory.ScopeUser, Text: "x", Source: memory.Source{Kind: "system"}},
		"bad utf8":           ws(WorkspaceA, "a\xffb"),
		"long tag":           ws(WorkspaceA, "x", strings.Repeat("t", memory.MaxTagBytes+1)),
		"control in tag":     ws(WorkspaceA, "x", "a\nb"),
		"too many tags":      ws(WorkspaceA, "x", strings.Fields(strings.Repeat("t ", 1)+"a b c d e f g h i j k l m n o p q")...),
	} {
		if _, err := s.Put(context.Background(), e); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("%s: Put err = %v, want ErrInvalid", name, err)
		}
	}
	if list, _ := s.List(context.Background(), memory.Filter{AllWorkspaces: true}); len(list) != 0 {
		t.Errorf("invalid entries were stored: %+v", list)
	}
}

func testEntryCap(t *testing.T, open Open) {
	s := fresh(t, open, memory.Limits{MaxEntryBytes: 100})
	put(t, s, ws(WorkspaceA, strings.Repeat("a", 100)))
	_, err := s.Put(context.Background(), ws(WorkspaceA, strings.Repeat("b", 101)))
	if !errors.Is(err, memory.ErrTooLarge) || !strings.Contains(err.Error(), "100") {
		t.Errorf("101-byte entry: err = %v, want ErrTooLarge naming the limit", err)
	}
}

func testTotalCap(t *testing.T, open Open) {
	s := fresh(t, open, memory.Limits{MaxEntryBytes: 100, MaxTotalBytes: 250})
	ctx := context.Background()
	a := put(t, s, ws(WorkspaceA, strings.Repeat("a", 100)))
	put(t, s, ws(WorkspaceB, strings.Repeat("b", 100)))
	_, err := s.Put(ctx, user(strings.Repeat("c", 100)))
	if !errors.Is(err, memory.ErrFull) || !strings.Contains(err.Error(), "rein memory rm") {
		t.Fatalf("over the total: err = %v, want ErrFull saying how to make room", err)
	}
	// Replacing an entry counts its new size, not both.
	if _, err := s.Put(ctx, memory.Entry{ID: a.ID, Text: strings.Repeat("d", 100), Source: memory.Source{Kind: memory.SourceUser}}); err != nil {
		t.Fatalf("replacing an entry in a full store: %v", err)
	}
	if err := s.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	put(t, s, user(strings.Repeat("c", 100)))
}

func testSearch(t *testing.T, open Open) {
	s := fresh(t, open, memory.Limits{})
	ctx := context.Background()
	f := memory.Filter{Workspace: WorkspaceA}
	both := put(t, s, ws(WorkspaceA, "The database is PostgreSQL 16; migrations run with goose"))
	one := put(t, s, ws(WorkspaceA, "Use goose for nothing else"))
	put(t, s, ws(WorkspaceA, "unrelated note about tabs"))
	hits, err := s.Search(ctx, "postgres goose", f)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].ID != both.ID || hits[1].ID != one.ID {
		t.Fatalf("Search(postgres goose) = %v, want [%s (both terms, prefix match), %s]", hitText(hits), both.Text, one.Text)
	}
	if hits[0].Score <= hits[1].Score {
		t.Errorf("scores not descending: %v", hits)
	}
	if hits, _ = s.Search(ctx, `"migrations run"`, f); len(hits) != 1 || hits[0].ID != both.ID {
		t.Errorf("phrase search = %v", hitText(hits))
	}
	if hits, _ = s.Search(ctx, `"run migrations"`, f); len(hits) != 0 {
		t.Errorf("phrase in the wrong order matched: %v", hitText(hits))
	}
	if hits, _ = s.Search(ctx, "", f); len(hits) != 0 {
		t.Errorf("empty query matched %v", hitText(hits))
	}
	if hits, _ = s.Search(ctx, "postgres", memory.Filter{Workspace: WorkspaceA, Limit: 1}); len(hits) != 1 {
		t.Errorf("limit 1: %d hits", len(hits))
	}
}

func hitText(hs []memory.Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%q(%.3f)", h.Text, h.Score))
	}
	return out
}

func testSearchTags(t *testing.T, open Open) {
	s := fresh(t, open, memory.Limits{})
	ctx := context.Background()
	f := memory.Filter{Workspace: WorkspaceA}
	tagged := put(t, s, ws(WorkspaceA, "deploy on fridays is banned", "ops"))
	put(t, s, ws(WorkspaceA, "deploy docs live in docs/deploy.md", "docs"))
	put(t, s, ws(WorkspaceA, "opsx is not a tag match", "opsx"))
	hits, _ := s.Search(ctx, "deploy tag:ops", f)
	if len(hits) != 1 || hits[0].ID != tagged.ID {
		t.Errorf("deploy tag:ops = %v", hitText(hits))
	}
	if hits, _ = s.Search(ctx, "tag:OPS", f); len(hits) != 1 || hits[0].ID != tagged.ID {
		t.Errorf("tag:OPS alone = %v", hitText(hits))
	}
	if hits, _ = s.Search(ctx, "ops", f); len(hits) < 1 {
		t.Errorf("a tag is searchable as a word: %v", hitText(hits))
	}
}

func testHostileQueries(t *testing.T, open Open) {
	s := fresh(t, open, memory.Limits{})
	put(t, s, ws(WorkspaceA, `quote " and star * and NEAR(a b) text:col`))
	for _, q := range []string{`"`, `""`, `*`, `NEAR(`, `a AND OR NOT`, `text:col`, `^x`, `'; DROP TABLE entries; --`, "\x00", `"unterminated phrase`, `-x +y (z)`, strings.Repeat("a ", 5000), "tag:", `tag:"x"`} {
		if _, err := s.Search(context.Background(), q, memory.Filter{Workspace: WorkspaceA}); err != nil {
			t.Errorf("Search(%.30q): %v", q, err)
		}
	}
	if hits, _ := s.Search(context.Background(), `near`, memory.Filter{Workspace: WorkspaceA}); len(hits) != 1 {
		t.Errorf("operator words are searched as words: %v", hitText(hits))
	}
	if list, _ := s.List(context.Background(), memory.Filter{Workspace: WorkspaceA}); len(list) != 1 {
		t.Errorf("the store changed: %d entries", len(list))
	}
}

func testListOrderAndLimit(t *testing.T, open Open) {
	s := fresh(t, open, memory.Limits{})
	ctx := context.Background()
	var ids []string
	for i := range 5 {
		ids = append(ids, put(t, s, ws(WorkspaceA, fmt.Sprintf("note %d", i))).ID)
	}
	// Touch the first: it becomes the most recent.
	put(t, s, memory.Entry{ID: ids[0], Text: "note 0 again", Source: memory.Source{Kind: memory.SourceUser}})
	list, err := s.List(ctx, memory.Filter{Workspace: WorkspaceA, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ID != ids[0] {
		t.Fatalf("List limit 3 = %+v: want 3, the updated one first", list)
	}
	for i := 1; i < len(list); i++ {
		if list[i].Updated.After(list[i-1].Updated) {
			t.Errorf("List not newest first at %d", i)
		}
	}
}

func testConcurrent(t *testing.T, open Open) {
	s := fresh(t, open, memory.Limits{})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Go(func() {
			_, err := s.Put(ctx, ws(WorkspaceA, fmt.Sprintf("concurrent note %d", i)))
			errs <- err
			_, _ = s.Search(ctx, "concurrent", memory.Filter{Workspace: WorkspaceA})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if list, _ := s.List(ctx, memory.Filter{Workspace: WorkspaceA, Limit: 100}); len(list) != 40 {
		t.Errorf("%d entries after 40 concurrent puts", len(list))
	}
}
