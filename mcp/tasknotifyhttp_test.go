package mcp

import (
	"bufio"
	"context"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/mcp/mcpserver"
)

// httpNotifyPeer is the tasks peer over Streamable HTTP on loopback,
// suggesting a poll every poll, its slow tool taking slow; silent sends
// no task status notifications.
func httpNotifyPeer(t testing.TB, poll, slow time.Duration, silent bool) string {
	t.Helper()
	p := &taskPeer{started: make(chan struct{}, 8), cancelled: make(chan struct{}, 8), slow: slow,
		limits: mcpserver.TaskLimits{PollInterval: poll, NoStatusNotifications: silent}}
	s, err := p.server()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts.URL
}

func httpNotifyManager(t testing.TB, url string) *Manager {
	t.Helper()
	sc := ServerConfig{Name: "peer", URL: url, Transport: TransportStreamable, ProtocolVersion: Protocol251125}
	m, _ := newManager(t, Config{Servers: []ServerConfig{sc}})
	return m
}

// TestTaskStatusNotificationOverHTTP: over Streamable HTTP rein's server
// sends notifications/tasks/status on the session's GET stream and rein's
// client, reading it under the SDK, collects the result at once, where
// polling alone waits out the server's 3 s interval. The figures are
// logged.
func TestTaskStatusNotificationOverHTTP(t *testing.T) {
	const poll, slow = 3 * time.Second, 200 * time.Millisecond
	notified := collectDelay(t, httpNotifyManager(t, httpNotifyPeer(t, poll, slow, false)), slow)
	polled := collectDelay(t, httpNotifyManager(t, httpNotifyPeer(t, poll, slow, true)), slow)
	t.Logf("Streamable HTTP, completion to result collected: notified %v, polling only %v (poll interval %v)",
		notified.Round(time.Millisecond), polled.Round(time.Millisecond), poll)
	if notified > time.Second {
		t.Errorf("with notifications the result came %v after completion, want well under the %v poll", notified, poll)
	}
	if polled < poll-slow-100*time.Millisecond {
		t.Errorf("polling alone collected after %v, sooner than the %v poll allows: was it notified?", polled, poll)
	}
}

// BenchmarkTaskCollectHTTP is BenchmarkTaskCollect over Streamable HTTP.
func BenchmarkTaskCollectHTTP(b *testing.B) {
	const poll, slow = time.Second, 100 * time.Millisecond
	for _, silent := range []bool{false, true} {
		name := "notified"
		if silent {
			name = "polled"
		}
		b.Run(name, func(b *testing.B) {
			m := httpNotifyManager(b, httpNotifyPeer(b, poll, slow, silent))
			var total time.Duration
			for b.Loop() {
				total += collectDelay(b, m, slow)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-collect/op")
		})
	}
}

// tsScriptDir copies a testdata script into a temporary directory whose
// node_modules are the interop peers', returning the copy's path.
func tsScriptDir(t *testing.T, name string) string {
	t.Helper()
	nm := peer(t, "node_modules/@modelcontextprotocol/sdk/package.json")
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, name)
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(filepath.Dir(filepath.Dir(nm))), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return script
}

// TestTaskStatusNotificationTSPeerHTTP: a TypeScript SDK v1 server over
// Streamable HTTP, suggesting 3 s polls, notifies the task's completion on
// its GET stream, and rein's client collects the result at once.
func TestTaskStatusNotificationTSPeerHTTP(t *testing.T) {
	script := tsScriptDir(t, "task-notify-server.mjs")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin(t), script, "http")
	cmd.Env = append(os.Environ(), "POLL_MS=3000")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("the server printed %q (%v), not its URL", url, err)
	}
	sc := ServerConfig{Name: "ts", URL: strings.TrimSpace(url), Transport: TransportStreamable, ProtocolVersion: Protocol251125}
	m, _ := newManager(t, Config{Servers: []ServerConfig{sc}})
	after := tsDelayCollect(t, ctx, m)
	t.Logf("TypeScript SDK peer over Streamable HTTP: result collected %v after the task's completion (poll interval 3s)", after.Round(time.Millisecond))
}

// TestTaskStatusNotificationTSClientHTTP: a TypeScript SDK v1 client over
// Streamable HTTP gets rein's notifications/tasks/status on its GET
// stream, passing its schema, naming the task its tools/call created and
// ending with the completed status.
func TestTaskStatusNotificationTSClientHTTP(t *testing.T) {
	script := tsScriptDir(t, "task-notify-client.mjs")
	url := httpNotifyPeer(t, 3*time.Second, 300*time.Millisecond, false)
	cmd := exec.CommandContext(testCtx(t, 60*time.Second), nodeBin(t), script, url)
	checkTSClientNotes(t, cmd)
}

// sseThrough passes stream through a liftedSSE that notes task statuses
// in w, returning what the SDK would read.
func sseThrough(stream string, w *taskWatch) (string, error) {
	body := io.NopCloser(strings.NewReader(stream))
	s := &liftedSSE{rc: body, br: bufio.NewReader(body), wire: &wireMethods{}, notes: w, limit: 1 << 16}
	out, err := io.ReadAll(s)
	return string(out), err
}

// TestSSENotesTaskStatus: a task status event on an HTTP event stream is
// noted for the task and passed on byte for byte; a request with that
// method (it has an ID) and other notifications are not noted, and an
// event whose data spans two lines is.
func TestSSENotesTaskStatus(t *testing.T) {
	var w taskWatch
	ch, stop := w.follow("t1")
	defer stop()
	other, stopOther := w.follow("t2")
	defer stopOther()
	stream := ": ok\n\n" +
		"event: message\nid: 0_1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tasks/status\",\ndata: \"params\":{\"taskId\":\"t2\",\"status\":\"failed\"}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"notifications/tasks/status\",\"params\":{\"taskId\":\"t2\",\"status\":\"completed\"}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tasks/status\",\"params\":{\"taskId\":\"t1\",\"status\":\"completed\",\"statusMessage\":\"done\"}}\n\n"
	got, err := sseThrough(stream, &w)
	if err != nil {
		t.Fatal(err)
	}
	if got != stream {
		t.Errorf("the stream changed:\n%q\nwant\n%q", got, stream)
	}
	select {
	case n := <-ch:
		if n.Status != "completed" || n.StatusMessage != "done" {
			t.Errorf("t1 noted %+v", n)
		}
	default:
		t.Error("the task status event was not noted")
	}
	select {
	case n := <-other:
		// The split event's data lines join with a newline, which JSON
		// allows between tokens: it is a valid notification. The request
		// after it, had it counted, would have replaced it.
		if n.Status != "failed" {
			t.Errorf("t2 noted %+v; the request with an ID must not count", n)
		}
	default:
		t.Error("the event split over two data lines was not noted")
	}
}

// FuzzSSETaskNotes: any event stream passes a noting liftedSSE without a
// panic and unchanged (no request is outstanding, so nothing is lifted),
// and whatever is noted
// is a well-formed status.
func FuzzSSETaskNotes(f *testing.F) {
	f.Add("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tasks/status\",\"params\":{\"taskId\":\"a\",\"status\":\"working\"}}\n\n")
	f.Add("data: notifications/tasks/status\n\ndata: {\n")
	f.Add(": c\r\n\r\ndata: {\"method\":\"notifications/tasks/status\",\"params\":null}\n\n")
	f.Fuzz(func(t *testing.T, stream string) {
		var w taskWatch
		got, err := sseThrough(stream, &w)
		if err != nil {
			t.Fatal(err)
		}
		if got != stream {
			t.Fatalf("the stream changed: %q → %q", stream, got)
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		for id, task := range w.early {
			if id != task.TaskID || id == "" || !knownTaskStatus(task.Status) {
				t.Fatalf("noted %q: %+v", id, task)
			}
		}
	})
}
