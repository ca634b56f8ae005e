package temporal

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/telemetry/redact"
)

// maxBatchLine bounds one line of a batch file.
const maxBatchLine = 1 << 20

// Task is one line of a batch file.
type Task struct {
	Prompt    string `json:"prompt"`
	ID        string `json:"id,omitempty"`
	Workspace string `json:"workspace,omitempty"`
}

// BatchResult is one line of a batch's results.
type BatchResult struct {
	Line    int               `json:"line"`
	ID      string            `json:"id"`
	Outcome agent.OutcomeKind `json:"outcome"`
	Text    string            `json:"text,omitempty"`
	Reason  string            `json:"reason,omitempty"`
	Error   string            `json:"error,omitempty"`
	// Seconds is the wall time from this client's start (or attach) to
	// the end.
	Seconds float64 `json:"seconds"`
}

// ParseTasks reads a batch file: one JSON object per line; blank lines
// are skipped. An error names the line. Session ids default to
// "batch-<12 hex of name and content>-<line>", so running the same file
// again collects the same sessions instead of starting them twice.
func ParseTasks(name string, data []byte) ([]Task, []int, error) {
	sum := sha256.Sum256(append([]byte(name+"\x00"), data...))
	prefix := "batch-" + hex.EncodeToString(sum[:6])
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxBatchLine)
	var (
		tasks []Task
		lines []int
		ids   = map[string]int{}
	)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var t Task
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&t); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: not a task object {\"prompt\": …, \"id\": …, \"workspace\": …}: %v", name, n, err)
		}
		if dec.More() {
			return nil, nil, fmt.Errorf("%s:%d: one JSON object per line", name, n)
		}
		if t.Prompt == "" {
			return nil, nil, fmt.Errorf("%s:%d: prompt is empty", name, n)
		}
		if t.ID == "" {
			t.ID = fmt.Sprintf("%s-%d", prefix, n)
		}
		if prev, dup := ids[t.ID]; dup {
			return nil, nil, fmt.Errorf("%s:%d: id %q is also the id of line %d", name, n, t.ID, prev)
		}
		ids[t.ID] = n
		tasks, lines = append(tasks, t), append(lines, n)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w (a line may be at most %d bytes)", name, err, maxBatchLine)
	}
	if len(tasks) == 0 {
		return nil, nil, fmt.Errorf("%s: no tasks", name)
	}
	return tasks, lines, nil
}

// BatchConfig configures RunBatch.
type BatchConfig struct {
	Client client.Client
	Tasks  []Task
	Lines  []int // the file line of each task (for the results)
	// Template is every session's input; a task's prompt and workspace
	// replace its Prompt and (when set) Workspace.
	Template    SessionInput
	Concurrency int
	// Out receives one JSON line per finished session, in the order
	// they finish; writes are serialised.
	Out io.Writer
}

// BatchSummary counts a batch's sessions.
type BatchSummary struct {
	Sessions, Complete, Other, Errors int
	Elapsed                           time.Duration
}

// RunBatch runs one session per task, at most Concurrency at once, and
// writes each result as it finishes. A session that already exists (the
// batch ran before) is collected, not started again. It returns when every
// session has a result line or ctx is done.
func RunBatch(ctx context.Context, cfg BatchConfig) (BatchSummary, error) {
	n := max(cfg.Concurrency, 1)
	start := time.Now()
	var (
		mu      sync.Mutex
		sum     = BatchSummary{Sessions: len(cfg.Tasks)}
		wg      sync.WaitGroup
		sem     = make(chan struct{}, n)
		firstWE error
	)
	enc := json.NewEncoder(cfg.Out)
	write := func(r BatchResult) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Outcome == agent.Complete:
			sum.Complete++
		case r.Error != "" && r.Outcome == "":
			sum.Errors++
		default:
			sum.Other++
		}
		if err := enc.Encode(r); err != nil && firstWE == nil {
			firstWE = fmt.Errorf("writing the results: %w", err)
		}
	}
	for i, t := range cfg.Tasks {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return sum, ctx.Err()
		}
		wg.Go(func() {
			defer func() { <-sem }()
			write(runTask(ctx, cfg, t, cfg.Lines[i]))
		})
	}
	wg.Wait()
	sum.Elapsed = time.Since(start)
	return sum, firstWE
}

// runTask starts (or attaches to) one session and waits for its end.
func runTask(ctx context.Context, cfg BatchConfig, t Task, line int) BatchResult {
	began := time.Now()
	in := cfg.Template
	in.Prompt = redact.String(t.Prompt)
	if t.Workspace != "" {
		in.Workspace = t.Workspace
	}
	out := BatchResult{Line: line, ID: t.ID}
	if err := Start(ctx, cfg.Client, t.ID, in); err != nil && !errors.Is(err, ErrAlreadyStarted) {
		out.Error = err.Error()
		return out
	}
	res, err := Wait(ctx, cfg.Client, t.ID)
	out.Seconds = time.Since(began).Seconds()
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Outcome, out.Text, out.Reason, out.Error = res.Outcome, res.Text, res.Reason, res.Error
	return out
}
