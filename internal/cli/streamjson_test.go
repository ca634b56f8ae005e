package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// streamLines decodes stream-json output into one map per line.
func streamLines(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range lines(stdout) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, l)
		}
		out = append(out, m)
	}
	return out
}

// firstOf returns the first line of type typ, failing when there is none.
func firstOf(t *testing.T, ls []map[string]any, typ string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	for _, l := range ls {
		if l["type"] == typ && (match == nil || match(l)) {
			return l
		}
	}
	t.Fatalf("no %s line in the stream", typ)
	return nil
}

func resultOf(name string) func(map[string]any) bool {
	return func(l map[string]any) bool {
		tr, _ := l["tool_result"].(map[string]any)
		return tr["name"] == name
	}
}

// TestStreamJSONFields: session.started describes the session as Claude
// Code's system/init does; a run_command result carries exit_code and
// duration_ms; a file tool's result the files and line counts it changed.
func TestStreamJSONFields(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.workspace, map[string]string{"notes.txt": "one\ntwo\nthree\n"})
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "run_command", `{"command":"exit 3"}`)),
		sse(toolBody("c2", "write_file", `{"path":"notes.txt","content":"one\n2\nthree\nfour\n"}`)),
		sse(textBody("done")),
	)
	res := e.run(t, "run", "--output-format", "stream-json", "--preset", "full", "--approve", "auto", "-e", srv.URL, "-m", "test-model", "go")
	if res.code != 0 {
		t.Fatalf("exit %d stderr %s\n%s", res.code, res.stderr, res.stdout)
	}
	ls := streamLines(t, res.stdout)
	st := firstOf(t, ls, "session.started", nil)
	if v, _ := st["version"].(string); !strings.HasPrefix(v, "rein ") {
		t.Errorf("version %q", st["version"])
	}
	for k, want := range map[string]any{"model": "test-model", "provider": "openai", "workspace": e.workspace, "preset": "full"} {
		if st[k] != want {
			t.Errorf("session.started %s = %v, want %v", k, st[k], want)
		}
	}
	tools, _ := st["tools"].([]any)
	if !strings.Contains(jsonOf(tools), `"run_command"`) || !strings.Contains(jsonOf(tools), `"write_file"`) {
		t.Errorf("tools %v lack run_command", tools)
	}
	if servers, ok := st["mcp_servers"].([]any); !ok || len(servers) != 0 {
		t.Errorf("mcp_servers = %#v, want []", st["mcp_servers"])
	}

	run := firstOf(t, ls, "tool.result", resultOf("run_command"))
	if run["exit_code"] != 3.0 {
		t.Errorf("run_command exit_code = %v, want 3", run["exit_code"])
	}
	if d, ok := run["duration_ms"].(float64); !ok || d < 0 {
		t.Errorf("run_command duration_ms = %v", run["duration_ms"])
	}
	write := firstOf(t, ls, "tool.result", resultOf("write_file"))
	want := `[{"kind":"modify","lines_added":2,"lines_removed":1,"path":"notes.txt"}]`
	if got := jsonOf(write["files"]); got != want {
		t.Errorf("write_file files = %s, want %s", got, want)
	}
	if _, ok := write["exit_code"]; ok {
		t.Error("a file tool's result carries exit_code")
	}
}

// TestStreamJSONErrorLine: the error event's "error" is the line text
// output prints on stderr, its "cause" the raw error.
func TestStreamJSONErrorLine(t *testing.T) {
	body := textBody("The partial", " answer that never", " finishes")
	cut := strings.Index(body, "never") + 10
	srv := modeltest.NewServer(t, modeltest.ResetAfter(body, cut))
	e := newEnv(t)
	res := e.run(t, "run", "--output-format", "stream-json", "-e", srv.URL, "hi")
	if res.code != 1 {
		t.Fatalf("exit %d", res.code)
	}
	ls := streamLines(t, res.stdout)
	ev := firstOf(t, ls, "error", nil)
	text := strings.TrimPrefix(lines(res.stderr)[0], "rein: ")
	if ev["error"] != text {
		t.Errorf("error = %q, want the text-mode line %q", ev["error"], text)
	}
	if c, _ := ev["cause"].(string); c == "" || c == text {
		t.Errorf("cause = %q, want the raw error", ev["cause"])
	}
	if last := ls[len(ls)-1]; last["type"] != "session.completed" {
		t.Errorf("last line %v, want session.completed after the error", last["type"])
	}
}

// TestJSONResultFields: json output adds duration_ms, num_turns, is_error
// and total_cost_usd: 0 without prices, computed with them.
func TestJSONResultFields(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t, sse(textBody("four")), sse(textBody("five")))
	res := e.run(t, "run", "--output-format", "json", "-e", srv.URL, "2+2")
	out := decodeJSONOut(t, res.stdout)
	if out.DurationMS == nil || *out.DurationMS < 0 || out.NumTurns == nil || *out.NumTurns != 1 || out.IsError == nil || *out.IsError || out.TotalCostUSD == nil || *out.TotalCostUSD != 0 {
		t.Errorf("json without prices: %s", res.stdout)
	}
	// textBody reports 20 input and 1 output tokens.
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\ninput_price = 3\noutput_price = 15\n")
	res = e.run(t, "run", "--output-format", "json", "-e", srv.URL, "2+3")
	out = decodeJSONOut(t, res.stdout)
	want := (float64(out.Usage.InputTokens)*3 + float64(out.Usage.OutputTokens)*15) / 1e6
	if out.TotalCostUSD == nil || *out.TotalCostUSD != want || want == 0 {
		t.Errorf("total_cost_usd = %v, want %v\n%s", out.TotalCostUSD, want, res.stdout)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
