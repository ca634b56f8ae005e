package session_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/reinharness/rein/session"
)

// TestImages: before-images are kept by hash, deduplicated, capped per
// file and per session, copied by Fork, dropped (with unreferenced blobs)
// by Delete, and checked against their hash when read.
func TestImages(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, func(c *session.Config) { c.MaxImageBytes, c.MaxSessionImageBytes = 10, 16 })
	a := create(t, s, "/ws")
	put := func(id, data string) bool {
		t.Helper()
		kept, err := s.PutImage(ctx, id, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return kept
	}
	once, again := put(a.ID, "0123456789"), put(a.ID, "0123456789")
	if !once || !again {
		t.Fatal("a 10-byte image was not kept (or not deduplicated)")
	}
	if put(a.ID, "0123456789A") {
		t.Error("an image over the per-file cap was kept")
	}
	if !put(a.ID, "abcdef") || put(a.ID, "x") {
		t.Error("the per-session cap (16 bytes) is not enforced as 10+6")
	}
	got, ok, err := s.Image(ctx, a.ID, session.ImageHash([]byte("abcdef")))
	if err != nil || !ok || !bytes.Equal(got, []byte("abcdef")) {
		t.Fatalf("Image = %q %v %v", got, ok, err)
	}
	if _, ok, _ := s.Image(ctx, a.ID, session.ImageHash([]byte("x"))); ok {
		t.Error("an image that was not kept is found")
	}
	if err := s.MarkUndone(ctx, a.ID, "k1"); err != nil {
		t.Fatal(err)
	}
	fork, err := s.Fork(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Image(ctx, fork, session.ImageHash([]byte("abcdef"))); !ok {
		t.Error("the fork lacks its parent's images")
	}
	if u, _ := s.Undone(ctx, fork); !u["k1"] {
		t.Error("the fork lacks its parent's undo records")
	}
	if err := s.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Image(ctx, fork, session.ImageHash([]byte("abcdef"))); !ok {
		t.Error("deleting the parent dropped a blob the fork refers to")
	}
	if err := s.Delete(ctx, fork); err != nil {
		t.Fatal(err)
	}
	var blobs int
	if err := session.QueryInt(s, `SELECT COUNT(*) FROM blobs`, &blobs); err != nil || blobs != 0 {
		t.Errorf("%d blobs left after deleting every session (%v)", blobs, err)
	}
	// A damaged blob is refused, never written back into a file.
	b := create(t, s, "/ws")
	put(b.ID, "abc")
	if err := session.Exec(s, `UPDATE blobs SET data = ?`, []byte("abd")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Image(ctx, b.ID, session.ImageHash([]byte("abc"))); !errors.Is(err, session.ErrCorrupt) {
		t.Errorf("a damaged image: err = %v, want ErrCorrupt", err)
	}
}
