package chaos_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// storeDamage is one way a sessions.db file (or its WAL) gets damaged:
// what a bad disk, a stray write or a power cut leaves.
type storeDamage struct {
	name string
	do   func(r *rand.Rand, db string) error
}

const pageSize = 4096

var storeDamages = []storeDamage{
	{"random bytes in a data page", func(r *rand.Rand, db string) error {
		return mutate(db, func(b []byte) []byte {
			if len(b) < 2*pageSize {
				return b
			}
			page := 1 + r.IntN(len(b)/pageSize-1)
			for range 1 + r.IntN(64) {
				b[page*pageSize+r.IntN(pageSize)] = byte(r.IntN(256))
			}
			return b
		})
	}},
	{"a zeroed page", func(r *rand.Rand, db string) error {
		return mutate(db, func(b []byte) []byte {
			if len(b) < 2*pageSize {
				return b
			}
			page := 1 + r.IntN(len(b)/pageSize-1)
			clear(b[page*pageSize : (page+1)*pageSize])
			return b
		})
	}},
	{"a page overwritten by another", func(r *rand.Rand, db string) error {
		return mutate(db, func(b []byte) []byte {
			n := len(b) / pageSize
			if n < 3 {
				return b
			}
			from, to := 1+r.IntN(n-1), 1+r.IntN(n-1)
			copy(b[to*pageSize:(to+1)*pageSize], b[from*pageSize:(from+1)*pageSize])
			return b
		})
	}},
	{"truncated at a page boundary", func(r *rand.Rand, db string) error {
		return mutate(db, func(b []byte) []byte {
			n := len(b) / pageSize
			if n < 2 {
				return b
			}
			return b[:(1+r.IntN(n-1))*pageSize]
		})
	}},
	{"truncated mid-page", func(r *rand.Rand, db string) error {
		return mutate(db, func(b []byte) []byte {
			if len(b) < pageSize+2 {
				return b
			}
			return b[:pageSize+1+r.IntN(len(b)-pageSize-1)]
		})
	}},
}

func mutate(path string, f func([]byte) []byte) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, f(b), 0o644)
}

// snapshot reads the store's files (the database, its WAL and shared
// memory index) so a refusal can be checked to have touched nothing.
func snapshot(t *testing.T, state string) map[string][]byte {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(state, "sessions.db*"))
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

func sameFiles(a, b map[string][]byte) string {
	for name, data := range a {
		if other, ok := b[name]; !ok {
			return name + " was removed"
		} else if !bytes.Equal(data, other) {
			return name + " was changed"
		}
	}
	for name, data := range b {
		if _, ok := a[name]; ok {
			continue
		}
		// SQLite's shared-memory index (and an empty WAL) are made by any
		// reader of a WAL database; they hold no data of the store.
		if strings.HasSuffix(name, "-shm") || (strings.HasSuffix(name, "-wal") && len(data) == 0) {
			continue
		}
		return name + " was created"
	}
	return ""
}

// TestChaosStoreDamage damages the store of a finished session at random
// and runs every command that reads it. Each either works with the whole
// history (damage in a page the session does not use) or refuses with
// exit 1 and one clear line, leaving every file of the store byte for byte
// as it was — never a shortened history, never a resumed one.
func TestChaosStoreDamage(t *testing.T) {
	seed, rounds := config(t, 10)
	for round := range rounds {
		r := rand.New(rand.NewPCG(seed, uint64(2000+round)))
		d := storeDamages[round%len(storeDamages)]
		t.Run(fmt.Sprintf("round%d-%s", round, strings.ReplaceAll(d.name, " ", "_")), func(t *testing.T) {
			damageRound(t, r, d, fmt.Sprintf("chaoss%d-%d", seed%1_000_000, round))
		})
	}
}

func damageRound(t *testing.T, r *rand.Rand, d storeDamage, token string) {
	h := newHome(t, "bwrap")
	defer killSurvivors(token)
	steps := randomSteps(r)
	for i := range steps {
		if steps[i].kind == "edit" {
			steps[i].kind = "write"
		}
	}
	s := &script{steps: steps, token: token}
	url := newModel(t, s)
	base := []string{"--state-dir", h.state}
	p := h.start(t, append([]string{"run", "--preset", "full", "--approve", "never", "--output-format", "stream-json",
		"-C", h.ws, "-e", url, "do the steps"}, base...)...)
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("the session failed: %d\n%s", code, p.stderr.String())
	}
	id := sessionID(p.stdout.String())
	want, msg, err := h.storedEvents(t, id)
	if err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	db := filepath.Join(h.state, "sessions.db")
	if err := d.do(r, db); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, h.state)

	type check struct {
		name string
		args []string
	}
	checks := []check{
		{"sessions show", append([]string{"sessions", "show", "--json", id}, base...)},
		{"sessions list", append([]string{"sessions", "list"}, base...)},
		{"run --continue", append([]string{"run", "--preset", "full", "--approve", "never", "--output-format", "stream-json",
			"-C", h.ws, "-e", url, "--continue", "and once more"}, base...)},
		{"run (new session)", append([]string{"run", "--preset", "full", "--approve", "never", "-C", h.ws, "-e", url, "another task"}, base...)},
	}
	refused := false
	for _, c := range checks {
		p := h.start(t, c.args...)
		code := p.wait(t, 60*time.Second)
		stderr := p.stderr.String()
		if bad := badError(stderr); bad != "" {
			t.Errorf("%s: stderr shows %q:\n%s", c.name, bad, stderr)
		}
		switch code {
		case 0:
			if refused {
				t.Errorf("%s worked on a store another command refused", c.name)
			}
			if c.name == "sessions show" {
				got := strings.Count(strings.TrimSpace(p.stdout.String()), "\n") + 1
				if got != want {
					t.Errorf("sessions show printed %d of %d events from a damaged store (exit 0)", got, want)
				}
			}
		case 1:
			refused = true
			if strings.TrimSpace(stderr) == "" {
				t.Errorf("%s: exit 1 with nothing on stderr", c.name)
			}
			if diff := sameFiles(before, snapshot(t, h.state)); diff != "" {
				t.Errorf("%s refused the store but %s", c.name, diff)
			}
		default:
			t.Errorf("%s exited %d, want 0 (undamaged data) or 1 (refused):\n%s", c.name, code, stderr)
		}
	}
}
