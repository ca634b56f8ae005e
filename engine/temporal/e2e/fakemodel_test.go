package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The fake model speaks the OpenAI chat-completions streaming wire as
// llama.cpp sends it (the chunk shapes are those of internal/cli's
// helpers_test.go). It is stateless: a session's model calls may come
// from different worker processes, and a call may be retried, so the
// answer is derived from the request alone. The first user message names
// a script with a tag ("e2e:NAME"); the number of tool messages in the
// request is the step of that script.

// step is one model turn of a script: a tool call, or the final text.
type step struct {
	tool, args string // a tool call when tool is set
	text       string // else the final answer
}

// script answers a session. It sees the request's tool results (the
// contents of the tool messages, in order) so that a script may react to
// what happened — e.g. say in its final text that a call was interrupted.
type script func(results []string) []step

// toolStep and textStep build steps.
func toolStep(name, args string) step { return step{tool: name, args: args} }
func textStep(text string) step       { return step{text: text} }

// modelRequest is one request the fake model received.
type modelRequest struct {
	Tag     string
	Step    int
	Results []string // tool message contents, in order
	Body    []byte
	At      time.Time
}

// fakeModel is the loopback model server.
type fakeModel struct {
	URL string

	mu       sync.Mutex
	scripts  map[string]script
	requests []modelRequest
	errs     []string
}

var tagPattern = regexp.MustCompile(`e2e:([A-Za-z0-9_.-]+)`)

// newFakeModel starts the server on 127.0.0.1; it is closed when the test
// ends. A request the server cannot answer fails the test at its end (the
// handler runs on the server's goroutine, where t.Fatal is not allowed).
func newFakeModel(t testing.TB) *fakeModel {
	t.Helper()
	m := &fakeModel{scripts: map[string]script{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	m.URL = "http://" + ln.Addr().String() + "/v1"
	t.Cleanup(func() {
		srv.Close()
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, e := range m.errs {
			t.Errorf("fake model: %s", e)
		}
	})
	return m
}

// script registers the script for tag ("e2e:TAG" in a first user
// message selects it).
func (m *fakeModel) script(tag string, s script) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.scripts[tag] = s
}

// fixed is a script that ignores the tool results.
func fixed(steps ...step) script { return func([]string) []step { return steps } }

// requestsFor returns the requests recorded for tag, in arrival order.
func (m *fakeModel) requestsFor(tag string) []modelRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []modelRequest
	for _, r := range m.requests {
		if r.Tag == tag {
			out = append(out, r)
		}
	}
	return out
}

func (m *fakeModel) fail(w http.ResponseWriter, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	m.mu.Lock()
	m.errs = append(m.errs, msg)
	m.mu.Unlock()
	http.Error(w, msg, http.StatusBadRequest)
}

// wireRequest is the part of a chat-completions request the fake reads.
type wireRequest struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role    string  `json:"role"`
		Content *string `json:"content"`
	} `json:"messages"`
}

func (m *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		m.fail(w, "unexpected %s %s", r.Method, r.URL.Path)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		m.fail(w, "reading the request: %v", err)
		return
	}
	var req wireRequest
	if err := json.Unmarshal(body, &req); err != nil {
		m.fail(w, "request is not JSON: %v", err)
		return
	}
	tag, results := "", []string(nil)
	for _, msg := range req.Messages {
		content := ""
		if msg.Content != nil {
			content = *msg.Content
		}
		switch msg.Role {
		case "user":
			if tag == "" {
				if sub := tagPattern.FindStringSubmatch(content); sub != nil {
					tag = sub[1]
				}
			}
		case "tool":
			results = append(results, content)
		}
	}
	m.mu.Lock()
	s, ok := m.scripts[tag]
	m.requests = append(m.requests, modelRequest{Tag: tag, Step: len(results), Results: results, Body: body, At: time.Now()})
	m.mu.Unlock()
	if !ok {
		m.fail(w, "no script for tag %q (first user message lacks a known e2e:TAG)", tag)
		return
	}
	steps := s(results)
	if len(results) >= len(steps) {
		m.fail(w, "script %q has %d steps; the request carries %d tool results", tag, len(steps), len(results))
		return
	}
	st := steps[len(results)]
	w.Header().Set("Content-Type", "text/event-stream")
	if st.tool != "" {
		io.WriteString(w, toolBody(fmt.Sprintf("call_%s_%d", strings.NewReplacer(".", "_", "-", "_").Replace(tag), len(results)), st.tool, st.args))
		return
	}
	io.WriteString(w, textBody(st.text))
}

// llama.cpp-shaped streaming bodies (copied from internal/cli's
// helpers_test.go, which is not importable): a role chunk, delta chunks,
// a finish_reason chunk, a usage chunk, then [DONE].

const chunkTail = `,"created":1762855700,"id":"chatcmpl-test","model":"openai/gpt-oss-20b","system_fingerprint":"b7010-c27efd2bd","object":"chat.completion.chunk"}`

func chunk(choice string) string {
	return `data: {"choices":[` + choice + `]` + chunkTail + "\n\n"
}

func deltaChunk(delta string) string {
	return chunk(`{"finish_reason":null,"index":0,"delta":` + delta + `}`)
}

func usageChunk(in, out int) string {
	return fmt.Sprintf(`data: {"choices":[],"usage":{"completion_tokens":%d,"prompt_tokens":%d,"total_tokens":%d},"timings":{"cache_n":0,"prompt_n":%d,"prompt_ms":8.6,"predicted_n":%d,"predicted_ms":100}`+chunkTail+"\n\n", out, in, in+out, in, out)
}

// textBody streams text as two content deltas and finishes with "stop".
func textBody(text string) string {
	var b strings.Builder
	b.WriteString(deltaChunk(`{"role":"assistant","content":null}`))
	half := len(text) / 2
	for _, p := range []string{text[:half], text[half:]} {
		js, _ := json.Marshal(p)
		b.WriteString(deltaChunk(`{"content":` + string(js) + `}`))
	}
	b.WriteString(chunk(`{"finish_reason":"stop","index":0,"delta":{}}`))
	b.WriteString(usageChunk(20, 2))
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// toolBody streams one tool call whose arguments arrive in two fragments,
// as llama.cpp sends them, and finishes with "tool_calls".
func toolBody(id, name, args string) string {
	var b strings.Builder
	b.WriteString(deltaChunk(`{"role":"assistant","content":null}`))
	b.WriteString(deltaChunk(`{"reasoning_content":"I should call a tool."}`))
	half := len(args) / 2
	first, _ := json.Marshal(args[:half])
	rest, _ := json.Marshal(args[half:])
	b.WriteString(deltaChunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]}`, id, name, first)))
	b.WriteString(deltaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":` + string(rest) + `}}]}`))
	b.WriteString(chunk(`{"finish_reason":"tool_calls","index":0,"delta":{}}`))
	b.WriteString(usageChunk(30, 12))
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// jsonArgs marshals tool arguments.
func jsonArgs(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
