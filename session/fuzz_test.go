package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

// FuzzOpen opens arbitrary bytes as the session database. Its inputs are
// whole database files (28 KiB for the seed), so run it with a short
// -fuzzminimizetime: minimizing one at the default minute per input
// leaves no time to fuzz. Whatever they
// are, Open and the reads after it must not panic, errors must be the
// documented ones, and a refused file must be left byte for byte as it was.
func FuzzOpen(f *testing.F) {
	good := seedDB(f)
	f.Add(good)
	f.Add(good[:100])
	f.Add(good[:len(good)/2])
	f.Add([]byte("SQLite format 3\x00"))
	f.Add([]byte("not a database"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), session.DatabaseFile)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s, err := session.Open(ctx, session.Config{Path: path, BusyTimeout: 100 * time.Millisecond})
		if err != nil {
			if !errors.Is(err, session.ErrCorrupt) && !errors.Is(err, session.ErrNewerSchema) {
				t.Fatalf("Open: unexpected error kind: %v", err)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(after, data) {
				t.Fatal("a refused file was modified")
			}
			return
		}
		defer s.Close()
		list, err := s.List(ctx, session.Filter{Limit: 5})
		if err != nil {
			return
		}
		for _, in := range list {
			s.Load(ctx, in.ID)
		}
	})
}

// seedDB returns the bytes of a small valid store.
func seedDB(f *testing.F) []byte {
	ctx := context.Background()
	path := filepath.Join(f.TempDir(), "seed.db")
	s, err := session.Open(ctx, session.Config{Path: path})
	if err != nil {
		f.Fatal(err)
	}
	info, err := s.Create(ctx, session.Info{Workspace: "/w"})
	if err != nil {
		f.Fatal(err)
	}
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		f.Fatal(err)
	}
	appendAll(f, j, info.ID, msgEvent(model.UserText("hi")), msgEvent(assistantCalls(call("c", "1"))), callEvent(call("c", "1")))
	j.Close()
	s.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// FuzzRebuild feeds arbitrary payloads to the decoder and the rebuild of
// Load: no panic, and every unanswered call is one of the last message's.
func FuzzRebuild(f *testing.F) {
	enc := func(ev agent.Event) []byte { b, _ := json.Marshal(ev); return b }
	c := call("c1", "x")
	asst := assistantCalls(c)
	f.Add(enc(msgEvent(asst)), enc(callEvent(c)), enc(resultEvent("c1", "ok")))
	f.Add([]byte(`{"type":"message","message":{"role":"assistant","parts":[{"kind":"tool_call"}]}}`), []byte(`{}`), []byte(`null`))
	f.Add([]byte(`{"type":"tool.result","tool_result":null}`), []byte(`{"type":"tool.call","tool_call":{"id":""}}`), []byte(`[`))
	f.Fuzz(func(t *testing.T, a, b, c []byte) {
		snap, err := session.Rebuild([][]byte{a, b, c})
		if err != nil {
			if !errors.Is(err, session.ErrCorrupt) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		var last []model.ToolCall
		if n := len(snap.Messages); n > 0 {
			last = snap.Messages[n-1].ToolCalls()
		}
		if len(snap.Unanswered) > len(last) {
			t.Fatalf("%d unanswered calls, the last message has %d", len(snap.Unanswered), len(last))
		}
	})
}

// FuzzParseHead decodes arbitrary head files (locks/<id>.head): a file a
// power cut tore or another program wrote must be refused as "no head",
// never taken for a different head; whatever decodes re-encodes to the
// same bytes.
func FuzzParseHead(f *testing.F) {
	good := session.HeadLine("s0123456789abcdef0123", 42, bytes.Repeat([]byte{0xab}, 16))
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(append(bytes.Clone(good), good...))
	f.Add([]byte("rein-head 1 s 00000000000000000001 00000000000000000000000000000000 00000000\n"))
	f.Add(make([]byte, len(good)))
	f.Fuzz(func(t *testing.T, data []byte) {
		store, seq, chain, err := session.ParseHead(data)
		if err != nil {
			return
		}
		if seq < 1 || len(chain) != 16 || store == "" {
			t.Fatalf("decoded an impossible head: store %q seq %d chain %x", store, seq, chain)
		}
		if again := session.HeadLine(store, seq, chain); !bytes.Equal(again, data) {
			t.Fatalf("%q decodes to a head that encodes as %q", data, again)
		}
	})
}
