package session_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/session"
)

// realStore is a state directory holding one real session (an agent run
// with tool calls), as a crash or a clean exit left it.
type realStore struct {
	dir    string // the state directory: sessions.db, its WAL, locks/
	id     string
	events []agent.Event // the session's events, read before any damage
	head   int64         // the last event committed durably
}

// makeRealStore runs an agent session of a few tool turns into a store
// under a new directory. crashed leaves the files as kill -9 would (the
// store still open: the history is in the WAL); otherwise the store is
// closed cleanly.
func makeRealStore(t *testing.T, crashed bool) realStore {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, session.DatabaseFile)
	s, err := session.Open(ctx, session.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	info := create(t, s, dir)
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	var turns []modeltest.Turn
	for i := range 12 {
		turns = append(turns, modeltest.ToolCalls(call("call_0", strconv.Itoa(i)+strings.Repeat(" padding", 60))))
	}
	turns = append(turns, modeltest.Text("done"))
	m := &marker{path: filepath.Join(dir, "marker")}
	if _, out := runAll(t, newAgent(t, scripted(turns...), m, j), agent.NewConversation(info.ID), "mark them"); out == nil || out.Kind != agent.Complete {
		t.Fatalf("outcome %+v", out)
	}
	rs := realStore{dir: dir, id: info.ID, events: allEvents(t, s, info.ID)}
	rs.head = headSeq(t, dir, info.ID)
	if crashed {
		// Copy the files as they are now, with the store open: what a
		// killed process leaves. The copy is the store from here on.
		crash := t.TempDir()
		for _, name := range []string{session.DatabaseFile, session.DatabaseFile + "-wal", session.DatabaseFile + "-shm", "locks/" + info.ID + ".head"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Dir(filepath.Join(crash, name)), 0o700)
			if err := os.WriteFile(filepath.Join(crash, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		rs.dir = crash
		if fi, err := os.Stat(filepath.Join(crash, session.DatabaseFile+"-wal")); err != nil || fi.Size() < 4096 {
			t.Fatalf("the crashed store has no WAL to damage: %v", err)
		}
	}
	j.Close()
	s.Close()
	if rs.head < 10 {
		t.Fatalf("head %d: the run committed too little durably", rs.head)
	}
	return rs
}

func allEvents(t *testing.T, s session.Store, id string) []agent.Event {
	t.Helper()
	var evs []agent.Event
	for r, err := range s.Events(context.Background(), id) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, r.Event)
	}
	return evs
}

// headSeq reads the sequence number a session's head file records.
func headSeq(t *testing.T, dir, id string) int64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "locks", id+".head"))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(data))
	if len(f) != 6 {
		t.Fatalf("head file %q", data)
	}
	n, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// fileSet is the bytes of a database and its companions; a missing file
// is recorded as missing.
type fileSet map[string]*[]byte

func readSet(t *testing.T, dir string) fileSet {
	t.Helper()
	set := fileSet{}
	for _, suffix := range []string{"", "-wal", "-shm", ".clean"} {
		name := session.DatabaseFile + suffix
		data, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case errors.Is(err, os.ErrNotExist):
			set[name] = nil
		case err != nil:
			t.Fatal(err)
		default:
			set[name] = &data
		}
	}
	return set
}

func (a fileSet) diff(b fileSet) string {
	var out []string
	for name, x := range a {
		y := b[name]
		switch {
		case x == nil && y == nil:
		case x == nil:
			out = append(out, name+" was created")
		case y == nil:
			out = append(out, name+" was removed")
		case !bytes.Equal(*x, *y):
			out = append(out, fmt.Sprintf("%s changed (%d bytes before, %d after)", name, len(*x), len(*y)))
		}
	}
	return strings.Join(out, "; ")
}

// copyStore copies a store's directory.
func copyStore(t *testing.T, rs realStore) realStore {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(rs.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(rs.dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o700)
		return os.WriteFile(filepath.Join(dst, rel), data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	rs.dir = dst
	return rs
}

// A damage is one way a disk, a power cut or another program can spoil a
// store: it changes the files of dir and says what it did.
type damage struct {
	name  string
	apply func(r *rand.Rand, dir string) (string, bool)
}

const pageSize = 4096

// mangle rewrites the file name in dir with fn; false when the file is
// too small for it.
func mangle(dir, name string, fn func(data []byte) ([]byte, string, bool)) (string, bool) {
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	out, what, ok := fn(data)
	if !ok {
		return "", false
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		panic(err)
	}
	return name + ": " + what, true
}

// pages returns the first offset of a random page at or after from, or
// false when there is none.
func randPage(r *rand.Rand, data []byte, from int) (int, bool) {
	n := len(data) / pageSize
	if n <= from {
		return 0, false
	}
	return (from + r.IntN(n-from)) * pageSize, true
}

var damages = []damage{
	{"random bytes in a data page", func(r *rand.Rand, dir string) (string, bool) {
		return mangle(dir, session.DatabaseFile, func(d []byte) ([]byte, string, bool) {
			off, ok := randPage(r, d, 1)
			if !ok {
				return nil, "", false
			}
			start := off + r.IntN(pageSize-64)
			n := 8 + r.IntN(56)
			for i := start; i < start+n; i++ {
				d[i] = byte(r.Uint32())
			}
			return d, fmt.Sprintf("%d random bytes at %d", n, start), true
		})
	}},
	{"a zeroed data page", func(r *rand.Rand, dir string) (string, bool) {
		return mangle(dir, session.DatabaseFile, func(d []byte) ([]byte, string, bool) {
			off, ok := randPage(r, d, 1)
			if !ok {
				return nil, "", false
			}
			clear(d[off : off+pageSize])
			return d, fmt.Sprintf("page at %d zeroed", off), true
		})
	}},
	{"a page overwritten by another", func(r *rand.Rand, dir string) (string, bool) {
		return mangle(dir, session.DatabaseFile, func(d []byte) ([]byte, string, bool) {
			a, ok1 := randPage(r, d, 1)
			b, ok2 := randPage(r, d, 1)
			if !ok1 || !ok2 || a == b {
				return nil, "", false
			}
			copy(d[a:a+pageSize], d[b:b+pageSize])
			return d, fmt.Sprintf("page at %d copied over the page at %d", b, a), true
		})
	}},
	{"the database truncated", func(r *rand.Rand, dir string) (string, bool) {
		return mangle(dir, session.DatabaseFile, func(d []byte) ([]byte, string, bool) {
			off, ok := randPage(r, d, 1)
			if !ok {
				return nil, "", false
			}
			return d[:off], fmt.Sprintf("cut to %d bytes", off), true
		})
	}},
	{"random bytes in the WAL", func(r *rand.Rand, dir string) (string, bool) {
		return mangle(dir, session.DatabaseFile+"-wal", func(d []byte) ([]byte, string, bool) {
			if len(d) < 64 {
				return nil, "", false
			}
			start := 32 + r.IntN(len(d)-64)
			n := 1 + r.IntN(min(32, len(d)-start))
			for i := start; i < start+n; i++ {
				d[i] ^= byte(1 + r.IntN(255))
			}
			return d, fmt.Sprintf("%d bytes flipped at %d", n, start), true
		})
	}},
	{"the WAL's tail damaged", func(r *rand.Rand, dir string) (string, bool) {
		return mangle(dir, session.DatabaseFile+"-wal", func(d []byte) ([]byte, string, bool) {
			if len(d) < 2*pageSize {
				return nil, "", false
			}
			n := 1 + r.IntN(2*pageSize)
			for i := len(d) - n; i < len(d); i++ {
				d[i] = byte(r.Uint32())
			}
			return d, fmt.Sprintf("the last %d bytes random", n), true
		})
	}},
	{"the WAL truncated", func(r *rand.Rand, dir string) (string, bool) {
		return mangle(dir, session.DatabaseFile+"-wal", func(d []byte) ([]byte, string, bool) {
			if len(d) < 64 {
				return nil, "", false
			}
			n := 32 + r.IntN(len(d)-32)
			return d[:n], fmt.Sprintf("cut to %d of %d bytes", n, len(d)), true
		})
	}},
	{"a zeroed WAL frame", func(r *rand.Rand, dir string) (string, bool) {
		return mangle(dir, session.DatabaseFile+"-wal", func(d []byte) ([]byte, string, bool) {
			frame := 24 + pageSize
			n := (len(d) - 32) / frame
			if n < 1 {
				return nil, "", false
			}
			off := 32 + r.IntN(n)*frame
			clear(d[off : off+frame])
			return d, fmt.Sprintf("frame at %d zeroed", off), true
		})
	}},
}

// TestDamagedStoreIsRefusedUntouched is a corruption generator over real
// stores: a session with tool calls, left by a crash (the history in the
// WAL) or a clean exit, damaged at random. Whatever the damage, either
// Open (or reading the session) refuses it with ErrCorrupt — one line
// naming the file, the files byte for byte as they were — or the session
// reads back as it was, never shorter than what was committed durably
// and never different. REIN_DAMAGE_SEED replays a failed round's seed;
// REIN_DAMAGE_ROUNDS runs more.
func TestDamagedStoreIsRefusedUntouched(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("REIN_DAMAGE_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	rounds := 48
	if testing.Short() {
		rounds = 16
	}
	if s := os.Getenv("REIN_DAMAGE_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	t.Logf("seed %d (REIN_DAMAGE_SEED=%d replays it)", seed, seed)
	stores := map[bool]realStore{true: makeRealStore(t, true), false: makeRealStore(t, false)}
	refused := map[string]int{}
	for round := range rounds {
		r := rand.New(rand.NewPCG(seed, uint64(round)))
		crashed := r.IntN(2) == 0
		d := damages[r.IntN(len(damages))]
		rs := copyStore(t, stores[crashed])
		what, ok := d.apply(r, rs.dir)
		if !ok {
			continue
		}
		label := fmt.Sprintf("round %d (seed %d, crashed %v): %s", round, seed, crashed, what)
		if checkDamaged(t, rs, label) {
			refused[d.name]++
		}
	}
	t.Logf("refused by kind: %v", refused)
}

// checkDamaged opens a damaged store and reads its session; it reports
// whether the store was refused, failing the test on a broken property.
func checkDamaged(t *testing.T, rs realStore, label string) bool {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(rs.dir, session.DatabaseFile)
	before := readSet(t, rs.dir)
	s, err := session.Open(ctx, session.Config{Path: path})
	var got []agent.Event
	if err == nil {
		for r, rerr := range s.Events(ctx, rs.id) {
			if rerr != nil {
				err = rerr
				break
			}
			got = append(got, r.Event)
		}
		if err == nil {
			_, err = s.Load(ctx, rs.id)
		}
		if err != nil && errors.Is(err, session.ErrCorrupt) {
			t.Errorf("%s: damage found only after Open accepted the file (it may have written): %v", label, err)
		}
		s.Close()
	}
	if err != nil {
		msg := err.Error()
		if !errors.Is(err, session.ErrCorrupt) || !strings.Contains(msg, path) || strings.Contains(msg, "\n") || !strings.Contains(msg, "not changed") {
			t.Errorf("%s: error %q; want one line of ErrCorrupt naming %s, saying the file was not changed", label, msg, path)
		}
		if diff := before.diff(readSet(t, rs.dir)); diff != "" {
			t.Errorf("%s: refused, but %s", label, diff)
		}
		checkExport(t, rs, label)
		return true
	}
	if int64(len(got)) < rs.head {
		t.Errorf("%s: the session reads back with %d events, but %d were committed durably", label, len(got), rs.head)
	}
	if len(got) > len(rs.events) {
		t.Errorf("%s: %d events read back, %d were written", label, len(got), len(rs.events))
		return false
	}
	if diff := cmp.Diff(rs.events[:len(got)], got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s: the session reads back differently (-written +read):\n%s", label, diff)
	}
	return false
}

// checkExport: exporting a refused store yields a prefix of the session's
// events, never an event it did not hold.
func checkExport(t *testing.T, rs realStore, label string) {
	t.Helper()
	var got []agent.Event
	_, err := session.Export(context.Background(), filepath.Join(rs.dir, session.DatabaseFile), rs.id, func(r session.Record) error {
		got = append(got, r.Event)
		return nil
	})
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Errorf("%s: export error is not one line: %q", label, err)
	}
	if len(got) > len(rs.events) {
		t.Errorf("%s: export gave %d events, %d were written", label, len(got), len(rs.events))
		return
	}
	if diff := cmp.Diff(rs.events[:len(got)], got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s: export differs from what was written (-written +exported):\n%s", label, diff)
	}
}
