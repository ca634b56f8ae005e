package chaos_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// step is one unit of work the fake model asks for. Each leaves a
// distinct, checkable effect in the workspace.
type step struct {
	kind string // "cmd", "write", "edit"
	n    int
	// delayMS is how long a command sleeps before its effect, so that
	// kills land while it runs.
	delayMS int
}

// effect is the line a command step appends to effects.log.
func (s step) effect() string { return fmt.Sprintf("s%d", s.n) }

// call returns the tool name and arguments of the step. A guarded call is
// what a careful model sends after being told a call was interrupted: it
// checks the effect before redoing it (rein's message asks it to).
func (s step) call(token string, guarded bool) (string, string) {
	switch s.kind {
	case "write":
		return "write_file", mustJSON(map[string]string{"path": fmt.Sprintf("f%d.txt", s.n), "content": fmt.Sprintf("file %d\n", s.n)})
	case "edit":
		return "edit_file", mustJSON(map[string]string{"path": "edit.txt", "old_string": fmt.Sprintf("e%d-\n", s.n), "new_string": fmt.Sprintf("e%d+\n", s.n)})
	}
	do := fmt.Sprintf("sleep 0.%03d; echo %s >> effects.log", s.delayMS, s.effect())
	if guarded {
		do = fmt.Sprintf("grep -qx %s effects.log 2>/dev/null || { %s; }", s.effect(), do)
	}
	// The token tags every process of the round, so the test can find
	// any that outlived rein.
	return "run_command", mustJSON(map[string]string{"command": do + " # " + token})
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// script is the fake model of one round: it works through steps, deciding
// each answer from the conversation it is sent (never from its own
// memory), as a stateless server behind a resumed session sees it.
type script struct {
	steps   []step
	token   string
	reuseID bool // name every call call_0, as llama.cpp-style servers do

	mu        sync.Mutex
	requests  int
	onToolHit func() // called after a tool call was written
	fault     func(w http.ResponseWriter, req int) bool
}

// chatRequest is the part of a Chat Completions request the model reads.
type chatRequest struct {
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	s.mu.Lock()
	s.requests++
	req := s.requests
	fault, hit := s.fault, s.onToolHit
	s.mu.Unlock()
	if fault != nil && fault(w, req) {
		return
	}
	var cr chatRequest
	if err := json.Unmarshal(body, &cr); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	done, interrupted := progress(cr)
	w.Header().Set("Content-Type", "text/event-stream")
	if done >= len(s.steps) {
		io.WriteString(w, textBody("All steps are done."))
		return
	}
	st := s.steps[done]
	name, args := st.call(s.token, interrupted)
	id := fmt.Sprintf("call_%d_%d", st.n, req)
	if s.reuseID {
		id = "call_0"
	}
	io.WriteString(w, toolBody(id, name, args))
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if hit != nil && st.kind == "cmd" {
		hit()
	}
}

// progress reads how many steps the conversation completed: every tool
// result counts except one that says its call was interrupted or stopped,
// which the model redoes (guarded).
func progress(cr chatRequest) (done int, redo bool) {
	for _, m := range cr.Messages {
		if m.Role != "tool" {
			continue
		}
		var text string
		if json.Unmarshal(m.Content, &text) != nil {
			text = string(m.Content)
		}
		if isInterrupted(text) {
			redo = true
			continue
		}
		done++
		redo = false
	}
	return done, redo
}

func isInterrupted(text string) bool {
	l := strings.ToLower(text)
	return strings.Contains(l, "interrupted") || strings.Contains(l, "stopped while")
}

func newModel(t *testing.T, s *script) string {
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

// The stream format is llama.cpp's (from the recorded traffic in
// testdata of internal/cli): a role chunk, deltas, a finish_reason chunk,
// a usage chunk, then [DONE].
const chunkTail = `,"created":1762855700,"id":"chatcmpl-test","model":"openai/gpt-oss-20b","object":"chat.completion.chunk"}`

func chunk(choice string) string {
	return `data: {"choices":[` + choice + `]` + chunkTail + "\n\n"
}

func deltaChunk(delta string) string {
	return chunk(`{"finish_reason":null,"index":0,"delta":` + delta + `}`)
}

func usageChunk(in, out int) string {
	return fmt.Sprintf(`data: {"choices":[],"usage":{"completion_tokens":%d,"prompt_tokens":%d,"total_tokens":%d}`+chunkTail+"\n\n", out, in, in+out)
}

func textBody(text string) string {
	js, _ := json.Marshal(text)
	return deltaChunk(`{"role":"assistant","content":null}`) +
		deltaChunk(`{"content":`+string(js)+`}`) +
		chunk(`{"finish_reason":"stop","index":0,"delta":{}}`) +
		usageChunk(20, 5) + "data: [DONE]\n\n"
}

func toolBody(id, name, args string) string {
	half := len(args) / 2
	first, _ := json.Marshal(args[:half])
	rest, _ := json.Marshal(args[half:])
	return deltaChunk(`{"role":"assistant","content":null}`) +
		deltaChunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]}`, id, name, first)) +
		deltaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":`+string(rest)+`}}]}`) +
		chunk(`{"finish_reason":"tool_calls","index":0,"delta":{}}`) +
		usageChunk(30, 12) + "data: [DONE]\n\n"
}
