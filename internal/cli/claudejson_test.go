package cli_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// A Claude Code stream-json parser, as a script written for claude -p
// would have it: the documented line types and fields, decoded into
// their structs; an unknown type is an error.

type ccUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   string          `json:"content"`
	IsError   bool            `json:"is_error"`
}

type ccMessage struct {
	ID         string    `json:"id"`
	Type       string    `json:"type"`
	Role       string    `json:"role"`
	Model      string    `json:"model"`
	Content    []ccBlock `json:"content"`
	StopReason string    `json:"stop_reason"`
	Usage      ccUsage   `json:"usage"`
}

type ccResult struct {
	Type              string   `json:"type"`
	Subtype           string   `json:"subtype"`
	IsError           *bool    `json:"is_error"`
	DurationMS        *int64   `json:"duration_ms"`
	DurationAPIMS     *int64   `json:"duration_api_ms"`
	NumTurns          *int     `json:"num_turns"`
	Result            *string  `json:"result"`
	SessionID         string   `json:"session_id"`
	TotalCostUSD      *float64 `json:"total_cost_usd"`
	Usage             ccUsage  `json:"usage"`
	PermissionDenials []struct {
		ToolName  string          `json:"tool_name"`
		ToolUseID string          `json:"tool_use_id"`
		ToolInput json.RawMessage `json:"tool_input"`
	} `json:"permission_denials"`
	Errors []string `json:"errors"`
	UUID   string   `json:"uuid"`
}

type ccLine struct {
	Type            string          `json:"type"`
	Subtype         string          `json:"subtype"`
	SessionID       string          `json:"session_id"`
	UUID            string          `json:"uuid"`
	ParentToolUseID *string         `json:"parent_tool_use_id"`
	Message         *ccMessage      `json:"message"`
	Event           json.RawMessage `json:"event"`
	// system/init
	CWD            string            `json:"cwd"`
	Model          string            `json:"model"`
	Tools          []string          `json:"tools"`
	MCPServers     []json.RawMessage `json:"mcp_servers"`
	PermissionMode string            `json:"permissionMode"`
	// the result line, decoded again as ccResult
	result *ccResult
}

// parseClaudeStream decodes stdout as Claude Code's stream-json.
func parseClaudeStream(t *testing.T, stdout string) []ccLine {
	t.Helper()
	var out []ccLine
	for i, l := range lines(stdout) {
		var c ccLine
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i+1, err, l)
		}
		switch {
		case c.Type == "system" && (c.Subtype == "init" || c.Subtype == "compact_boundary"):
		case c.Type == "assistant" || c.Type == "user":
			if c.Message == nil || len(c.Message.Content) == 0 {
				t.Fatalf("line %d: %s without message content: %s", i+1, c.Type, l)
			}
		case c.Type == "stream_event":
			if len(c.Event) == 0 {
				t.Fatalf("line %d: stream_event without event: %s", i+1, l)
			}
		case c.Type == "result":
			c.result = parseClaudeResult(t, l)
		default:
			t.Fatalf("line %d: type %q subtype %q is not a Claude Code line: %s", i+1, c.Type, c.Subtype, l)
		}
		if c.SessionID == "" || c.UUID == "" {
			t.Fatalf("line %d has no session_id or uuid: %s", i+1, l)
		}
		out = append(out, c)
	}
	if len(out) == 0 || out[len(out)-1].Type != "result" {
		t.Fatalf("the stream does not end with a result line:\n%s", stdout)
	}
	return out
}

// parseClaudeResult decodes a result object, failing when a documented
// field is missing.
func parseClaudeResult(t *testing.T, s string) *ccResult {
	t.Helper()
	var r ccResult
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, s)
	}
	u := r.Usage
	if r.Type != "result" || r.Subtype == "" || r.IsError == nil || r.DurationMS == nil || r.DurationAPIMS == nil ||
		r.NumTurns == nil || r.Result == nil || r.SessionID == "" || r.TotalCostUSD == nil || r.UUID == "" ||
		u.InputTokens == nil || u.OutputTokens == nil || u.CacheCreationInputTokens == nil || u.CacheReadInputTokens == nil ||
		r.PermissionDenials == nil {
		t.Fatalf("result lacks a Claude Code field: %s", s)
	}
	return &r
}

func ofType(ls []ccLine, typ string) []ccLine {
	var out []ccLine
	for _, l := range ls {
		if l.Type == typ {
			out = append(out, l)
		}
	}
	return out
}

// TestClaudeStreamToolRun: a tool-using run in Claude Code's stream
// shape reads with a Claude parser: init, the assistant's tool_use, the
// user's tool_result, the answer, the result; one session id throughout.
// The file the tool reads holds the API key and an escape sequence:
// neither reaches stdout raw.
func TestClaudeStreamToolRun(t *testing.T) {
	const key = "sk-claude-shape-1234567890"
	e := newEnv(t)
	writeFiles(t, e.workspace, map[string]string{"notes.txt": "key " + key + " \x1b]0;pwned\x07 end\n"})
	srv := modeltest.NewServer(t,
		sse(toolBody("call_1", "read_file", `{"path":"notes.txt"}`)),
		modeltest.Stall(textBody("done"), 60, 300*time.Millisecond),
	)
	code, stdout, stderr := e.runBinary(t, "run", "--output-format", "stream-json", "--stream-format", "claude",
		"-e", srv.URL, "-k", key, "-m", "test-model", "read notes.txt")
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", code, stderr, stdout)
	}
	if strings.Contains(stdout, key) || strings.ContainsAny(stdout, "\x1b\x07") {
		t.Fatalf("stdout carries the key or a raw control character:\n%q", stdout)
	}
	ls := parseClaudeStream(t, stdout)
	init := ls[0]
	if init.Type != "system" || init.Subtype != "init" || init.CWD != e.workspace || init.Model != "test-model" ||
		!contains(init.Tools, "read_file") || init.MCPServers == nil || init.PermissionMode == "" {
		t.Errorf("init = %+v", init)
	}
	for _, l := range ls {
		if l.SessionID != init.SessionID || l.ParentToolUseID != nil {
			t.Errorf("line %s: session %q parent %v, want %q and none", l.Type, l.SessionID, l.ParentToolUseID, init.SessionID)
		}
	}
	as, us := ofType(ls, "assistant"), ofType(ls, "user")
	if len(as) != 2 || len(us) != 1 {
		t.Fatalf("%d assistant and %d user lines, want 2 and 1:\n%s", len(as), len(us), stdout)
	}
	call := as[0].Message
	last := call.Content[len(call.Content)-1]
	if call.Role != "assistant" || call.Type != "message" || call.StopReason != "tool_use" || call.Content[0].Type != "thinking" ||
		last.Type != "tool_use" || last.ID != "call_1" || last.Name != "read_file" || string(last.Input) != `{"path":"notes.txt"}` ||
		*call.Usage.InputTokens != 30 || *call.Usage.OutputTokens != 12 {
		t.Errorf("tool call message = %+v", call)
	}
	tr := us[0].Message.Content[0]
	if us[0].Message.Role != "user" || tr.Type != "tool_result" || tr.ToolUseID != "call_1" || tr.IsError ||
		!strings.Contains(tr.Content, "[REDACTED]") || !strings.Contains(tr.Content, " end") {
		t.Errorf("tool result = %+v", tr)
	}
	answer := as[1].Message
	if answer.StopReason != "end_turn" || len(answer.Content) != 1 || answer.Content[0].Type != "text" || answer.Content[0].Text != "done" {
		t.Errorf("answer = %+v", answer)
	}
	r := ls[len(ls)-1].result
	if r.Subtype != "success" || *r.IsError || *r.NumTurns != 2 || *r.Result != "done" || r.SessionID != init.SessionID ||
		*r.Usage.InputTokens != 50 || *r.Usage.OutputTokens != 13 || *r.TotalCostUSD != 0 || len(r.PermissionDenials) != 0 {
		t.Errorf("result = %+v", r)
	}
	// The second call stalls 300 ms: model time is measured, and is
	// part of the wall time.
	if *r.DurationAPIMS < 250 || *r.DurationAPIMS > *r.DurationMS {
		t.Errorf("duration_api_ms %d, duration_ms %d: want ≥ 250 and ≤ the wall time", *r.DurationAPIMS, *r.DurationMS)
	}
}

// TestClaudeJSONResult: json output (rein -p, as claude -p) is Claude
// Code's result object with rein's fields beside; a denied call is a
// permission denial; with prices the cost is computed; cached prompt
// tokens are cache_read_input_tokens.
func TestClaudeJSONResult(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\ninput_price = 3\noutput_price = 15\n")
	srv := modeltest.NewServer(t,
		sse(toolBody("call_w", "write_file", `{"path":"x.txt","content":"hi"}`)),
		// The answer's call reports 12 of its 20 prompt tokens cached.
		sse(strings.Replace(textBody("could not write"), `"prompt_tokens":20,`, `"prompt_tokens":20,"prompt_tokens_details":{"cached_tokens":12},`, 1)),
	)
	code, stdout, stderr := e.runBinary(t, "-p", "--output-format", "json", "--preset", "read-only", "--approve", "never", "-e", srv.URL, "write x.txt")
	if len(lines(stdout)) != 1 {
		t.Fatalf("exit %d: json output is not one line:\n%s\nstderr: %s", code, stdout, stderr)
	}
	r := parseClaudeResult(t, stdout)
	out := decodeJSONOut(t, stdout) // rein's own contract, strictly
	want := (50*3 + 13*15) / 1e6
	if *r.Result != out.Text || *r.NumTurns != out.Steps || *r.TotalCostUSD != want || r.SessionID != out.SessionID ||
		*r.Usage.InputTokens != 50 || *r.Usage.CacheReadInputTokens != 12 || *r.Usage.CacheCreationInputTokens != 0 {
		t.Errorf("result %+v, rein fields %+v, cost want %v", r, out, want)
	}
	if len(r.PermissionDenials) != 1 || r.PermissionDenials[0].ToolName != "write_file" || r.PermissionDenials[0].ToolUseID != "call_w" ||
		string(r.PermissionDenials[0].ToolInput) != `{"path":"x.txt","content":"hi"}` {
		t.Errorf("permission_denials = %+v", r.PermissionDenials)
	}
}

// TestClaudeFailedRun: a run the model server refuses is an error
// result (is_error, error_during_execution, the explanation in errors),
// exit 1, in both json and Claude-shaped stream-json.
func TestClaudeFailedRun(t *testing.T) {
	e := newEnv(t)
	for _, format := range [][]string{{"--output-format", "json"}, {"--output-format", "stream-json", "--stream-format", "claude"}} {
		srv := modeltest.NewServer(t, modeltest.Status(401, map[string]string{"Content-Type": "application/json"}, `{"error":{"message":"bad key"}}`))
		args := append([]string{"-p"}, format...)
		code, stdout, stderr := e.runBinary(t, append(args, "-e", srv.URL, "hi")...)
		if code != 1 {
			t.Fatalf("%v: exit %d, want 1\nstderr: %s", format, code, stderr)
		}
		ls := lines(stdout)
		if len(ls) == 0 {
			t.Fatalf("%v: no output; stderr: %s", format, stderr)
		}
		if format[1] == "stream-json" {
			parseClaudeStream(t, stdout)
		}
		r := parseClaudeResult(t, ls[len(ls)-1])
		problem := strings.TrimPrefix(lines(stderr)[len(lines(stderr))-1], "rein: ")
		if !*r.IsError || r.Subtype != "error_during_execution" || len(r.Errors) != 1 || r.Errors[0] != problem {
			t.Errorf("%v: result %+v, want an error with %q", format, r, problem)
		}
	}
}

// TestClaudeMaxTurns: a run stopped by --max-steps is error_max_turns
// (Claude Code's --max-turns), exit 3.
func TestClaudeMaxTurns(t *testing.T) {
	e := newEnv(t)
	for _, format := range [][]string{{"--output-format", "json"}, {"--output-format", "stream-json", "--stream-format", "claude"}} {
		srv := modeltest.NewServer(t, sse(toolBody("c1", "calculator", `{"expression":"1+1"}`)))
		code, stdout, stderr := e.runBinary(t, append(append([]string{"run", "--max-steps", "1"}, format...), "-e", srv.URL, "loop")...)
		if code != 3 {
			t.Fatalf("%v: exit %d, want 3\nstderr: %s", format, code, stderr)
		}
		ls := lines(stdout)
		if format[1] == "stream-json" {
			parseClaudeStream(t, stdout)
		}
		r := parseClaudeResult(t, ls[len(ls)-1])
		if !*r.IsError || r.Subtype != "error_max_turns" || *r.NumTurns != 1 || len(r.Errors) != 1 || !strings.Contains(r.Errors[0], "--max-steps") {
			t.Errorf("%v: result %+v", format, r)
		}
	}
}

// TestClaudeStreamPartialMessages: --include-partial-messages streams the
// answer as stream_event text deltas (and the reasoning as thinking
// deltas) before the whole message.
func TestClaudeStreamPartialMessages(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t, sse(toolBody("c1", "calculator", `{"expression":"1+1"}`)), sse(textBody("fo", "ur")))
	code, stdout, stderr := e.runBinary(t, "-p", "--output-format", "stream-json", "--stream-format", "claude", "--include-partial-messages", "-e", srv.URL, "2+2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var text, thinking strings.Builder
	answers := 0
	for _, l := range parseClaudeStream(t, stdout) {
		switch l.Type {
		case "stream_event":
			var ev struct {
				Type  string `json:"type"`
				Delta struct{ Type, Text, Thinking string }
			}
			if err := json.Unmarshal(l.Event, &ev); err != nil || ev.Type != "content_block_delta" {
				t.Fatalf("stream_event %s: %v", l.Event, err)
			}
			switch ev.Delta.Type {
			case "text_delta":
				text.WriteString(ev.Delta.Text)
			case "thinking_delta":
				thinking.WriteString(ev.Delta.Thinking)
			default:
				t.Fatalf("delta type %q", ev.Delta.Type)
			}
		case "assistant":
			answers++
			if answers == 1 && (thinking.String() != "I should call a tool." || text.Len() != 0) {
				t.Errorf("before the tool call: thinking %q, text %q", thinking.String(), text.String())
			}
			if answers == 2 && (text.String() != "four" || l.Message.Content[0].Text != "four") {
				t.Errorf("deltas %q before the message %+v, want four", text.String(), l.Message.Content)
			}
		}
	}
	if answers != 2 || text.String() != "four" {
		t.Errorf("%d answers, deltas %q", answers, text.String())
	}
}

// TestClaudeStreamFlagsRefused: the stream format flags are refused,
// with what to write instead, where they mean nothing.
func TestClaudeStreamFlagsRefused(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--output-format", "stream-json", "--stream-format", "claude-code", "hi"}, "--stream-format must be rein or claude"},
		{[]string{"run", "--output-format", "json", "--stream-format", "claude", "hi"}, "needs --output-format stream-json"},
		{[]string{"-p", "--stream-format", "claude", "hi"}, "needs --output-format stream-json"},
		{[]string{"run", "--output-format", "stream-json", "--include-partial-messages", "hi"}, "--include-partial-messages needs"},
		{[]string{"--stream-format", "claude", "hi"}, "is a flag of headless runs"},
	} {
		code, stdout, stderr := e.runBinary(t, tc.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) || len(lines(stderr)) != 1 {
			t.Errorf("%v: exit %d stdout %q stderr %q, want exit 2 and one line with %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

// TestClaudeStreamInputTurns: with stream-json input each turn ends with
// its own result line, as Claude Code's SDK mode does; a turn's clock
// starts with the turn, not while its message was awaited.
func TestClaudeStreamInputTurns(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t, sse(textBody("one")), sse(textBody("two")))
	p := e.start(t, "run", "--input-format", "stream-json", "--output-format", "stream-json", "--stream-format", "claude", "-e", srv.URL)
	send := func(m string) { fmt.Fprintf(p.stdin, `{"type":"user","message":{"role":"user","content":%q}}`+"\n", m) }
	send("first")
	waitFor(t, "the first result", 30*time.Second, func() bool { return strings.Contains(p.stdout.String(), `"type":"result"`) })
	time.Sleep(600 * time.Millisecond)
	send("second")
	p.stdin.Close()
	if code := p.wait(t, 45*time.Second); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderr)
	}
	ls := parseClaudeStream(t, p.stdout.String())
	rs := ofType(ls, "result")
	if len(rs) != 2 || *rs[0].result.Result != "one" || *rs[1].result.Result != "two" || rs[1].result.SessionID != rs[0].result.SessionID {
		t.Fatalf("results %+v, want one then two on one session\n%s", rs, p.stdout)
	}
	if d := *rs[1].result.DurationMS; d >= 600 || *rs[1].result.NumTurns != 1 {
		t.Errorf("second turn: duration_ms %d (the wait for its message was 600 ms), num_turns %d", d, *rs[1].result.NumTurns)
	}
}
