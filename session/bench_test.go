package session_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

// turnEvents is one realistic agent turn as the journal sees it: a model
// call that asks for a tool, the call, its decision and result, the tool
// message and the next model call's usage. Four of its eight events are
// barriers (committed on their own), the rest ride along.
func turnEvents(i int) []agent.Event {
	id := fmt.Sprintf("call_%d", i)
	c := model.ToolCall{ID: id, Name: "read_file", Args: []byte(`{"path":"src/file_` + fmt.Sprint(i) + `.go"}`)}
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

// smallEvents are barrier events with short texts: each is a commit of
// its own, and redaction has little to scan, so they measure the
// database's commit rate.
func smallEvents(i int) []agent.Event {
	id := fmt.Sprintf("call_%d", i)
	c := model.ToolCall{ID: id, Name: "now", Args: []byte(`{}`)}
	m := model.AssistantText("ok")
	return []agent.Event{
		{Type: agent.EventToolCall, ToolCall: &c},
		{Type: agent.EventMessage, Message: &m},
	}
}

// BenchmarkAppend measures durable appends; events/s is the rate the
// journal sustains and cpu-us/event its CPU cost. "turns" is a realistic
// mix (turnEvents: 560-byte tool results, half the events committed on
// their own), "barriers" commits every event. Every journal commit waits
// for fsync whatever the Sync mode (see journal.durable), so the rate of
// "barriers" is the disk's fsync rate.
func BenchmarkAppend(b *testing.B) {
	for _, bc := range []struct {
		name   string
		mode   session.Sync
		events func(int) []agent.Event
	}{
		{"turns/normal", session.SyncNormal, turnEvents},
		{"turns/full", session.SyncFull, turnEvents},
		{"barriers/normal", session.SyncNormal, smallEvents},
		{"barriers/full", session.SyncFull, smallEvents},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := openStore(b, func(c *session.Config) { c.Sync = bc.mode })
			info := create(b, s, "/w")
			j, err := s.Journal(context.Background(), info.ID)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			var evs []agent.Event
			for i := 0; i < 64; i++ {
				evs = append(evs, bc.events(i)...)
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				ev := evs[i%len(evs)]
				ev.RunID = info.ID
				if err := j.Append(ctx, ev); err != nil {
					b.Fatal(err)
				}
			}
			if err := j.Flush(ctx); err != nil {
				b.Fatal(err)
			}
			reportRate(b, cpu0)
		})
	}
}

// reportRate adds events/s (wall) and cpu-us/event to a benchmark whose
// operation is one event.
func reportRate(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e3, "cpu-us/event")
}

// BenchmarkAppendBatched measures the batched path at its worst: events
// that are not barriers (usage, decisions), committed BatchSize (256) at a
// time, each commit fsynced and followed by the head write.
func BenchmarkAppendBatched(b *testing.B) {
	s := openStore(b)
	info := create(b, s, "/w")
	j, err := s.Journal(context.Background(), info.ID)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	ctx := context.Background()
	ev := agent.Event{Type: agent.EventUsage, RunID: info.ID, Usage: &model.Usage{InputTokens: 1200, OutputTokens: 40}}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if err := j.Append(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	if err := j.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	reportRate(b, cpu0)
}

// BenchmarkOpen10k measures Open of a store holding a 10,000-event
// session: "clean" after a clean close (header, schema, heads), "checked"
// without the clean-shutdown marker (also quick_check and every chain).
func BenchmarkOpen10k(b *testing.B) {
	s := openStore(b)
	info := create(b, s, "/w")
	ctx := context.Background()
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 10000/8; i++ {
		appendAll(b, j, info.ID, turnEvents(i)...)
	}
	j.Close()
	path := s.Path()
	s.Close()
	for _, clean := range []bool{true, false} {
		name := map[bool]string{true: "clean", false: "checked"}[clean]
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if !clean {
					os.Remove(path + ".clean")
				}
				st, err := session.Open(ctx, session.Config{Path: path})
				if err != nil {
					b.Fatal(err)
				}
				st.Close()
			}
		})
	}
}

// BenchmarkAppendDeltas measures the batched path: streaming deltas kept
// with StoreDeltas, committed BatchSize at a time.
func BenchmarkAppendDeltas(b *testing.B) {
	s := openStore(b, func(c *session.Config) { c.StoreDeltas = true })
	info := create(b, s, "/w")
	j, err := s.Journal(context.Background(), info.ID)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	ctx := context.Background()
	ev := agent.Event{Type: agent.EventTextDelta, RunID: info.ID, Text: "a token or two "}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if err := j.Append(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	if err := j.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	reportRate(b, cpu0)
}

// BenchmarkResume10k measures Resume of a 10,000-event session: loading,
// rebuilding the conversation and opening the journal.
func BenchmarkResume10k(b *testing.B) {
	s := openStore(b)
	info := create(b, s, "/w")
	ctx := context.Background()
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		b.Fatal(err)
	}
	user := model.UserText("refactor the parser")
	appendAll(b, j, info.ID, agent.Event{Type: agent.EventSessionStarted}, msgEvent(user))
	n := 2
	for i := 0; n < 10000; i++ {
		evs := turnEvents(i)
		evs = evs[:min(len(evs), 10000-n)]
		appendAll(b, j, info.ID, evs...)
		n += len(evs)
	}
	j.Close()
	got, _ := s.Get(ctx, info.ID)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		res, err := session.Resume(ctx, s, info.ID, nil)
		if err != nil {
			b.Fatal(err)
		}
		if res.Conversation.Len() == 0 {
			b.Fatal("empty conversation")
		}
		res.Journal.Close()
	}
	b.ReportMetric(float64(got.Events), "events")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}
