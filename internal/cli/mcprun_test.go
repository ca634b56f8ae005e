package cli_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// interopPeer returns a file of the npm interop peers (REIN_INTEROP_DIR,
// else the repository's testdata/interop); a missing peer fails under
// REIN_REQUIRE_INTEROP=1 and skips loudly otherwise.
func interopPeer(t *testing.T, rel string) string {
	t.Helper()
	dir := os.Getenv("REIN_INTEROP_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata", "interop")
	}
	p, err := filepath.Abs(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		msg := "INTEROP PEER MISSING: " + p + " (run scripts/test, or npm ci --prefix testdata/interop)"
		if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
			t.Fatal(msg)
		}
		t.Skip("SKIPPED: " + msg)
	}
	return p
}

// startEverythingHTTP runs server-everything's Streamable HTTP transport on
// a loopback port (the mcp package's loopback shim keeps it off other
// interfaces) and returns its /mcp URL.
func startEverythingHTTP(t *testing.T, node, js string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	shim, err := filepath.Abs(filepath.Join("..", "..", "mcp", "testdata", "loopback.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--import", shim, js, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	waitFor(t, "server-everything to listen", 30*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// TestRunCallsMCPTools is issue 4's end-to-end check: a headless rein run
// driven by a loopback fake model calls a tool of server-everything, over
// stdio and over Streamable HTTP, and the model gets its result; rein mcp
// list shows the server with its era.
func TestRunCallsMCPTools(t *testing.T) {
	node := interopPeer(t, "node_modules/.bin/node")
	js := interopPeer(t, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			server := fmt.Sprintf("command = %q\nargs = [%q, \"stdio\"]\n", node, js)
			if transport == "http" {
				server = fmt.Sprintf("url = %q\n", startEverythingHTTP(t, node, js))
			}
			e := newEnv(t)
			// The sandboxed node takes longer to start than the default grace
			// on a loaded machine: wait for it.
			e.writeUserConfig(t, "[model]\ncontext_window = 32768\n[mcp]\nstartup_wait = \"20s\"\n\n[mcp_servers.everything]\n"+server+
				"\n[[policy.tools]]\nname = \"everything__*\"\naction = \"allow\"\n")
			srv := modeltest.NewServer(t,
				sse(toolBody("c1", "everything__get-sum", `{"a":19,"b":23}`)),
				sse(textBody("The sum is 42.")),
			)
			res := e.run(t, "run", "--output-format", "json", "-e", srv.URL, "add 19 and 23 with the MCP tool")
			if res.code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("the model got %d requests, want 2", len(reqs))
			}
			if !strings.Contains(string(reqs[0].Body), `"everything__get-sum"`) {
				t.Errorf("the first request does not offer the MCP tool:\n%s", reqs[0].Body)
			}
			if got := toolResults(t, reqs[1].Body)["c1"]; !strings.Contains(got, "42") {
				t.Errorf("the model was given %q for get-sum(19, 23)", got)
			}

			list := e.run(t, "mcp", "list")
			if list.code != 0 || !strings.Contains(list.stdout, "everything") || !strings.Contains(list.stdout, "2025-") && !strings.Contains(list.stdout, "2026-") {
				t.Errorf("rein mcp list: exit %d\nstdout: %s\nstderr: %s", list.code, list.stdout, list.stderr)
			}
			t.Logf("rein mcp list:\n%s", list.stdout)
		})
	}
}

// TestWorkspaceServersNeedTrust checks that a server defined by the
// workspace's .mcp.json (a cloned repository controls it) is not started
// until the user trusts it, and that trusting it as it is lets it start.
func TestWorkspaceServersNeedTrust(t *testing.T) {
	e := newEnv(t)
	marker := filepath.Join(e.workspace, "started")
	// The "server" only proves it ran by touching a file in the
	// workspace (it runs in the sandbox; "$PWD" keeps the marker off the
	// pinned paths), then exits: it is not a working MCP server.
	mcpJSON := `{"mcpServers":{"repo":{"command":"sh","args":["-c","touch \"$PWD\"/started"]}}}`
	writeFiles(t, e.workspace, map[string]string{".mcp.json": mcpJSON})
	srv := modeltest.NewServer(t, sse(textBody("hello")))
	res := e.run(t, "run", "-e", srv.URL, "hi")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "MCP server repo") || !strings.Contains(res.stderr, "rein mcp trust repo") {
		t.Errorf("stderr does not explain the untrusted server:\n%s", res.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted workspace server was started")
	}
	list := e.run(t, "mcp", "trust")
	if list.code != 0 || !strings.Contains(list.stdout, "repo\tnot trusted\truns sh -c 'touch ") {
		t.Errorf("rein mcp trust: exit %d stdout %q stderr %q", list.code, list.stdout, list.stderr)
	}
	if res := e.run(t, "mcp", "trust", "repo"); res.code != 0 || !strings.Contains(res.stdout, "trusted repo: runs sh") {
		t.Fatalf("rein mcp trust repo: exit %d stdout %q stderr %q", res.code, res.stdout, res.stderr)
	}
	if res := e.run(t, "mcp", "trust", "nosuch"); res.code != 2 {
		t.Errorf("trusting an unknown server: exit %d, want 2", res.code)
	}
	e.run(t, "mcp", "list")
	waitFor(t, "the trusted server to start", 10*time.Second, func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
	// A changed command is asked about again.
	os.Remove(marker)
	writeFiles(t, e.workspace, map[string]string{".mcp.json": strings.Replace(mcpJSON, "touch", "touch -c", 1)})
	res = e.run(t, "mcp", "list")
	if !strings.Contains(res.stderr, "rein mcp trust repo") {
		t.Errorf("a changed server was not asked about again:\n%s", res.stderr)
	}
}
