package mcpserver

import (
	"encoding/json"
	"sync"
	"testing"
	"time"
)

// statusNotes records the notifications/tasks/status a raw client gets.
type statusNotes struct {
	mu    sync.Mutex
	seen  []wireTask
	other chan wireTask
}

func watchStatus(c *rawClient) *statusNotes {
	n := &statusNotes{other: make(chan wireTask, 16)}
	c.onNotify = func(method string, params json.RawMessage) {
		if method != methodTaskStatus {
			return
		}
		var w wireTask
		if json.Unmarshal(params, &w) == nil {
			n.mu.Lock()
			n.seen = append(n.seen, w)
			n.mu.Unlock()
			n.other <- w
		}
	}
	return n
}

// await returns the first notification for id with status, failing the
// test after 5 s.
func (n *statusNotes) await(t *testing.T, id, status string) wireTask {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case w := <-n.other:
			if w.TaskID == id && w.Status == status {
				return w
			}
		case <-deadline:
			n.mu.Lock()
			defer n.mu.Unlock()
			t.Fatalf("no %s notification for task %s; saw %+v", status, id, n.seen)
		}
	}
}

// TestTasksLegacyStatusNotifications: over stdio a 2025-11-25 task's
// every end is notified (failed, cancelled) with the Task fields the
// schema gives the notification, and NoStatusNotifications silences them.
func TestTasksLegacyStatusNotifications(t *testing.T) {
	s, b := taskServer(t, TaskLimits{})
	c := newRawStdio(t, s, "2025-11-25")
	notes := watchStatus(c)

	failed := startLegacyTask(t, c, "must_task", map[string]any{}, 0)
	w := notes.await(t, failed.TaskID, "failed")
	if w.CreatedAt == "" || w.LastUpdatedAt == "" || w.TTL == nil || w.PollInterval <= 0 {
		t.Errorf("failed notification = %+v; want the Task fields", w)
	}

	running := startLegacyTask(t, c, "build", map[string]any{"text": "x"}, 0)
	b.waitStarted(t)
	c.callInto("tasks/cancel", map[string]any{"taskId": running.TaskID}, &wireTask{})
	notes.await(t, running.TaskID, "cancelled")
	<-b.cancelled

	quiet, _ := taskServer(t, TaskLimits{NoStatusNotifications: true})
	qc := newRawStdio(t, quiet, "2025-11-25")
	qnotes := watchStatus(qc)
	task := startLegacyTask(t, qc, "must_task", map[string]any{}, 0)
	if _, err := qc.call("tasks/result", map[string]any{"taskId": task.TaskID}); err != nil {
		t.Fatal(err)
	}
	select {
	case w := <-qnotes.other:
		t.Errorf("NoStatusNotifications still sent %+v", w)
	case <-time.After(200 * time.Millisecond):
	}
}
