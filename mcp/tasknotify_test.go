package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestTaskWatch: a followed task gets only its latest notified status, a
// status that arrives before the task is followed waits for it (within
// taskNoteKeep), and malformed notifications are dropped.
func TestTaskWatch(t *testing.T) {
	var w taskWatch
	w.note(json.RawMessage(`{"taskId":"early","status":"completed"}`))
	ch, stop := w.follow("early")
	select {
	case n := <-ch:
		if n.Status != "completed" {
			t.Errorf("early status = %q", n.Status)
		}
	default:
		t.Fatal("a status noted before follow was lost")
	}
	stop()

	ch, stop = w.follow("t1")
	defer stop()
	w.note(json.RawMessage(`{"taskId":"t1","status":"working"}`))
	w.note(json.RawMessage(`{"taskId":"t1","status":"completed","statusMessage":"done"}`))
	if n := <-ch; n.Status != "completed" || n.StatusMessage != "done" {
		t.Errorf("latest = %+v, want the completed status", n)
	}
	for _, bad := range []string{`{}`, `{"taskId":"t1","status":"exploded"}`, `[1]`, `{"taskId":"t1","status":"completed"`, `{"taskId":"` + strings.Repeat("x", 300) + `","status":"working"}`} {
		w.note(json.RawMessage(bad))
	}
	select {
	case n := <-ch:
		t.Errorf("a malformed notification was delivered: %+v", n)
	default:
	}
	// A result in a status notification is not trusted as the outcome.
	w.note(json.RawMessage(`{"taskId":"t1","status":"completed","result":{"content":[]}}`))
	if n := <-ch; n.Result != nil {
		t.Error("a notification's result was kept")
	}

	for i := range taskNoteKeep + 10 {
		w.note(json.RawMessage(fmt.Sprintf(`{"taskId":"u%d","status":"working"}`, i)))
	}
	if len(w.early) != taskNoteKeep || len(w.arrive) != taskNoteKeep {
		t.Errorf("kept %d early statuses (%d in order), want %d", len(w.early), len(w.arrive), taskNoteKeep)
	}
	if _, ok := w.early["u0"]; ok {
		t.Error("the oldest early status was not dropped")
	}
}

// notifyFixture is the tasks fixture over stdio speaking 2025-11-25,
// suggesting a poll every poll, its slow tool taking slow.
func notifyFixture(t testing.TB, poll, slow time.Duration, silent bool) ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := Secrets{"REIN_MCP_FIXTURE": "tasks",
		"FIXTURE_TASK_POLL_MS": fmt.Sprint(poll.Milliseconds()), "FIXTURE_TASK_SLOW_MS": fmt.Sprint(slow.Milliseconds())}
	if silent {
		env["FIXTURE_TASK_SILENT"] = "1"
	}
	return ServerConfig{Name: "peer", Command: exe, Args: []string{"-test.run=^$"}, Env: env, ProtocolVersion: Protocol251125}
}

// collectDelay calls the slow tool once and returns how long after the
// tool's completion the result was in hand (the call's duration less
// the tool's).
func collectDelay(t testing.TB, m *Manager, slow time.Duration) time.Duration {
	t.Helper()
	ctx := testCtx(t, 30*time.Second)
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := call(t, ctx, toolByName(t, tools, "peer__slow"), `{"text":"n"}`)
	took := time.Since(start)
	if res.IsError || !strings.Contains(res.Content, "slow done") {
		t.Fatalf("result = %+v", res)
	}
	return took - slow
}

// TestTaskStatusNotificationCollectsAtOnce: rein's server sends
// notifications/tasks/status over stdio and rein's client, on the
// completed status, collects the result at once, where polling alone
// waits out the server's 3 s interval. The figures are logged.
func TestTaskStatusNotificationCollectsAtOnce(t *testing.T) {
	const poll, slow = 3 * time.Second, 200 * time.Millisecond
	mn, _ := newManager(t, Config{Servers: []ServerConfig{notifyFixture(t, poll, slow, false)}})
	notified := collectDelay(t, mn, slow)
	mp, _ := newManager(t, Config{Servers: []ServerConfig{notifyFixture(t, poll, slow, true)}})
	polled := collectDelay(t, mp, slow)
	t.Logf("completion to result collected: notified %v, polling only %v (poll interval %v)", notified.Round(time.Millisecond), polled.Round(time.Millisecond), poll)
	if notified > time.Second {
		t.Errorf("with notifications the result came %v after completion, want well under the %v poll", notified, poll)
	}
	if polled < poll-slow-100*time.Millisecond {
		t.Errorf("polling alone collected after %v, sooner than the %v poll allows: was it notified?", polled, poll)
	}
}

// BenchmarkTaskCollect measures the time from a task's completion to its
// result collected, with status notifications and with polling alone
// (the server suggesting 1 s polls; rein's own first poll is at 250 ms).
func BenchmarkTaskCollect(b *testing.B) {
	const poll, slow = time.Second, 100 * time.Millisecond
	for _, silent := range []bool{false, true} {
		name := "notified"
		if silent {
			name = "polled"
		}
		b.Run(name, func(b *testing.B) {
			m, _ := newManager(b, Config{Servers: []ServerConfig{notifyFixture(b, poll, slow, silent)}})
			var total time.Duration
			for b.Loop() {
				total += collectDelay(b, m, slow)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-collect/op")
		})
	}
}

// FuzzTaskStatusNotification: decoding a notification's params never
// panics and yields only a known status with a bounded task ID and no
// outcome.
func FuzzTaskStatusNotification(f *testing.F) {
	for _, s := range []string{`{"taskId":"a","status":"completed"}`, `{"taskId":"a","status":"input_required","pollInterval":5}`,
		`{"taskId":"","status":"working"}`, `{"taskId":1}`, `null`, `{"taskId":"a","status":"failed","error":{"code":1,"message":"x"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		task, ok := decodeTaskStatus(data)
		if !ok {
			return
		}
		if task.TaskID == "" || len(task.TaskID) > 256 || !knownTaskStatus(task.Status) || task.Result != nil || task.Error != nil {
			t.Fatalf("decoded %+v from %q", task, data)
		}
	})
}

// TestTaskStatusNotificationTSPeer: a TypeScript SDK v1 server that
// suggests 3 s polls notifies the task's completion, and rein's client
// collects the result at once.
func TestTaskStatusNotificationTSPeer(t *testing.T) {
	script := tsScriptDir(t, "task-notify-server.mjs")
	sc := ServerConfig{Name: "ts", Command: nodeBin(t), Args: []string{script}, Env: Secrets{"POLL_MS": "3000"}, ProtocolVersion: Protocol251125}
	m, _ := newManager(t, Config{Servers: []ServerConfig{sc}})
	after := tsDelayCollect(t, testCtx(t, 60*time.Second), m)
	t.Logf("TypeScript SDK peer: result collected %v after the task's completion (poll interval 3s)", after.Round(time.Millisecond))
}

// tsDelayCollect calls the TypeScript peer's delay tool for 200 ms and
// returns how long after the task's completion the result was in hand,
// failing the test past 1.5 s (the peer suggests 3 s polls: only a
// notification explains less).
func tsDelayCollect(t *testing.T, ctx context.Context, m *Manager) time.Duration {
	t.Helper()
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const slow = 200 * time.Millisecond
	start := time.Now()
	res := call(t, ctx, toolByName(t, tools, "ts__delay"), `{"duration":200}`)
	after := time.Since(start) - slow
	if res.IsError || !strings.Contains(res.Content, "delayed 200 ms") {
		t.Fatalf("result = %+v", res)
	}
	if after > 1500*time.Millisecond {
		t.Errorf("collected %v after completion; the notification was not used", after)
	}
	return after
}

// TestTaskStatusNotificationTSClient: the notifications/tasks/status rein's
// server sends pass the TypeScript SDK v1 client's schema, name the task
// its tools/call created, and end with the completed status.
func TestTaskStatusNotificationTSClient(t *testing.T) {
	script := tsScriptDir(t, "task-notify-client.mjs")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t, 60*time.Second)
	cmd := exec.CommandContext(ctx, nodeBin(t), script, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "REIN_MCP_FIXTURE=tasks")
	checkTSClientNotes(t, cmd)
}

// checkTSClientNotes runs the TypeScript client and checks the task
// status notifications it reports: some, for the task its tools/call
// created, the last saying completed.
func checkTSClientNotes(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\n%s", err, stderr.String())
	}
	var got struct {
		TaskID string     `json:"taskId"`
		Seen   []wireTask `json:"seen"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client printed %q: %v", out, err)
	}
	if len(got.Seen) == 0 {
		t.Fatalf("the TypeScript client received no task status notification\n%s", stderr.String())
	}
	if last := got.Seen[len(got.Seen)-1]; last.TaskID != got.TaskID || last.Status != "completed" {
		t.Errorf("notifications %+v for task %s; want the last to say completed", got.Seen, got.TaskID)
	}
}
