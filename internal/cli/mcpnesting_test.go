package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// TestMCPServerNamingReinItselfEnds: a user configuration whose MCP server
// is rein itself (`rein mcp serve`, which reads the same configuration and
// so starts the same server again) nests a bounded number of reins, the
// run ends, and nothing is left running. Before the depth limit each
// level started the next without end.
func TestMCPServerNamingReinItselfEnds(t *testing.T) {
	bin := reinBinary(t)
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[mcp_servers.inner]\n"+
		fmt.Sprintf("command = %q\nargs = [\"mcp\", \"serve\", \"--approve\", \"auto\"]\nsandbox = false\n", bin))
	srv := modeltest.NewServer(t, sse(textBody("Done.")))
	p := e.start(t, "run", "-e", srv.URL, "--mcp-wait", "20s", "hello")
	p.stdin.Close()
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, p.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the model got %d requests, want 1", len(reqs))
	}
	tools := requestTools(t, reqs[0].Body)
	if !slices.Contains(tools, "inner__read_file") {
		t.Errorf("the nested rein's tools are missing: %v", tools)
	}
	if left := processesWithHome(e.home); len(left) > 0 {
		t.Errorf("processes of the run outlived it: %v", left)
	}
}

// TestMCPDepthLimit: a rein started at the depth limit starts no MCP
// server, says why, and a required one fails the run.
func TestMCPDepthLimit(t *testing.T) {
	for _, tc := range []struct {
		name, extra, depth string
		code               int
		want               string
	}{
		{"optional", "", "3", 0, "MCP servers not started (never): this rein is an MCP server 3 levels deep (REIN_MCP_DEPTH=3)"},
		{"garbage depth counts as the limit", "", "lots", 0, "MCP servers not started (never)"},
		{"required", "required = true\n", "3", 1, "MCP server never is required, but this rein is already an MCP server 3 levels deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.vars["REIN_MCP_DEPTH"] = tc.depth
			e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[mcp_servers.never]\ncommand = \"/nonexistent/never-started\"\n"+tc.extra)
			srv := modeltest.NewServer(t, sse(textBody("Done.")))
			res := e.run(t, "run", "-e", srv.URL, "hello")
			if res.code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", res.code, tc.code, res.stderr)
			}
			if !strings.Contains(res.stderr, tc.want) {
				t.Errorf("stderr does not say %q:\n%s", tc.want, res.stderr)
			}
			if strings.Contains(res.stderr, "never-started") {
				t.Errorf("the server was started:\n%s", res.stderr)
			}
		})
	}
}

// processesWithHome lists the processes whose environment has HOME=home.
func processesWithHome(home string) []string {
	var out []string
	want := []byte("HOME=" + home + "\x00")
	dirs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(b, want) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join(filepath.Dir(f), "cmdline"))
		out = append(out, filepath.Base(filepath.Dir(f))+": "+strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return out
}
