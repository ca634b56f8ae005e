package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// acpSDKModules finds a node_modules holding the official ACP SDK: the
// interop one (testdata/interop/package.json pins it), else one named by
// NODE_PATH. The test is skipped, saying why, when there is none.
func acpSDKModules(t *testing.T) (node, modules string) {
	t.Helper()
	interop, err := filepath.Abs("../../testdata/interop/node_modules")
	if err != nil {
		t.Fatal(err)
	}
	node = filepath.Join(interop, ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		node, err = exec.LookPath("node")
		if err != nil {
			t.Skip("ACP SDK INTEROP SKIPPED: no node (npm ci --prefix testdata/interop)")
		}
	}
	for _, dir := range append([]string{interop}, filepath.SplitList(os.Getenv("NODE_PATH"))...) {
		if _, err := os.Stat(filepath.Join(dir, "@agentclientprotocol", "sdk", "package.json")); err == nil {
			return node, dir
		}
	}
	msg := `ACP SDK INTEROP SKIPPED: @agentclientprotocol/sdk is not installed (add "@agentclientprotocol/sdk": "2.4.0" to testdata/interop/package.json and npm ci --prefix testdata/interop)`
	if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return "", ""
}

// runSDKClient runs testdata/interop/acp/client.mjs in mode against a
// rein acp on modelURL in e and returns its JSON summary.
func runSDKClient(t *testing.T, mode string, e *env, modelURL string) []byte {
	t.Helper()
	node, modules := acpSDKModules(t)
	// ESM resolves packages next to the script, so it runs from a copy
	// beside a link to the modules.
	dir := t.TempDir()
	src, err := os.ReadFile("../../testdata/interop/acp/client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "client.mjs")
	os.WriteFile(script, src, 0o644)
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, mode, reinBinary(t), e.workspace, modelURL, filepath.Join(e.home, "state"))
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH")}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the SDK client (%s): %v\n%s\n%s", mode, err, out, stderr.String())
	}
	return out
}

func TestACPOfficialSDKClient(t *testing.T) {
	e := newEnv(t)
	os.WriteFile(filepath.Join(e.workspace, "notes.txt"), []byte("old\n"), 0o644)
	srv := modeltest.NewServer(t,
		sse(toolBody("w1", "write_file", `{"path":"notes.txt","content":"new\n"}`)),
		sse(textBody("Edited.")),
		sse(toolBody("r1", "run_command", `{"command":"touch yes.txt"}`)),
		sse(textBody("Ran.")),
		sse(toolBody("r2", "run_command", `{"command":"touch no.txt"}`)),
		sse(textBody("Did not.")))
	out := runSDKClient(t, "basic", e, srv.URL)
	var got struct {
		Init struct {
			ProtocolVersion   int `json:"protocolVersion"`
			AgentCapabilities struct {
				LoadSession bool `json:"loadSession"`
			} `json:"agentCapabilities"`
		} `json:"init"`
		Modes struct {
			CurrentModeID string `json:"currentModeId"`
		} `json:"modes"`
		Stops       []string         `json:"stops"`
		Updates     []map[string]any `json:"updates"`
		Permissions []struct {
			ToolCallID string   `json:"toolCallId"`
			Options    []string `json:"options"`
		} `json:"permissions"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	if got.Init.ProtocolVersion != 1 || !got.Init.AgentCapabilities.LoadSession || got.Modes.CurrentModeID != "editor" {
		t.Fatalf("initialize/new: %+v", got)
	}
	if strings.Join(got.Stops, ",") != "end_turn,end_turn,end_turn" {
		t.Fatalf("stop reasons %v", got.Stops)
	}
	if len(got.Permissions) != 2 || got.Permissions[0].ToolCallID != "r1" || got.Permissions[1].ToolCallID != "r2" {
		t.Fatalf("permission requests %+v", got.Permissions)
	}
	all := jsonString(got.Updates)
	for _, want := range []string{`"type":"diff"`, `"newText":"new\n"`, `"oldText":"old\n"`, `"text":"Edited."`, `"currentModeId":"full"`} {
		if !strings.Contains(all, want) {
			t.Errorf("no %s in the updates: %s", want, all)
		}
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "yes.txt")); err != nil {
		t.Error("the command allowed once did not run")
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "no.txt")); err == nil {
		t.Error("the rejected command ran")
	}
}
