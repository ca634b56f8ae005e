package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// serveConformance lists, per revision, the official conformance suite's
// server scenarios that `rein mcp serve` passes, and the checks inside
// scenarios that fail only for want of fixtures. Every other scenario
// depends on the suite's fixture server: tools named test_* (content
// kinds, logging, progress, sampling, elicitation, input_required),
// prompts and resources rein does not have, the tasks extension's
// slow_compute/greet/failing_job tools, x-mcp-header tools; completion,
// logging and subscriptions, which rein does not declare.
var serveConformance = map[string]struct{ scenarios, checks []string }{
	"2025-11-25": {scenarios: []string{"server-initialize", "ping", "tools-list", "server-sse-multiple-streams",
		"dns-rebinding-protection", "server-session-lifecycle"}},
	"2026-07-28": {
		scenarios: []string{"tools-list", "server-sse-multiple-streams", "sep-2164-resource-not-found",
			"dns-rebinding-protection", "input-required-result-missing-input-response",
			"input-required-result-unsupported-methods", "input-required-result-ignore-extra-params",
			"input-required-result-validate-input", "http-header-validation"},
		checks: []string{"sep-2575-server-declares-prompts-in-discover", "sep-2575-discover-capabilities-match-handlers"},
	},
}

var conformanceScenarioLine = regexp.MustCompile(`(?m)^([✓✗]) (\S+): (\d+) passed, (\d+) failed`)

var serveConfURL = regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)

// TestMCPServeConformance runs the conformance suite's server scenarios
// against the rein binary's own `rein mcp serve --http`, once per
// revision, and requires the scenarios listed in serveConformance to pass
// (and, in 2026-07-28, the capability checks of server-stateless).
func TestMCPServeConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite takes a while; skipped in -short mode")
	}
	node := interopPeer(t, "node_modules/.bin/node")
	suite := interopPeer(t, "node_modules/.bin/conformance")
	e := newEnv(t)
	p := e.start(t, "mcp", "serve", "--http", "127.0.0.1:0")
	url := ""
	for deadline := time.Now().Add(20 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m := serveConfURL.FindStringSubmatch(p.stderr.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("rein mcp serve announced no URL; stderr: %s", p.stderr)
	}
	for rev, want := range serveConformance {
		t.Run(rev, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			outDir := t.TempDir()
			cmd := exec.CommandContext(ctx, node, suite, "server", "--url", url, "--requirements", rev, "--output-dir", outDir)
			cmd.Dir = t.TempDir()
			out, _ := cmd.CombinedOutput() // non-zero: fixture scenarios fail
			passed := map[string]bool{}
			for _, m := range conformanceScenarioLine.FindAllStringSubmatch(string(out), -1) {
				passed[m[2]] = m[1] == "✓"
			}
			if len(passed) == 0 {
				t.Fatalf("the suite ran no scenario:\n%s", out)
			}
			for _, s := range want.scenarios {
				if !passed[s] {
					t.Errorf("scenario %s did not pass against rein mcp serve", s)
				}
			}
			checks := suiteChecks(t, outDir)
			for _, c := range want.checks {
				if checks[c] != "SUCCESS" {
					t.Errorf("check %s: %q, want SUCCESS", c, checks[c])
				}
			}
			if t.Failed() {
				t.Logf("suite output:\n%s", out)
			}
		})
	}
}

// suiteChecks reads every check's status from the suite's output dir.
func suiteChecks(t *testing.T, dir string) map[string]string {
	files, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cs []struct{ ID, Status string }
		if err := json.Unmarshal(b, &cs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range cs {
			if out[c.ID] == "" || strings.EqualFold(c.Status, "FAILURE") {
				out[c.ID] = c.Status
			}
		}
	}
	return out
}
