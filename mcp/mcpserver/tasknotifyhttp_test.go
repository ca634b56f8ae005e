package mcpserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestGetStreamsKeepOnlyLiveStreams: a session's notification is written
// to its GET stream only while the SDK serves it as an event stream —
// not to a GET the SDK refused, not to a POST, not once the handler has
// returned — and is one whole event.
func TestGetStreamsKeepOnlyLiveStreams(t *testing.T) {
	var g getStreams
	serving, release := make(chan struct{}), make(chan struct{})
	sse := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(": ok\n\n"))
		http.NewResponseController(w).Flush()
		close(serving)
		<-release
	})
	get := httptest.NewRequest(http.MethodGet, "/mcp", nil)
	get.Header.Set(headerSessionID, "s1")
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { g.serve(rec, get, sse); close(done) }()
	<-serving

	refused := httptest.NewRecorder()
	g.serve(refused, get, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "stream ID conflicts with ongoing stream", http.StatusConflict)
	}))
	post := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader("{}"))
	post.Header.Set(headerSessionID, "s2")
	posted, postDone := make(chan struct{}), make(chan struct{})
	go g.serve(httptest.NewRecorder(), post, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		close(posted)
		<-postDone
	}))
	defer close(postDone)
	<-posted

	if !g.send("s1", methodTaskStatus, map[string]string{"taskId": "t1", "status": "completed"}) {
		t.Fatal("the notification found no stream for s1 (a refused second GET displaced it?)")
	}
	if g.send("s2", methodTaskStatus, map[string]string{}) {
		t.Error("a POST's response was kept as a GET stream")
	}
	close(release)
	<-done
	if g.send("s1", methodTaskStatus, map[string]string{}) {
		t.Error("a notification was written after the GET's handler returned")
	}
	want := ": ok\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tasks/status\",\"params\":{\"status\":\"completed\",\"taskId\":\"t1\"}}\n\n"
	if got := rec.Body.String(); got != want {
		t.Errorf("stream = %q\nwant %q", got, want)
	}
	if strings.Contains(refused.Body.String(), "event:") {
		t.Errorf("the refused GET got an event: %q", refused.Body.String())
	}
}
