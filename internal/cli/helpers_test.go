package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinharness/rein/internal/cli"
)

// llama.cpp-shaped streaming bodies, modelled on the recordings in
// /work/shared/fixtures/llm/fantasy/TestOpenAICompatibleCommon/llama-cpp-gpt-oss:
// a role chunk, delta chunks, a finish_reason chunk, a usage chunk with
// llama.cpp's timings, then [DONE].

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

// textBody streams pieces as content deltas and finishes with "stop".
func textBody(pieces ...string) string {
	var b strings.Builder
	b.WriteString(deltaChunk(`{"role":"assistant","content":null}`))
	for _, p := range pieces {
		js, _ := json.Marshal(p)
		b.WriteString(deltaChunk(`{"content":` + string(js) + `}`))
	}
	b.WriteString(chunk(`{"finish_reason":"stop","index":0,"delta":{}}`))
	b.WriteString(usageChunk(20, len(pieces)))
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
	fmt.Fprintf(&b, "%s", deltaChunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]}`, id, name, first)))
	b.WriteString(deltaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":` + string(rest) + `}}]}`))
	b.WriteString(chunk(`{"finish_reason":"tool_calls","index":0,"delta":{}}`))
	b.WriteString(usageChunk(30, 12))
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// env is a hermetic home for one in-process invocation: a user config that
// fixes the context window (so the agent does not probe the server's
// /props first), and an environment map.
type env struct {
	home, workspace string
	vars            map[string]string
}

func newEnv(t testing.TB) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{home: filepath.Join(root, "home"), workspace: filepath.Join(root, "ws"), vars: map[string]string{}}
	e.vars["HOME"] = e.home
	for _, d := range []string{e.home, e.workspace} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n")
	return e
}

func (e *env) writeUserConfig(t testing.TB, content string) {
	t.Helper()
	path := filepath.Join(e.home, ".config", "rein", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a run
// and the reads of a test waiting for output.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// result is one finished invocation.
type result struct {
	code           int
	stdout, stderr string
}

// invocation configures one in-process run of the command line.
type invocation struct {
	env        *env
	stdin      string
	interrupts chan os.Signal
	stdout     *syncBuffer
	stderr     *syncBuffer
	// timeout bounds the run; 0 means 60 s.
	timeout time.Duration
}

func (e *env) invoke(stdin string) *invocation {
	return &invocation{env: e, stdin: stdin, interrupts: make(chan os.Signal, 2), stdout: &syncBuffer{}, stderr: &syncBuffer{}}
}

// run executes args with a bounded context and returns the result.
func (in *invocation) run(t *testing.T, args ...string) result {
	t.Helper()
	return in.runWithStdin(t, strings.NewReader(in.stdin), args...)
}

// runWithStdin is run reading stdin from r (a pipe, for tests that feed
// input while the session runs).
func (in *invocation) runWithStdin(t *testing.T, r io.Reader, args ...string) result {
	t.Helper()
	timeout := in.timeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	app := &cli.App{
		Stdin:  r,
		Stdout: in.stdout,
		Stderr: in.stderr,
		Getenv: func(k string) string { return in.env.vars[k] },
		Environ: func() []string {
			var env []string
			for k, v := range in.env.vars {
				env = append(env, k+"="+v)
			}
			return env
		},
		Getwd:      func() (string, error) { return in.env.workspace, nil },
		Interrupts: in.interrupts,
	}
	code := app.Run(ctx, args)
	return result{code: code, stdout: in.stdout.String(), stderr: in.stderr.String()}
}

// run is the common case: no stdin, no interrupts.
func (e *env) run(t *testing.T, args ...string) result {
	t.Helper()
	return e.invoke("").run(t, args...)
}

// lines splits output into non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// requestJSON decodes a recorded request body.
func requestJSON(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, body)
	}
	return m
}
