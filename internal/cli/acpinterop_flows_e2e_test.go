package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// The official SDK client offers its fs methods: rein reads the editor's
// buffer instead of the disk and writes through the client; then a
// streaming turn cancelled by the client answers "cancelled" promptly and
// the session takes the next prompt.
func TestACPOfficialSDKClientFileSystemAndCancel(t *testing.T) {
	e := newEnv(t)
	os.WriteFile(filepath.Join(e.workspace, "a.txt"), []byte("on disk\n"), 0o644)
	body := textBody("partial ", "never shown")
	cut := strings.Index(body, "never")
	srv := modeltest.NewServer(t,
		sse(toolBody("f1", "read_file", `{"path":"a.txt"}`)),
		sse(toolBody("f2", "write_file", `{"path":"b.txt","content":"written\n"}`)),
		sse(textBody("done")),
		modeltest.Stall(body, cut-20, time.Minute),
		sse(textBody("resumed")))
	out := runSDKClient(t, "fs-cancel", e, srv.URL)
	var got struct {
		SessionID    string           `json:"sessionId"`
		Stops        []string         `json:"stops"`
		CancelMillis int              `json:"cancelMillis"`
		Updates      []map[string]any `json:"updates"`
		Reads        []struct {
			SessionID string `json:"sessionId"`
			Path      string `json:"path"`
		} `json:"reads"`
		Writes []struct {
			SessionID string `json:"sessionId"`
			Path      string `json:"path"`
			Content   string `json:"content"`
		} `json:"writes"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	if strings.Join(got.Stops, ",") != "end_turn,cancelled,end_turn" {
		t.Fatalf("stop reasons %v", got.Stops)
	}
	if got.CancelMillis > 10000 {
		t.Errorf("the cancel took %d ms", got.CancelMillis)
	}
	if len(got.Reads) != 1 || got.Reads[0].Path != filepath.Join(e.workspace, "a.txt") || got.Reads[0].SessionID != got.SessionID {
		t.Fatalf("the client's reads %+v", got.Reads)
	}
	if len(got.Writes) != 1 || got.Writes[0].Path != filepath.Join(e.workspace, "b.txt") || got.Writes[0].Content != "written\n" || got.Writes[0].SessionID != got.SessionID {
		t.Fatalf("the client's writes %+v", got.Writes)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 || !strings.Contains(string(reqs[4].Body), "again") {
		t.Fatalf("%d model requests; the prompt after the cancel did not reach the model", len(reqs))
	}
	if body := string(reqs[1].Body); !strings.Contains(body, "unsaved buffer") || strings.Contains(body, "on disk") {
		t.Fatalf("the model did not see the editor's buffer: %.3000s", body)
	}
	// rein wrote (and journaled) the file on disk as well.
	if data, _ := os.ReadFile(filepath.Join(e.workspace, "b.txt")); string(data) != "written\n" {
		t.Fatalf("b.txt: %q", data)
	}
	diff := false
	for _, u := range got.Updates {
		if u["toolCallId"] == "f2" && strings.Contains(jsonString(u["content"]), `"newText":"written\n"`) && strings.Contains(jsonString(u["content"]), `"type":"diff"`) {
			diff = true
		}
	}
	if !diff {
		t.Errorf("the edit written through the client was not shown as a diff: %s", jsonString(got.Updates))
	}
	all := jsonString(got.Updates)
	if !strings.Contains(all, `"text":"partial "`) || strings.Contains(all, "never shown") || !strings.Contains(all, `"text":"resumed"`) {
		t.Fatalf("the cancelled turn's stream: %s", all)
	}
}

// The official SDK client loads a session after the agent that held it
// was killed with SIGKILL: a new rein acp replays the history as
// session/update and a prompt continues the conversation.
func TestACPOfficialSDKClientLoadAfterKill(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t, sse(textBody("first answer")), sse(textBody("second answer")))
	out := runSDKClient(t, "load", e, srv.URL)
	type notification struct {
		SessionID string         `json:"sessionId"`
		Update    map[string]any `json:"update"`
	}
	var got struct {
		Before struct {
			SessionID string `json:"sessionId"`
			Stop      string `json:"stop"`
		} `json:"before"`
		Killed struct {
			Signal string `json:"signal"`
		} `json:"killed"`
		After struct {
			LoadSession bool           `json:"loadSession"`
			Modes       map[string]any `json:"modes"`
			Stop        string         `json:"stop"`
		} `json:"after"`
		Replay []notification `json:"replay"`
		Later  []notification `json:"later"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	if got.Before.Stop != "end_turn" || got.Killed.Signal != "SIGKILL" || !got.After.LoadSession || got.After.Modes == nil || got.After.Stop != "end_turn" {
		t.Fatalf("summary %s", out)
	}
	var user, agent []string
	for _, n := range got.Replay {
		if n.SessionID != got.Before.SessionID {
			t.Fatalf("a replayed update for another session: %+v", n)
		}
		content, _ := n.Update["content"].(map[string]any)
		text, _ := content["text"].(string)
		switch n.Update["sessionUpdate"] {
		case "user_message_chunk":
			user = append(user, text)
		case "agent_message_chunk":
			agent = append(agent, text)
		}
	}
	if !strings.Contains(strings.Join(user, ""), "hello there") || strings.Join(agent, "") != "first answer" {
		t.Fatalf("replay: user %q agent %q in %s", user, agent, jsonString(got.Replay))
	}
	if later := jsonString(got.Later); !strings.Contains(later, "second answer") || strings.Contains(later, "first answer") {
		t.Fatalf("the continued turn's updates: %s", later)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if last := string(reqs[1].Body); !strings.Contains(last, "hello there") || !strings.Contains(last, "first answer") || !strings.Contains(last, "go on") {
		t.Fatalf("the continued session did not carry its history: %.3000s", last)
	}
}

// The official SDK client cancels while a permission request is pending
// and then answers it "cancelled", as the protocol asks: the command does
// not run, the turn stops "cancelled" and the session takes a new prompt.
func TestACPOfficialSDKClientCancelPendingPermission(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "run_command", `{"command":"touch never.txt"}`)),
		sse(textBody("still here")))
	out := runSDKClient(t, "permission-cancel", e, srv.URL)
	var got struct {
		Stops      []string         `json:"stops"`
		ToolCallID string           `json:"toolCallId"`
		Updates    []map[string]any `json:"updates"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	if strings.Join(got.Stops, ",") != "cancelled,end_turn" || got.ToolCallID != "c1" {
		t.Fatalf("summary %s", out)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "never.txt")); err == nil {
		t.Fatal("the command ran although its permission was cancelled")
	}
	all := jsonString(got.Updates)
	if !strings.Contains(all, `"status":"failed","toolCallId":"c1"`) || !strings.Contains(all, `"text":"still here"`) {
		t.Fatalf("the cancelled call and the prompt after it: %s", all)
	}
	// The cancelled turn asked the model nothing more; the next prompt did.
	if reqs := srv.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "again") {
		t.Fatalf("%d model requests", len(reqs))
	}
}
