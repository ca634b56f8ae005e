package resume

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

const events = 100000

// Environment of the child process that performs one resume.
const (
	envDB = "BENCH_RESUME_DB"
	envID = "BENCH_RESUME_ID"
)

// TestMain makes the test binary the resuming child when asked: it
// prints the resume's duration in ns and the conversation's length.
func TestMain(m *testing.M) {
	if db := os.Getenv(envDB); db != "" {
		ctx := context.Background()
		s, err := session.Open(ctx, session.Config{Path: db})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		start := time.Now()
		res, err := session.Resume(ctx, s, os.Getenv(envID), nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		elapsed := time.Since(start)
		fmt.Println(elapsed.Nanoseconds(), res.Conversation.Len(), peakRSSKB())
		res.Journal.Close()
		s.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// peakRSSKB is this process's peak resident set in KiB (VmHWM), 0 where
// /proc does not say. The child's rusage would not do: Linux carries the
// parent's peak across fork and exec into it, so it would report the
// benchmark's own size, fixtures and all.
func peakRSSKB() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}

// turnEvents is one agent turn as the journal sees it (the same mix as
// session/bench_test.go): eight events, four of them barriers.
func turnEvents(i int) []agent.Event {
	id := fmt.Sprintf("call_%d", i)
	c := model.ToolCall{ID: id, Name: "read_file", Args: []byte(`{"path":"src/file_` + strconv.Itoa(i) + `.go"}`)}
	res := model.ToolResult{CallID: id, Name: "read_file", Content: strings.Repeat("package main // some source\n", 20)}
	asst := model.Message{Role: model.RoleAssistant, Parts: []model.Part{model.TextPart("Let me look at the file."), model.ToolCallPart(c)}}
	toolMsg := model.ToolResults(res)
	return []agent.Event{
		{Type: agent.EventUsage, Usage: &model.Usage{InputTokens: 1200, OutputTokens: 40}},
		{Type: agent.EventMessage, Message: &asst},
		{Type: agent.EventToolCall, ToolCall: &c},
		{Type: agent.EventToolDecision, Decision: &agent.Decision{CallID: id, Tool: "read_file", Action: "allow", By: "policy"}},
		{Type: agent.EventToolResult, ToolResult: &res},
		{Type: agent.EventMessage, Message: &toolMsg},
		{Type: agent.EventUsage, Usage: &model.Usage{InputTokens: 1400, OutputTokens: 12}},
		{Type: agent.EventCompaction, Compaction: &agent.CompactionInfo{Strategy: "window", KeptMessages: i}},
	}
}

// sizes are the session lengths measured; the goal is for the largest.
var sizes = []int{1000, 10000, events}

// fixtureKey names one fixture: a session of n events, journaled with
// the default checkpoints or with none (the replay of every event that
// resuming was before checkpoints).
type fixtureKey struct {
	n          int
	checkpoint bool
}

type built struct {
	db, id string
	msgs   int
	err    error
}

var (
	fixturesMu sync.Mutex
	fixtures   = map[fixtureKey]*built{}
)

// fixture writes the session of k once per process.
func fixture(tb testing.TB, k fixtureKey) (db, id string, msgs int) {
	tb.Helper()
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	f := fixtures[k]
	if f == nil {
		f = &built{}
		start := time.Now()
		f.db, f.id, f.msgs, f.err = build(k)
		fixtures[k] = f
		// What the checkpoints cost the journal shows here: the same
		// events journaled with them and without.
		tb.Logf("journaled %d events (checkpoints %v) in %v", k.n, k.checkpoint, time.Since(start).Round(time.Millisecond))
	}
	if f.err != nil {
		tb.Fatal(f.err)
	}
	return f.db, f.id, f.msgs
}

func build(k fixtureKey) (db, id string, msgs int, err error) {
	dir, err := os.MkdirTemp("", "bench-resume-")
	if err != nil {
		return "", "", 0, err
	}
	db = filepath.Join(dir, session.DatabaseFile)
	ctx := context.Background()
	every := 0 // the default
	if !k.checkpoint {
		every = -1
	}
	// The fixture is closed before anything reads it: no commit needs
	// to wait for the disk.
	s, err := session.Open(ctx, session.Config{Path: db, Sync: session.SyncUnsafeBulk, CheckpointEvery: every})
	if err != nil {
		return "", "", 0, err
	}
	defer s.Close()
	info, err := s.Create(ctx, session.Info{Workspace: "/w", Model: "bench"})
	if err != nil {
		return "", "", 0, err
	}
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		return "", "", 0, err
	}
	user := model.UserText("refactor the parser")
	evs := []agent.Event{{Type: agent.EventSessionStarted}, {Type: agent.EventMessage, Message: &user}}
	msgs = 1
	for i := 0; len(evs) < k.n; i++ {
		evs = append(evs, turnEvents(i)...)
	}
	evs = evs[:k.n]
	t0 := time.Unix(1700000000, 0)
	for i, ev := range evs {
		if ev.Type == agent.EventMessage && i > 1 {
			msgs++
		}
		ev.RunID, ev.Time = info.ID, t0.Add(time.Duration(i)*time.Millisecond)
		if err := j.Append(ctx, ev); err != nil {
			return "", "", 0, fmt.Errorf("append %d: %w", i, err)
		}
	}
	if err := j.Flush(ctx); err != nil {
		return "", "", 0, err
	}
	return db, info.ID, msgs, j.Close()
}

// resumeOnce resumes in a child process and returns the resume's own
// duration, the conversation length and the child's peak RSS in MiB
// (its VmHWM: Open, Resume and the Go runtime, nothing of the parent's).
func resumeOnce(tb testing.TB, db, id string) (time.Duration, int, float64) {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envDB+"="+db, envID+"="+id)
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("resume child: %v", err)
	}
	var (
		ns, hwm int64
		n       int
	)
	if _, err := fmt.Sscan(string(out), &ns, &n, &hwm); err != nil {
		tb.Fatalf("resume child printed %q: %v", out, err)
	}
	rss := float64(hwm) / 1024
	if hwm == 0 {
		tb.Fatal("the resume child could not read its peak RSS (VmHWM)")
	}
	return time.Duration(ns), n, rss
}

// TestCorrectResume checks the resumed conversation holds every message
// of the 100,000 events, from a checkpoint and from the events alone.
func TestCorrectResume(t *testing.T) {
	for _, cp := range []bool{true, false} {
		db, id, msgs := fixture(t, fixtureKey{events, cp})
		_, n, _ := resumeOnce(t, db, id)
		if n != msgs {
			t.Fatalf("checkpoint %v: resumed %d messages, want %d", cp, n, msgs)
		}
	}
}

// BenchmarkResume reports the resume's ms/op (measured in the child,
// without process start) and the child's peak-RSS-MB (the largest), for
// sessions journaled with checkpoints (impl=rein) and without
// (impl=replay: every event replayed, as before checkpoints).
func BenchmarkResume(b *testing.B) {
	for _, n := range sizes {
		for _, cp := range []bool{true, false} {
			impl := map[bool]string{true: "rein", false: "replay"}[cp]
			b.Run(fmt.Sprintf("events=%d/impl=%s", n, impl), func(b *testing.B) {
				db, id, msgs := fixture(b, fixtureKey{n, cp})
				var total time.Duration
				peak := 0.0
				for b.Loop() {
					d, got, rss := resumeOnce(b, db, id)
					if got != msgs {
						b.Fatalf("resumed %d messages, want %d", got, msgs)
					}
					total += d
					peak = max(peak, rss)
				}
				b.ReportMetric(float64(total)/float64(time.Millisecond)/float64(b.N), "ms/op")
				b.ReportMetric(peak, "peak-RSS-MB")
			})
		}
	}
}
