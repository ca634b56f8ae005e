package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/model/openai"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/tool"
)

// The crash test runs the harness in a child process — this test binary
// re-executed with crashHelperEnv set — so that it can be killed with
// SIGKILL like a real rein, and then resumed in a second child, as
// `rein run --continue` does.
const crashHelperEnv = "REIN_SESSION_CRASH_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(crashHelperEnv) != "" {
		os.Exit(crashHelper())
	}
	// Every goroutine a test starts must end with it.
	goleak.VerifyTestMain(m)
}

// crashHelper is the child's main: it starts (or, with mode "continue",
// resumes the latest session of) a headless run against the model server
// and the slow marker tool.
func crashHelper() int {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	get := os.Getenv
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "crash helper:", err)
		return 1
	}
	store, err := session.Open(ctx, session.Config{Path: get("CRASH_DB")})
	if err != nil {
		return fail(err)
	}
	defer store.Close()
	ws := get("CRASH_WORKSPACE")
	var (
		conv  *agent.Conversation
		j     session.Journal
		input string
	)
	switch get(crashHelperEnv) {
	case "write":
		return writeForever(ctx, store, ws)
	case "start":
		info, err := store.Create(ctx, session.Info{Workspace: ws})
		if err != nil {
			return fail(err)
		}
		if j, err = store.Journal(ctx, info.ID); err != nil {
			return fail(err)
		}
		conv, input = agent.NewConversation(info.ID), "mark fast, then slow"
	case "continue":
		latest, err := store.Latest(ctx, ws)
		if err != nil {
			return fail(err)
		}
		res, err := session.Resume(ctx, store, latest.ID, nil)
		if err != nil {
			return fail(err)
		}
		conv, j = res.Conversation, res.Journal
	}
	defer j.Close()
	p, err := openai.New(openai.Config{BaseURL: get("CRASH_MODEL"), Model: "m", ContextWindow: 32768})
	if err != nil {
		return fail(err)
	}
	set, err := tool.NewSet(slowMarker(get("CRASH_MARKER")))
	if err != nil {
		return fail(err)
	}
	a, err := agent.New(agent.Config{Provider: p, Tools: set, Journal: j, ContextWindow: 32768})
	if err != nil {
		return fail(err)
	}
	out, err := a.RunToEnd(ctx, conv, input)
	if err != nil {
		return fail(err)
	}
	fmt.Println("outcome:", out.Kind)
	return 0
}

// slowMarker appends "start N" to the marker file, works (for a minute
// when N is "slow": the parent kills the process meanwhile), then appends
// "done N".
func slowMarker(path string) tool.Tool {
	appendLine := func(s string) error {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = fmt.Fprintln(f, s)
		return err
	}
	return tool.Func("mark", "append to the marker file, slowly", func(ctx context.Context, in markIn) (string, error) {
		if err := appendLine("start " + in.N); err != nil {
			return "", err
		}
		if in.N == "slow" {
			select {
			case <-time.After(time.Minute):
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		return "marked " + in.N, appendLine("done " + in.N)
	}, tool.WithEffects(tool.Effects{WritesFiles: true}), tool.WithTimeout(2*time.Minute))
}

// TestCrashMidToolCallThenContinue kills the harness while a call runs
// and resumes it in a fresh process, with unique call ids and with the
// ids a llama.cpp-style server sends (call_0 every turn): either way the
// finished call runs once, the interrupted one never again, and the model
// is told it was interrupted.
func TestCrashMidToolCallThenContinue(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	for _, ids := range [][3]string{{"c1", "c2", "c3"}, {"call_0", "call_0", "call_0"}} {
		t.Run(ids[0]+"-"+ids[1], func(t *testing.T) { crashMidCallThenContinue(t, ids) })
	}
}

func crashMidCallThenContinue(t *testing.T, ids [3]string) {
	dir := t.TempDir()
	env := []string{
		"CRASH_DB=" + filepath.Join(dir, "state", session.DatabaseFile),
		"CRASH_WORKSPACE=" + dir,
		"CRASH_MARKER=" + filepath.Join(dir, "marker"),
	}
	srv := modeltest.NewServer(t,
		sse(toolCallBody(ids[0], "mark", `{"n":"fast"}`)),
		sse(toolCallBody(ids[1], "mark", `{"n":"slow"}`)),
		// After the resume:
		sse(toolCallBody(ids[2], "mark", `{"n":"after"}`)),
		sse(textBody("all marked")),
	)
	env = append(env, "CRASH_MODEL="+srv.URL)

	// First run: killed while the slow call is running.
	child := startHelper(t, "start", env)
	waitForFile(t, filepath.Join(dir, "marker"), "start slow\n")
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()

	// --continue: a fresh process resumes the latest session and finishes.
	out, err := runHelper(t, "continue", env)
	if err != nil || !strings.Contains(out, "outcome: complete") {
		t.Fatalf("continue: %v\n%s", err, out)
	}

	marks, err := os.ReadFile(filepath.Join(dir, "marker"))
	if err != nil {
		t.Fatal(err)
	}
	want := "start fast\ndone fast\nstart slow\nstart after\ndone after\n"
	if diff := cmp.Diff(want, string(marks)); diff != "" {
		t.Errorf("marker file (-want +got): finished calls must run once, the interrupted one never again\n%s", diff)
	}

	// The model was told: the first request after the resume carries the
	// fast call's real result, then the interrupted result for the slow
	// one.
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("the model got %d requests, want 4", len(reqs))
	}
	// (Chat Completions has no is_error flag: failed results carry an
	// "Error: " mark on the wire.)
	wantResults := []wireResult{{ids[0], "marked fast"}, {ids[1], "Error: " + session.InterruptedRunning}}
	if diff := cmp.Diff(wantResults, toolResultList(t, reqs[2].Body)); diff != "" {
		t.Errorf("tool results in the first request after the resume (-want +got):\n%s", diff)
	}
}

func startHelper(t *testing.T, mode string, env []string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, crashHelperEnv+"="+mode)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}

func runHelper(t *testing.T, mode string, env []string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, crashHelperEnv+"="+mode)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func waitForFile(t *testing.T, path, content string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		if strings.Contains(string(data), content) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %q in %s (have %q)", content, path, data)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wireResult is one tool message of an OpenAI chat request.
type wireResult struct{ ID, Content string }

// toolResultList lists the tool messages of an OpenAI chat request body
// in order: ids a server reused appear once per message.
func toolResultList(t *testing.T, body []byte) []wireResult {
	t.Helper()
	var req struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			Content    any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	var out []wireResult
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, wireResult{m.ToolCallID, fmt.Sprint(m.Content)})
		}
	}
	return out
}

// OpenAI-style streaming bodies.

func sse(body string) modeltest.Step {
	return modeltest.Status(http.StatusOK, map[string]string{"Content-Type": "text/event-stream"}, body)
}

func chunk(delta, finish string) string {
	fin := "null"
	if finish != "" {
		fin = `"` + finish + `"`
	}
	return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + fin + `}]}` + "\n\n"
}

func toolCallBody(id, name, args string) string {
	a, _ := json.Marshal(args)
	return chunk(`{"role":"assistant","content":null}`, "") +
		chunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]}`, id, name, a), "") +
		chunk(`{}`, "tool_calls") + "data: [DONE]\n\n"
}

func textBody(text string) string {
	s, _ := json.Marshal(text)
	return chunk(`{"role":"assistant","content":`+string(s)+`}`, "") + chunk(`{}`, "stop") + "data: [DONE]\n\n"
}
