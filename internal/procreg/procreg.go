// Package procreg is the registry of running calls' processes: before
// rein starts a tool call's process (a command) it records it in a small
// file under the state directory — the call, its session, the rein that
// owns it and, once started, the leader's pid (which is its process group)
// with the start time the kernel gives it, so a reused pid is never taken
// for it. The file is fsynced before the process starts and removed when
// the call ends.
//
// A rein that dies (kill -9, a crash, a power cut) leaves its files.
// Sweep, run when the next rein starts, finds those whose owner is dead,
// SIGKILLs whatever of their processes is still alive and marks the file
// swept; Take hands a resumed session its swept calls, so `--continue`
// can say what happened to each. Rein's supervisor (see package
// sandbox) normally kills everything the moment rein dies: the sweep is
// the backstop for the cases it cannot see (the supervisor killed too,
// a frozen machine), and the record is what lets rein speak of "its
// remaining processes" at all.
//
// The files live in DirName under the state directory, one per running
// process, as JSON lines: the record, then the leader, then the sweep.
package procreg

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DirName is the registry's directory inside the state directory.
const DirName = "running"

// keepSwept is how long a swept record waits for its session to be
// continued before a sweep removes it.
const keepSwept = 7 * 24 * time.Hour

// Proc identifies a process across pid reuse: its pid and its start time
// (clock ticks after boot, /proc/PID/stat field 22).
type Proc struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start,omitempty"`
}

// Record is one running call's process as a file holds it.
type Record struct {
	Session string `json:"session,omitempty"`
	Call    string `json:"call,omitempty"`
	// Owner is the rein that started it; Boot the boot it started in.
	Owner Proc   `json:"owner"`
	Boot  string `json:"boot,omitempty"`
	// Began is when the record was written, before the process started.
	Began time.Time `json:"began"`
	// Leader is the process as started (nil: the owner died before it
	// could say, so nothing of it can have outlived the start).
	Leader *Proc `json:"leader,omitempty"`
	// Swept is set once a later rein found the owner dead.
	Swept *Swept `json:"swept,omitempty"`

	path string
}

// Swept is what a sweep did about a dead owner's call.
type Swept struct {
	At time.Time `json:"at"`
	// Killed counts the processes of the call that were still alive and
	// were SIGKILLed.
	Killed int `json:"killed"`
	// Survivors counts those that would not die within the sweep's bound.
	Survivors int `json:"survivors,omitempty"`
}

// Registry records the processes of this rein.
type Registry struct {
	dir  string
	self Proc
	boot string
	seq  atomic.Uint64
	mu   sync.Mutex // one sweep at a time
}

// Open opens (creating it) the registry under stateDir.
func Open(stateDir string) (*Registry, error) {
	dir := filepath.Join(stateDir, DirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("process registry: %w", err)
	}
	self := Proc{PID: os.Getpid()}
	self.Start, _ = startTime(self.PID)
	return &Registry{dir: dir, self: self, boot: bootID()}, nil
}

// Dir is the registry's directory.
func (r *Registry) Dir() string { return r.dir }

// Entry is one process being recorded.
type Entry struct {
	r    *Registry
	path string
	f    *os.File
}

// Begin records, durably, that this rein is about to start a process for
// call in session. Start the process only when it succeeds; then call
// Started, and End when the call is over.
func (r *Registry) Begin(session, call string) (*Entry, error) {
	rec := Record{Session: session, Call: call, Owner: r.self, Boot: r.boot, Began: time.Now().UTC()}
	name := fmt.Sprintf("%d-%d-%d.json", r.self.PID, r.self.Start, r.seq.Add(1))
	path := filepath.Join(r.dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("record the running process: %w", err)
	}
	e := &Entry{r: r, path: path, f: f}
	if err := e.appendLine(rec); err != nil {
		e.End()
		return nil, err
	}
	if err := syncDir(r.dir); err != nil {
		e.End()
		return nil, fmt.Errorf("record the running process: %w", err)
	}
	return e, nil
}

// Started records the started process: its pid, which is also its
// process group.
func (e *Entry) Started(pid int) error {
	p := Proc{PID: pid}
	p.Start, _ = startTime(pid)
	return e.appendLine(struct {
		Leader Proc `json:"leader"`
	}{p})
}

// End removes the record: the call is over and nothing of it runs.
func (e *Entry) End() {
	if e == nil || e.f == nil {
		return
	}
	e.f.Close()
	e.f = nil
	os.Remove(e.path)
}

func (e *Entry) appendLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := e.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("record the running process: %w", err)
	}
	if err := e.f.Sync(); err != nil {
		return fmt.Errorf("record the running process: %w", err)
	}
	return nil
}

// Sweep looks at every record: those of a dead owner have whatever of
// their processes is still alive SIGKILLed and are marked swept (kept for
// Take); swept records older than a week are removed. It returns the
// records it swept now. Records of a living rein are left alone.
func (r *Registry) Sweep() ([]Record, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	recs, err := r.list()
	var swept []Record
	for _, rec := range recs {
		if rec.Swept != nil {
			if time.Since(rec.Swept.At) > keepSwept {
				os.Remove(rec.path)
			}
			continue
		}
		if r.alive(rec.Owner, rec.Boot) {
			continue
		}
		s := Swept{At: time.Now().UTC()}
		if rec.Leader != nil && rec.Boot == r.boot {
			s.Killed, s.Survivors = killLeftovers(*rec.Leader)
		}
		rec.Swept = &s
		if err := appendTo(rec.path, struct {
			Swept Swept `json:"swept"`
		}{s}); err != nil {
			return swept, err
		}
		swept = append(swept, rec)
	}
	return swept, err
}

// Take returns the swept records of session and removes them: the
// session is being continued and is told about them now. Records of its
// calls still owned by a living rein are not returned.
func (r *Registry) Take(session string) ([]Record, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	recs, err := r.list()
	var out []Record
	for _, rec := range recs {
		if rec.Session != session || rec.Swept == nil {
			continue
		}
		out = append(out, rec)
		os.Remove(rec.path)
	}
	return out, err
}

// list reads every record; unreadable files are skipped (a record is
// written before its process starts, so a torn one predates the start).
func (r *Registry) list() ([]Record, error) {
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return nil, fmt.Errorf("process registry: %w", err)
	}
	var out []Record
	for _, ent := range entries {
		if ent.IsDir() || !strings.HasSuffix(ent.Name(), ".json") {
			continue
		}
		path := filepath.Join(r.dir, ent.Name())
		rec, ok := readRecord(path)
		if !ok {
			// Not even the first line: the owner died while writing it,
			// before any process started.
			if info, err := ent.Info(); err == nil && time.Since(info.ModTime()) > time.Minute {
				os.Remove(path)
			}
			continue
		}
		out = append(out, rec)
	}
	return out, nil
}

// readRecord merges the JSON lines of a record file; a torn last line
// (a crash while appending) is ignored.
func readRecord(path string) (Record, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Record{}, false
	}
	var rec Record
	first := true
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Bytes()
		var part Record
		if err := json.Unmarshal(line, &part); err != nil {
			break
		}
		if first {
			rec, first = part, false
			continue
		}
		if part.Leader != nil {
			rec.Leader = part.Leader
		}
		if part.Swept != nil {
			rec.Swept = part.Swept
		}
	}
	if first || rec.Owner.PID <= 0 {
		return Record{}, false
	}
	rec.path = path
	return rec, true
}

// alive reports whether p, recorded in boot, is still running.
func (r *Registry) alive(p Proc, boot string) bool {
	if boot != r.boot || p.PID <= 0 {
		return false // a reboot ended everything
	}
	f, ok := statFields(p.PID)
	if !ok {
		return p.Start == 0 && processExists(p.PID)
	}
	if f[0] == "Z" || f[0] == "X" {
		return false // dead, waiting to be reaped
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	return err == nil && start == p.Start
}

func appendTo(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil // taken meanwhile
		}
		return err
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		return err
	}
	return f.Sync()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// bootID names the current boot ("" where unknown).
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// statFields returns the fields of /proc/PID/stat after the command name
// (field 3, the state, is index 0).
func statFields(pid int) ([]string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	f := strings.Fields(string(b[i+1:]))
	return f, len(f) >= 20
}

// startTime reads field 22 of /proc/PID/stat; ok is false where /proc
// does not say (the process is gone, or no /proc).
func startTime(pid int) (uint64, bool) {
	f, ok := statFields(pid)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(f[19], 10, 64)
	return v, err == nil
}
