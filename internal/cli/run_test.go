package cli_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model/modeltest"
)

type jsonOut struct {
	SessionID string `json:"session_id"`
	Outcome   string `json:"outcome"`
	Text      string `json:"text"`
	Steps     int    `json:"steps"`
	Usage     struct {
		InputTokens              int `json:"input_tokens"`
		OutputTokens             int `json:"output_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	} `json:"usage"`
	ToolCalls int     `json:"tool_calls"`
	Error     *string `json:"error"`
	// Added with issue 11 (Claude Code's result fields).
	DurationMS   *int64   `json:"duration_ms"`
	NumTurns     *int     `json:"num_turns"`
	IsError      *bool    `json:"is_error"`
	TotalCostUSD *float64 `json:"total_cost_usd"`
	// Added with issue 21: the rest of Claude Code's result message
	// (claudejson_test.go checks their values).
	Type              string            `json:"type"`
	Subtype           string            `json:"subtype"`
	Result            string            `json:"result"`
	DurationAPIMS     *int64            `json:"duration_api_ms"`
	PermissionDenials []json.RawMessage `json:"permission_denials"`
	UUID              string            `json:"uuid"`
	Errors            []string          `json:"errors"`
}

func decodeJSONOut(t *testing.T, stdout string) jsonOut {
	t.Helper()
	if n := len(lines(stdout)); n != 1 {
		t.Fatalf("json output has %d lines, want exactly one object:\n%s", n, stdout)
	}
	var out jsonOut
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("json output does not match the contract: %v\n%s", err, stdout)
	}
	return out
}

// TestAcceptanceUnknownToolThenAnswer is the headless acceptance test: the
// model first calls a tool that does not exist, sees the error result, and
// answers.
func TestAcceptanceUnknownToolThenAnswer(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.Status(200, map[string]string{"Content-Type": "text/event-stream"}, toolBody("call_abc123", "weather", `{"location":"Florence"}`)),
		modeltest.Status(200, map[string]string{"Content-Type": "text/event-stream"}, textBody("I have no weather tool", "; it is probably sunny.")),
	)
	e := newEnv(t)
	res := e.run(t, "run", "--output-format", "json", "-e", srv.URL, "What's the weather in Florence?")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", res.code, res.stderr)
	}
	out := decodeJSONOut(t, res.stdout)
	if out.Outcome != "complete" || out.Text != "I have no weather tool; it is probably sunny." || out.Steps != 2 || out.ToolCalls != 1 || out.Error != nil {
		t.Errorf("json = %+v", out)
	}
	if out.SessionID == "" || out.Usage.InputTokens != 50 || out.Usage.OutputTokens != 14 {
		t.Errorf("session/usage = %q %+v, want an id and 30+20 in, 12+2 out", out.SessionID, out.Usage)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	body := requestJSON(t, reqs[1].Body)
	msgs, _ := body["messages"].([]any)
	var toolMsg map[string]any
	for _, m := range msgs {
		if mm, _ := m.(map[string]any); mm["role"] == "tool" {
			toolMsg = mm
		}
	}
	if toolMsg == nil {
		t.Fatalf("second request has no role:tool message: %s", reqs[1].Body)
	}
	if toolMsg["tool_call_id"] != "call_abc123" {
		t.Errorf("tool_call_id = %v, want call_abc123", toolMsg["tool_call_id"])
	}
	content, _ := toolMsg["content"].(string)
	if !strings.Contains(content, "weather") || !strings.Contains(strings.ToLower(content), "unknown tool") {
		t.Errorf("tool result content = %q, want it to report the unknown tool", content)
	}
	for _, want := range []string{"calculator", "now"} {
		if !strings.Contains(content, want) {
			t.Errorf("tool result content = %q, want it to list the available tool %q", content, want)
		}
	}
}

func sse(body string) modeltest.Step {
	return modeltest.Status(200, map[string]string{"Content-Type": "text/event-stream"}, body)
}

func TestTextOutputStreamsAnswerAndShowsTools(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "calculator", `{"expression":"2+2"}`)),
		sse(textBody("The answer", " is 4.")),
	)
	e := newEnv(t)
	res := e.run(t, "run", "-e", srv.URL, "what is 2+2")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if res.stdout != "The answer is 4.\n" {
		t.Errorf("stdout = %q, want the answer and a final newline", res.stdout)
	}
	want := []string{`→ calculator {"expression":"2+2"}`, `← 4`}
	if diff := cmp.Diff(want, lines(res.stderr)); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

func TestStreamJSON(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "calculator", `{"expression":"6*7"}`)),
		sse(textBody("42")),
	)
	e := newEnv(t)
	res := e.run(t, "run", "--output-format", "stream-json", "-e", srv.URL, "6*7?")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	ls := lines(res.stdout)
	var types []string
	var sessionID string
	for i, l := range ls {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i+1, err, l)
		}
		typ, _ := ev["type"].(string)
		sid, _ := ev["session_id"].(string)
		if typ == "" || sid == "" {
			t.Errorf("line %d lacks type or session_id: %s", i+1, l)
		}
		if sessionID == "" {
			sessionID = sid
		} else if sid != sessionID {
			t.Errorf("line %d has session_id %q, want %q", i+1, sid, sessionID)
		}
		types = append(types, typ)
	}
	if len(types) == 0 || types[0] != "session.started" || types[len(types)-1] != "session.completed" {
		t.Fatalf("event types = %v, want session.started … session.completed", types)
	}
	for _, want := range []string{"tool.call", "tool.decision", "tool.result", "text.delta", "usage", "reasoning.delta"} {
		if !contains(types, want) {
			t.Errorf("event types %v lack %q", types, want)
		}
	}
	var last struct {
		Outcome struct {
			Kind string `json:"kind"`
			Text string `json:"text"`
		} `json:"outcome"`
	}
	if err := json.Unmarshal([]byte(ls[len(ls)-1]), &last); err != nil || last.Outcome.Kind != "complete" || last.Outcome.Text != "42" {
		t.Errorf("last event outcome = %+v (%v)", last.Outcome, err)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestUnauthorized(t *testing.T) {
	const key = "sk-test-secret-1234567890"
	srv := modeltest.NewServer(t, modeltest.Status(401, nil,
		`{"error":{"message":"Incorrect API key provided: `+key+`","type":"invalid_request_error","code":"invalid_api_key"}}`))
	e := newEnv(t)
	res := e.run(t, "run", "-e", srv.URL, "-k", key, "hi")
	if res.code != 1 {
		t.Errorf("exit %d, want 1", res.code)
	}
	want := fmt.Sprintf("rein: the model server at %s rejected the API key (401 invalid_api_key): pass --api-key or set REIN_API_KEY (or OPENAI_API_KEY, LLAMA_API_KEY)", srv.URL)
	if diff := cmp.Diff([]string{want}, lines(res.stderr)); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server saw %d requests, want exactly 1 (no retry on 401)", n)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Errorf("Authorization = %q, want the key as a bearer token", got)
	}
	if res.stdout != "" {
		t.Errorf("stdout = %q, want nothing", res.stdout)
	}
}

// TestKeyNeverPrinted checks every output format against a server that
// echoes the key back in its error and in its answer.
func TestKeyNeverPrinted(t *testing.T) {
	const key = "my-custom-key-42-abcdefgh"
	for _, format := range []string{"text", "json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			srv := modeltest.NewServer(t,
				sse(toolBody("c1", "calculator", `{"expression":"`+key+`"}`)),
				modeltest.Status(400, nil, `{"error":{"message":"bad request for key `+key+`","type":"invalid_request_error"}}`),
			)
			e := newEnv(t)
			e.vars["REIN_API_KEY"] = key
			res := e.run(t, "run", "--output-format", format, "-e", srv.URL, "echo "+key)
			if res.code != 1 {
				t.Errorf("exit %d, want 1; stderr:\n%s", res.code, res.stderr)
			}
			if strings.Contains(res.stdout+res.stderr, key) {
				t.Errorf("the key leaked:\nstdout: %s\nstderr: %s", res.stdout, res.stderr)
			}
			if !strings.Contains(res.stderr, "[REDACTED]") {
				t.Errorf("stderr = %q, want the echoed key shown as [REDACTED]", res.stderr)
			}
		})
	}
}

func TestRateLimitedThenSucceeds(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.RateLimited(time.Second), sse(textBody("ok")))
	e := newEnv(t)
	start := time.Now()
	res := e.run(t, "run", "-e", srv.URL, "hi")
	elapsed := time.Since(start)
	if res.code != 0 || res.stdout != "ok\n" {
		t.Fatalf("exit %d stdout %q; stderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if elapsed < 900*time.Millisecond || elapsed > 5*time.Second {
		t.Errorf("took %s, want ≈1s (Retry-After: 1)", elapsed)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

func TestOverloadedIsRetried(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Overloaded(), sse(textBody("fine")))
	e := newEnv(t)
	res := e.run(t, "run", "-e", srv.URL, "hi")
	if res.code != 0 || res.stdout != "fine\n" {
		t.Fatalf("exit %d stdout %q; stderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("server saw %d requests, want 2 (529 retried)", n)
	}
}

func TestResetMidStreamIsNotRetried(t *testing.T) {
	body := textBody("The partial", " answer that never", " finishes")
	cut := strings.Index(body, "never") + 10
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.ResetAfter(body, cut))
			e := newEnv(t)
			res := e.run(t, "run", "--output-format", format, "-e", srv.URL, "hi")
			if res.code != 1 {
				t.Errorf("exit %d, want 1", res.code)
			}
			errLines := lines(res.stderr)
			if len(errLines) != 1 || !strings.HasPrefix(errLines[0], "rein: the model server closed the stream early (") ||
				!strings.HasSuffix(errLines[0], "; partial output was discarded") {
				t.Errorf("stderr = %q, want one line about the stream closing early", res.stderr)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1 (never retry after bytes arrived)", n)
			}
			if format == "json" {
				out := decodeJSONOut(t, res.stdout)
				if out.Outcome != "failed" || out.Error == nil || strings.Contains(out.Text, "partial") {
					t.Errorf("json = %+v, want failed with an error and no partial text", out)
				}
			}
		})
	}
}

func TestTruncatedStream(t *testing.T) {
	body := textBody("Half an ", "answer")
	srv := modeltest.NewServer(t, modeltest.Truncate(body, strings.Index(body, "[DONE]")-6))
	e := newEnv(t)
	res := e.run(t, "run", "--output-format", "json", "-e", srv.URL, "hi")
	if res.code != 1 {
		t.Errorf("exit %d, want 1", res.code)
	}
	out := decodeJSONOut(t, res.stdout)
	if out.Outcome != "failed" || out.Text != "" {
		t.Errorf("json = %+v, want failed without the partial text", out)
	}
	if l := lines(res.stderr); len(l) != 1 || !strings.Contains(l[0], "closed the stream early") {
		t.Errorf("stderr = %q", res.stderr)
	}
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func TestConnectionRefused(t *testing.T) {
	endpoint := closedPort(t)
	e := newEnv(t)
	res := e.run(t, "run", "-e", endpoint, "hi")
	if res.code != 1 {
		t.Errorf("exit %d, want 1", res.code)
	}
	want := fmt.Sprintf("rein: cannot reach the model server at %s (connection refused): start llama-server or pass --endpoint", endpoint)
	if diff := cmp.Diff([]string{want}, lines(res.stderr)); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

func TestStepLimit(t *testing.T) {
	srv := modeltest.NewServer(t, sse(toolBody("c1", "calculator", `{"expression":"1+1"}`)))
	e := newEnv(t)
	res := e.run(t, "run", "--max-steps", "1", "--output-format", "json", "-e", srv.URL, "loop")
	if res.code != 3 {
		t.Fatalf("exit %d, want 3; stderr:\n%s", res.code, res.stderr)
	}
	out := decodeJSONOut(t, res.stdout)
	if out.Outcome != "step_limit" || out.Error == nil || !strings.Contains(*out.Error, "--max-steps") {
		t.Errorf("json = %+v", out)
	}
	if l := lines(res.stderr); len(l) != 1 || !strings.HasPrefix(l[0], "rein: stopped: ") {
		t.Errorf("stderr = %q, want one line explaining the limit", res.stderr)
	}
}

func TestDeadline(t *testing.T) {
	body := textBody("slow")
	srv := modeltest.NewServer(t, modeltest.Stall(body, len(body)/3, 30*time.Second))
	e := newEnv(t)
	start := time.Now()
	res := e.run(t, "run", "--timeout", "300ms", "-e", srv.URL, "hi")
	if res.code != 3 {
		t.Errorf("exit %d, want 3; stderr:\n%s", res.code, res.stderr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s, want the 300ms timeout to end the run promptly", d)
	}
	if !strings.Contains(res.stderr, "--timeout") {
		t.Errorf("stderr = %q, want a hint about --timeout", res.stderr)
	}
}

func TestInterruptDuringStalledStream(t *testing.T) {
	body := textBody("never", " arrives")
	srv := modeltest.NewServer(t, modeltest.Stall(body, len(body)/3, 30*time.Second))
	e := newEnv(t)
	in := e.invoke("")
	go func() {
		waitFor(t, "the request", 10*time.Second, func() bool { return len(srv.Requests()) == 1 })
		time.Sleep(100 * time.Millisecond)
		in.interrupts <- os.Interrupt
	}()
	res := in.run(t, "run", "--output-format", "json", "-e", srv.URL, "hi")
	if res.code != 130 {
		t.Errorf("exit %d, want 130; stderr:\n%s", res.code, res.stderr)
	}
	out := decodeJSONOut(t, res.stdout)
	if out.Outcome != "cancelled" {
		t.Errorf("outcome = %q, want cancelled", out.Outcome)
	}
	if l := lines(res.stderr); len(l) != 1 || l[0] != "rein: interrupted" {
		t.Errorf("stderr = %q, want one line saying rein was interrupted", res.stderr)
	}
}

func TestPromptFromStdin(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("read it")))
	e := newEnv(t)
	res := e.invoke("  the task\nfrom a pipe\n").run(t, "run", "-e", srv.URL, "-")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	body := requestJSON(t, srv.Requests()[0].Body)
	msgs := body["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if last["content"] != "the task\nfrom a pipe" {
		t.Errorf("user message = %v", last["content"])
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"unknown flag", "", []string{"run", "--bogus", "hi"}, "rein: unknown flag: --bogus; see 'rein run --help'"},
		{"missing prompt", "", []string{"run"}, "rein: missing PROMPT: rein run [flags] PROMPT (use - to read it from stdin)"},
		{"two prompts", "", []string{"run", "what", "is"}, `rein: expected one PROMPT argument, got 2: quote the prompt, e.g. rein run "what is 2+2"`},
		{"bad format", "", []string{"run", "--output-format", "xml", "hi"}, `rein: --output-format must be text, json or stream-json (got "xml")`},
		{"bad steps value", "", []string{"run", "--max-steps", "many", "hi"}, `rein: invalid argument "many" for "--max-steps" flag: strconv.ParseInt: parsing "many": invalid syntax; see 'rein run --help'`},
		{"zero steps", "", []string{"run", "--max-steps", "0", "hi"}, "rein: invalid flag value: --max-steps must be between 1 and 1048576 (got 0)"},
		{"bad provider", "", []string{"run", "--provider", "gemini", "hi"}, `rein: invalid flag value: --provider must be "openai" or "anthropic" (got "gemini")`},
		{"empty stdin", "  \n", []string{"run", "-"}, "rein: the prompt on stdin is empty: pipe the task into rein run -"},
		{"missing workspace", "", []string{"run", "-C", "/nonexistent/rein-ws", "hi"}, "rein: -C /nonexistent/rein-ws: no such directory; pass an existing workspace directory"},
		{"mistyped command", "", []string{"sesions"}, `rein: unknown command "sesions"; did you mean "sessions"? (to send "sesions" to the model as the prompt, write rein -- sesions)`},
		{"prompt without a terminal", "", []string{"walk"}, noTerminalHint},
		{"bare rein without a terminal", "", nil, noTerminalHint},
		{"chat flag of headless runs", "", []string{"--output-format", "json", "hi"}, "rein: --output-format is a flag of headless runs: add -p (rein -p --output-format … PROMPT), or use rein run"},
		{"resume and session", "", []string{"-p", "--session", "s1", "-r", "s2", "hi"}, "rein: --session, --resume and --continue each choose the session to resume; give one"},
		{"resume and continue", "", []string{"-c", "-r", "hi there"}, "rein: --session, --resume and --continue each choose the session to resume; give one"},
		{"chat args", "", []string{"chat", "hello"}, `rein: chat takes no arguments (got "hello"); see 'rein chat --help'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			res := e.invoke(tt.stdin).run(t, tt.args...)
			if res.code != 2 {
				t.Errorf("exit %d, want 2", res.code)
			}
			if diff := cmp.Diff([]string{tt.want}, lines(res.stderr)); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigErrorsExitOne(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\nendpont = \"http://x\"\n")
	res := e.run(t, "run", "hi")
	want := fmt.Sprintf(`rein: config: %s/.config/rein/config.toml:2: unknown key "model.endpont" (did you mean "endpoint"?)`, e.home)
	if res.code != 1 || len(lines(res.stderr)) != 1 || lines(res.stderr)[0] != want {
		t.Errorf("exit %d stderr %q, want 1 and %q", res.code, res.stderr, want)
	}
}

func TestProjectConfigCannotRedirect(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(e.workspace+"/.rein", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.workspace+"/.rein/config.toml", []byte("[model]\nendpoint = \"http://attacker.example\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := e.run(t, "run", "hi")
	if res.code != 1 || !strings.Contains(res.stderr, "model.endpoint may not be set in a project config") {
		t.Errorf("exit %d stderr %q", res.code, res.stderr)
	}
}

func TestAnthropicNeedsModel(t *testing.T) {
	e := newEnv(t)
	res := e.run(t, "run", "--provider", "anthropic", "hi")
	want := "rein: the anthropic provider needs a model name: pass --model (for example claude-sonnet-4-5) or set model.model in the config"
	if res.code != 1 || len(lines(res.stderr)) != 1 || lines(res.stderr)[0] != want {
		t.Errorf("exit %d stderr %q", res.code, res.stderr)
	}
}

func TestVersion(t *testing.T) {
	e := newEnv(t)
	res := e.run(t, "version")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "rein ") || !strings.Contains(res.stdout, "go1.") {
		t.Errorf("exit %d stdout %q", res.code, res.stdout)
	}
}

func TestSettingsReachTheRequest(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("ok")))
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\ntemperature = 0.25\nmax_tokens = 512\n")
	res := e.run(t, "run", "-e", srv.URL, "--system", "Be terse.", "-m", "gpt-oss-20b", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	body := requestJSON(t, srv.Requests()[0].Body)
	got := map[string]any{"model": body["model"], "temperature": body["temperature"], "max_tokens": body["max_tokens"]}
	want := map[string]any{"model": "gpt-oss-20b", "temperature": 0.25, "max_tokens": float64(512)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request fields (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"system:Be terse.", "user:hi"}, messageTexts(t, srv.Requests()[0].Body)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	var names []string
	for _, tl := range body["tools"].([]any) {
		fn, _ := tl.(map[string]any)["function"].(map[string]any)
		name, _ := fn["name"].(string)
		names = append(names, name)
	}
	wantTools := []string{"read_file", "list_dir", "glob", "grep", "git_status", "git_diff", "write_file", "edit_file", "apply_patch", "run_command", "now", "calculator", "web_fetch", "todo_write", "remember", "recall", "forget", "task"}
	if diff := cmp.Diff(wantTools, names); diff != "" {
		t.Errorf("request offers (-want +got):\n%s", diff)
	}
}

// anthropicText is a minimal Messages API event stream answering text.
func anthropicText(text string) string {
	js, _ := json.Marshal(text)
	return "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":11,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: ping\ndata: {\"type\":\"ping\"}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":" + string(js) + "}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
}

func TestAnthropicProvider(t *testing.T) {
	const key = "anthropic-test-key-123456"
	srv := modeltest.NewServer(t, sse(anthropicText("Bonjour.")))
	e := newEnv(t)
	e.vars["ANTHROPIC_API_KEY"] = key
	e.vars["OPENAI_API_KEY"] = "wrong-key-for-this-provider"
	res := e.run(t, "run", "--provider", "anthropic", "-e", srv.URL, "-m", "claude-sonnet-4-5", "--output-format", "json", "Say hello in French.")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	out := decodeJSONOut(t, res.stdout)
	if out.Text != "Bonjour." || out.Usage.InputTokens != 11 || out.Usage.OutputTokens != 5 {
		t.Errorf("json = %+v", out)
	}
	req := srv.Requests()[0]
	if req.Path != "/v1/messages" || req.Header.Get("X-Api-Key") != key {
		t.Errorf("request to %s with x-api-key %q, want /v1/messages with the ANTHROPIC_API_KEY", req.Path, req.Header.Get("X-Api-Key"))
	}
}
