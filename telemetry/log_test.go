package telemetry_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/telemetry"
)

func TestLogWritesOneRedactedEventPerLine(t *testing.T) {
	for _, debug := range []bool{false, true} {
		path := telemetry.LogPath(t.TempDir(), "run-1")
		log, err := telemetry.OpenLog(telemetry.LogConfig{Path: path, Debug: debug})
		if err != nil {
			t.Fatal(err)
		}
		long := strings.Repeat("0123456789", 300) // 3000 bytes, past the 1 KB cap
		p := modeltest.NewScripted(
			modeltest.ToolCalls(echoCall("c1", long), echoCall("c2", "token=sk-proj-AAAABBBBCCCCDDDDEEEE")),
			modeltest.Text("done"),
		)
		out := runWith(t, p, "go", log)
		if out.Kind != agent.Complete {
			t.Fatalf("outcome %+v", out)
		}
		if err := log.Close(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("log mode %v, want 0600", fi.Mode().Perm())
		}
		var types []agent.EventType
		var results []string
		for _, line := range lines(string(data)) {
			var ev agent.Event
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("line is not an event: %v\n%s", err, line)
			}
			types = append(types, ev.Type)
			if ev.ToolResult != nil {
				results = append(results, ev.ToolResult.Content)
			}
			if ev.ToolCall != nil && ev.ToolCall.ID == "c1" {
				args := string(ev.ToolCall.Args)
				if !debug && (len(args) > telemetry.MaxLoggedBytes+64 || !strings.Contains(args, "[truncated: ")) {
					t.Errorf("long arguments not cut: %d bytes", len(args))
				}
				if debug && !strings.Contains(args, long) {
					t.Errorf("debug log cut the arguments")
				}
			}
		}
		want := []agent.EventType{
			"session.started", "message", "message", "tool.call", "tool.decision", "tool.call", "tool.decision",
			"tool.result", "tool.result", "message", "message", "session.completed",
		}
		if debug {
			// Debug also keeps the streaming delta of the final answer.
			want = append(want[:10:10], "text.delta", "message", "session.completed")
		}
		if diff := cmp.Diff(want, types); diff != "" {
			t.Errorf("debug=%v: event types (-want +got):\n%s", debug, diff)
		}
		if strings.Contains(string(data), "sk-proj-AAAA") {
			t.Errorf("debug=%v: the log holds a secret", debug)
		}
		if len(results) != 2 || !strings.Contains(results[1], "[REDACTED]") {
			t.Errorf("debug=%v: results %q; want the second redacted", debug, results)
		}
		if !debug && !strings.HasSuffix(results[0], "[truncated: 3000 bytes]") {
			t.Errorf("long result not cut: %q", results[0][len(results[0])-40:])
		}
	}
}

// TestLogFailureNeverReachesTheRun writes to /dev/full: every write fails
// with ENOSPC, the first failure is reported once, the run completes.
func TestLogFailureNeverReachesTheRun(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	var reported []error
	log, err := telemetry.OpenLog(telemetry.LogConfig{Path: "/dev/full", OnError: func(err error) { reported = append(reported, err) }})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	out := runWith(t, twoToolTurns("x"), "go", log)
	if out.Kind != agent.Complete {
		t.Fatalf("outcome %+v; a failing log must not affect the run", out)
	}
	if len(reported) != 1 || !errors.Is(log.Err(), reported[0]) && log.Err().Error() != reported[0].Error() {
		t.Errorf("reported %v, Err %v; want one report equal to Err", reported, log.Err())
	}
	if !strings.Contains(log.Err().Error(), "the run goes on") {
		t.Errorf("error %q should say the run goes on", log.Err())
	}
}

func TestOpenLogErrors(t *testing.T) {
	if _, err := telemetry.OpenLog(telemetry.LogConfig{}); err == nil {
		t.Error("OpenLog without a path succeeded")
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	if _, err := telemetry.OpenLog(telemetry.LogConfig{Path: filepath.Join(file, "logs", "x.jsonl")}); err == nil {
		t.Error("OpenLog under a regular file succeeded")
	}
}

func TestTruncate(t *testing.T) {
	long := strings.Repeat("é", 20) // 40 bytes, 2 per rune
	args, _ := json.Marshal(map[string]string{"t": long})
	call := model.ToolCall{ID: "c", Name: "n", Args: args}
	res := model.ToolResult{CallID: "c", Content: long}
	msg := model.Message{Role: model.RoleAssistant, Parts: []model.Part{model.TextPart(long), model.ToolCallPart(call)}}
	ev := agent.Event{Type: agent.EventMessage, ToolCall: &call, ToolResult: &res, Message: &msg}
	got := telemetry.Truncate(ev, 9)
	if got.ToolResult.Content != "éééé… [truncated: 40 bytes]" {
		t.Errorf("result cut to %q; want 4 whole runes and the marker", got.ToolResult.Content)
	}
	var s string
	if err := json.Unmarshal(got.ToolCall.Args, &s); err != nil || s != `{"t":"é… [truncated: 48 bytes]` {
		t.Errorf("cut arguments %s: want a JSON string holding their start (%v)", got.ToolCall.Args, err)
	}
	if got.Message.Parts[0].Text != long {
		t.Error("message text was cut; only arguments and results are")
	}
	if string(got.Message.Parts[1].ToolCall.Args) != string(got.ToolCall.Args) {
		t.Error("arguments inside the message were not cut like the event's")
	}
	// The input is untouched.
	if res.Content != long || string(call.Args) != string(args) || string(msg.Parts[1].ToolCall.Args) != string(args) {
		t.Error("Truncate modified its input")
	}
	if small := telemetry.Truncate(ev, 1000); small.ToolCall != ev.ToolCall || small.Message != ev.Message {
		t.Error("Truncate copied an event that needed no cut")
	}
}
