package hooks

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

func TestTranscriptWritesClaudeShapedLines(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "transcripts")
	tr := NewTranscript(dir, nil)
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	call := model.ToolCall{ID: "c1", Name: "run_command", Args: json.RawMessage(`{"command":"curl -H 'Authorization: Bearer abcdefghijklmnop' x"}`)}
	events := []agent.Event{
		{Type: agent.EventSessionStarted, RunID: "s/1", Time: now},
		{Type: agent.EventMessage, RunID: "s/1", Time: now, Message: &model.Message{Role: model.RoleUser, Parts: []model.Part{model.TextPart("hi \\\" there token=sk-abcdefghijkl\\")}}},
		{Type: agent.EventTextDelta, RunID: "s/1", Time: now, Text: "ignored"},
		{Type: agent.EventMessage, RunID: "s/1", Time: now, Message: &model.Message{Role: model.RoleAssistant, Parts: []model.Part{model.TextPart("ok"), model.ToolCallPart(call)}}},
		{Type: agent.EventToolDecision, RunID: "s/1", Time: now, Decision: &agent.Decision{CallID: "c1", Tool: "run_command", Action: "allow"}},
		{Type: agent.EventMessage, RunID: "s/1", Time: now, Message: &model.Message{Role: model.RoleTool, Parts: []model.Part{model.ToolResultPart(model.ToolResult{CallID: "c1", Content: "exit code 0"})}}},
		{Type: agent.EventSessionCompleted, RunID: "s/1", Time: now, Outcome: &agent.Outcome{Kind: agent.Complete}},
	}
	for _, ev := range events {
		tr.OnEvent(ctx, ev)
	}
	path := TranscriptPath(dir, "s/1")
	if filepath.Base(path) != "s_1.jsonl" {
		t.Errorf("path = %s", path)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("transcript mode = %v, want 0600", st.Mode().Perm())
	}
	f, _ := os.Open(path)
	defer f.Close()
	var types []string
	sc := bufio.NewScanner(f)
	var text string
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line is not JSON: %v\n%s", err, sc.Text())
		}
		types = append(types, line["type"].(string))
		text += sc.Text() + "\n"
	}
	want := "rein.session_started user assistant rein.tool_decision user rein.session_completed"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("line types = %s, want %s", got, want)
	}
	for _, s := range []string{`"type":"tool_use"`, `"name":"Bash"`, `"type":"tool_result"`, `"tool_use_id":"c1"`} {
		if !strings.Contains(text, s) {
			t.Errorf("transcript lacks %s:\n%s", s, text)
		}
	}
	for _, s := range []string{"abcdefghijklmnop", "sk-abcdefghijkl"} {
		if strings.Contains(text, s) {
			t.Errorf("transcript holds the secret %s:\n%s", s, text)
		}
	}
}

func TestTranscriptPathIsConfined(t *testing.T) {
	for _, id := range []string{"../../etc/passwd", "..", "", "a b", "\x00"} {
		p := TranscriptPath("/state/t", id)
		if filepath.Dir(p) != "/state/t" || strings.HasPrefix(filepath.Base(p), ".") {
			t.Errorf("TranscriptPath(%q) = %s", id, p)
		}
	}
}
