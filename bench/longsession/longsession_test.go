package longsession

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/history"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/tool"
)

// turns is the session's length; envTurns makes the test binary the child.
const (
	turns    = 10000
	envTurns = "BENCH_LONGSESSION_TURNS"
)

// report is what the child prints.
type report struct {
	Turns       int     `json:"turns"`
	Messages    int     `json:"messages"`
	Compactions int64   `json:"compactions"`
	ToolRuns    int64   `json:"tool_runs"`
	NsPerTurn   float64 `json:"ns_per_turn"`
	PeakRSSKB   int64   `json:"peak_rss_kb"`
	EndRSSKB    int64   `json:"end_rss_kb"`
	HeapBytes   uint64  `json:"heap_bytes"`
}

func TestMain(m *testing.M) {
	if v := os.Getenv(envTurns); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			fmt.Fprintln(os.Stderr, "bad", envTurns, v)
			os.Exit(2)
		}
		r, err := session(n)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		json.NewEncoder(os.Stdout).Encode(r)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// chatModel answers a summary call with a summary, a user message with a
// read_file call, and a tool result with an answer. It reports usage as a
// server does, so the window fills and compaction runs.
type chatModel struct{ summaries *atomic.Int64 }

func (m chatModel) Stream(_ context.Context, req *model.Request) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		tokens := 0
		for _, msg := range req.Messages {
			for _, p := range msg.Parts {
				tokens += len(p.Text) / 4
				if p.ToolResult != nil {
					tokens += len(p.ToolResult.Content) / 4
				}
			}
		}
		usage := func() bool {
			return yield(model.Event{Kind: model.EventUsage, Usage: &model.Usage{InputTokens: tokens, OutputTokens: 20}}, nil)
		}
		if req.System == history.DefaultSummaryPrompt {
			m.summaries.Add(1)
			if yield(model.Event{Kind: model.EventTextDelta, Text: "The user asked to read files one after another; each was read and described."}, nil) && usage() {
				yield(model.Event{Kind: model.EventStop, StopReason: model.StopEndTurn}, nil)
			}
			return
		}
		last := req.Messages[len(req.Messages)-1]
		if last.Role == model.RoleUser && !hasToolResult(last) {
			c := &model.ToolCall{ID: fmt.Sprintf("call_%d", len(req.Messages)), Name: "read_file", Args: []byte(`{"path":"src/file.go"}`)}
			if yield(model.Event{Kind: model.EventToolCall, ToolCall: c}, nil) && usage() {
				yield(model.Event{Kind: model.EventStop, StopReason: model.StopToolUse}, nil)
			}
			return
		}
		if yield(model.Event{Kind: model.EventTextDelta, Text: "The file declares package main and a few helpers; nothing stands out."}, nil) && usage() {
			yield(model.Event{Kind: model.EventStop, StopReason: model.StopEndTurn}, nil)
		}
	}
}

func hasToolResult(m model.Message) bool {
	for _, p := range m.Parts {
		if p.Kind == model.PartToolResult {
			return true
		}
	}
	return false
}

type readIn struct {
	Path string `json:"path"`
}

// session runs n turns of one conversation and measures it.
func session(n int) (report, error) {
	var summaries, toolRuns atomic.Int64
	source := strings.Repeat("package main // a line of source code, about sixty bytes\n", 36)
	read := tool.Func("read_file", "Reads a file.", func(_ context.Context, in readIn) (string, error) {
		// A fresh 2 KB string per call, as real results are: the
		// conversation holds every one of them.
		return source + strconv.FormatInt(toolRuns.Add(1), 10) + "\n", nil
	})
	set, err := tool.NewSet(read)
	if err != nil {
		return report{}, err
	}
	p := chatModel{summaries: &summaries}
	a, err := agent.New(agent.Config{
		Provider:      p,
		Tools:         set,
		System:        "You are a coding agent.",
		ContextWindow: 8192,
		Context:       &history.Summarize{Provider: p},
		MaxSteps:      4,
	})
	if err != nil {
		return report{}, err
	}
	c := agent.NewConversation("long")
	ctx := context.Background()
	start := time.Now()
	for i := range n {
		out, err := a.RunToEnd(ctx, c, fmt.Sprintf("Read src/file.go again (%d) and tell me what it does.", i))
		if err != nil {
			return report{}, fmt.Errorf("turn %d: %w", i, err)
		}
		if out.Kind != agent.Complete {
			return report{}, fmt.Errorf("turn %d ended %v", i, out.Kind)
		}
	}
	elapsed := time.Since(start)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	peak, end, err := rss()
	if err != nil {
		return report{}, err
	}
	return report{
		Turns: n, Messages: c.Len(), Compactions: summaries.Load(), ToolRuns: toolRuns.Load(),
		NsPerTurn: float64(elapsed.Nanoseconds()) / float64(n),
		PeakRSSKB: peak, EndRSSKB: end, HeapBytes: ms.HeapInuse,
	}, nil
}

// rss reads VmHWM and VmRSS (kB) from /proc/self/status.
func rss() (peak, now int64, err error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmHWM:":
			peak = v
		case "VmRSS:":
			now = v
		}
	}
	if peak == 0 || now == 0 {
		return 0, 0, fmt.Errorf("no VmHWM/VmRSS in /proc/self/status")
	}
	return peak, now, nil
}

// child runs a session of n turns in a fresh process.
func child(tb testing.TB, n int) report {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envTurns+"="+strconv.Itoa(n))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("child: %v: %s", err, stderr.String())
	}
	var r report
	if err := json.Unmarshal(out, &r); err != nil {
		tb.Fatalf("child printed %q: %v", out, err)
	}
	return r
}

// TestCorrectLongSession checks a short session did the work the
// benchmark claims: every turn ran its tool, the history holds every
// message (user, call, result, answer per turn), and compaction ran.
func TestCorrectLongSession(t *testing.T) {
	const n = 300
	r := child(t, n)
	if r.Turns != n || r.ToolRuns != n || r.Messages != 4*n {
		t.Fatalf("report %+v: want %d turns, %d tool runs, %d messages", r, n, n, 4*n)
	}
	if r.Compactions == 0 {
		t.Fatalf("no summary was written in %d turns on an 8,192-token window: %+v", n, r)
	}
}

// BenchmarkLongSession reports the memory after 10,000 turns.
func BenchmarkLongSession(b *testing.B) {
	b.Run(fmt.Sprintf("turns=%d/impl=rein", turns), func(b *testing.B) {
		var r report
		for b.Loop() {
			r = child(b, turns)
		}
		b.ReportMetric(r.NsPerTurn/1e6, "ms/turn")
		b.ReportMetric(float64(r.PeakRSSKB)/1024, "peak-RSS-MB")
		b.ReportMetric(float64(r.EndRSSKB)/1024, "end-RSS-MB")
		b.ReportMetric(float64(r.HeapBytes)/(1<<20), "heap-MB")
		b.ReportMetric(float64(r.Compactions), "compactions")
	})
}
