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
			e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[mcp_servers.everything]\n"+server+
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
