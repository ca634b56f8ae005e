package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/policy"
)

// stdioPeerEnv makes the test binary serve the peer server on stdio
// instead of running tests, so a real client can spawn it.
const stdioPeerEnv = "REIN_MCPSERVER_TEST_STDIO_PEER"

func TestMain(m *testing.M) {
	if os.Getenv(stdioPeerEnv) == "1" {
		os.Exit(servePeerStdio())
	}
	// Every goroutine a test starts must end with it.
	goleak.VerifyTestMain(m)
}

// peerPolicy allows everything but the run tool, which asks — and with no
// approver that is a denial.
var peerPolicy = deciderFunc(func(_ context.Context, c policy.Call) policy.Decision {
	if c.Spec.Name == "run" {
		return policy.Decision{Action: policy.Ask, Reason: "run needs approval: the peer test asks before commands", Rule: "test:ask"}
	}
	return policy.Decision{Action: policy.Allow, Reason: "peer test allows", Rule: "test:allow"}
})

func newPeerServer() (*Server, error) {
	set, err := buildTestTools(&keyRecorder{})
	if err != nil {
		return nil, err
	}
	return New(Config{Tools: set, Policy: peerPolicy, Name: "rein-peer-test", Version: "1.0.0"})
}

// servePeerStdio is the child process's main.
func servePeerStdio() int {
	s, err := newPeerServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := s.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// interopDir returns the directory holding the npm peers, failing under
// REIN_REQUIRE_INTEROP=1 and skipping loudly otherwise when need is not
// installed there.
func interopDir(t *testing.T, need string) string {
	t.Helper()
	dir := os.Getenv("REIN_INTEROP_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata", "interop")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "node_modules", ".bin", "node"), filepath.Join(dir, need)} {
		if _, err := os.Stat(p); err != nil {
			msg := "INTEROP PEER MISSING: " + p + " (run scripts/test, or npm ci --prefix testdata/interop)"
			if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
				t.Fatal(msg)
			}
			t.Skip("SKIPPED: " + msg)
		}
	}
	return dir
}

// peerReport is what ts-client.mjs prints.
type peerReport struct {
	Era          string   `json:"era"`
	Version      string   `json:"version"`
	Server       string   `json:"server"`
	Capabilities []string `json:"capabilities"`
	Tools        []struct {
		Name        string `json:"name"`
		ReadOnly    *bool  `json:"readOnly"`
		Destructive *bool  `json:"destructive"`
	} `json:"tools"`
	CacheScope *string `json:"cacheScope"`
	Echo       struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	} `json:"echo"`
	Denied struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	} `json:"denied"`
}

// TestTypeScriptClient drives rein's server with the TypeScript SDK's
// client over stdio and Streamable HTTP, in both eras and with the era
// probe.
func TestTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns Node; skipped in -short mode")
	}
	dir := interopDir(t, "node_modules/@modelcontextprotocol/client/package.json")
	node := filepath.Join(dir, "node_modules", ".bin", "node")
	script := stageScript(t, dir)

	s, err := newPeerServer()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-served
	})
	url := "http://" + ln.Addr().String() + EndpointPath
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}

	for _, kind := range []string{"stdio", "http"} {
		for _, era := range []string{"legacy", "modern", "auto"} {
			t.Run(kind+"/"+era, func(t *testing.T) {
				args := []string{script, era, kind, url}
				if kind == "stdio" {
					args = []string{script, era, kind, self}
				}
				rep := runPeer(t, node, args)
				t.Logf("TypeScript client over %s (%s): era %s, version %s, denied run: %q", kind, era, rep.Era, rep.Version, rep.Denied.Text)
				wantEra, wantVersion := "modern", modern
				if era == "legacy" {
					wantEra, wantVersion = "legacy", legacy
				}
				if rep.Era != wantEra || rep.Version != wantVersion {
					t.Errorf("negotiated %s %q; want %s %q", rep.Era, rep.Version, wantEra, wantVersion)
				}
				if rep.Server != "rein-peer-test" {
					t.Errorf("server name %q", rep.Server)
				}
				if diff := cmp.Diff([]string{"tools"}, rep.Capabilities); diff != "" {
					t.Errorf("capabilities (-want +got):\n%s", diff)
				}
				var names []string
				for _, tl := range rep.Tools {
					names = append(names, tl.Name)
					if tl.Name == "run" && (tl.ReadOnly == nil || *tl.ReadOnly || tl.Destructive == nil || !*tl.Destructive) {
						t.Errorf("run annotated readOnly=%v destructive=%v", deref(tl.ReadOnly), deref(tl.Destructive))
					}
				}
				if diff := cmp.Diff([]string{"echo", "run", "write_note"}, names); diff != "" {
					t.Errorf("tools (-want +got):\n%s", diff)
				}
				if wantEra == "modern" && (rep.CacheScope == nil || *rep.CacheScope != "private") {
					t.Errorf("tools/list cacheScope = %v, want private", deref(rep.CacheScope))
				}
				if rep.Echo.IsError || rep.Echo.Text != "hello from the TypeScript SDK" {
					t.Errorf("echo: %+v", rep.Echo)
				}
				if !rep.Denied.IsError || !strings.Contains(rep.Denied.Text, "tool call denied: run needs approval") ||
					!strings.Contains(rep.Denied.Text, "no one to ask") {
					t.Errorf("run was not denied with the reason: %+v", rep.Denied)
				}
			})
		}
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// stageScript copies ts-client.mjs next to a node_modules link to the
// interop packages.
func stageScript(t *testing.T, interop string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "ts-client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ts-client.mjs"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(interop, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "ts-client.mjs")
}

// runPeer runs the client script and decodes its report.
func runPeer(t *testing.T, node string, args []string) peerReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(os.Environ(), stdioPeerEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ts-client %s: %v\nstderr:\n%s", strings.Join(args[1:3], " "), err, stderr.String())
	}
	var rep peerReport
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rep); err != nil {
		t.Fatalf("ts-client printed %q: %v\nstderr:\n%s", out, err, stderr.String())
	}
	return rep
}
