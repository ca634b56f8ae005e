package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestConformance serves the fixture on 127.0.0.1 (one endpoint, both
// eras, exactly as the command does) and runs the official conformance
// suite's server scenarios against it, once per required revision. Exit
// status 0 means every scenario the revision requires passed; the counts
// are logged for the record.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite takes a while; skipped in -short mode")
	}
	node, suite := suitePaths(t)
	url := serveFixture(t)
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "server",
				"--url", url, "--requirements", rev, "--output-dir", t.TempDir())
			cmd.Dir = t.TempDir()
			out, err := cmd.CombinedOutput()
			t.Logf("conformance server --requirements %s: %s", rev, summarize(string(out)))
			if err != nil {
				t.Fatalf("suite failed (%v); scenarios:\n%s", err, scenarioLines(string(out)))
			}
			if rev == "2026-07-28" {
				checkTasksScenarios(t, string(out))
			}
		})
	}
}

// suitePaths finds Node and the suite, failing under
// REIN_REQUIRE_INTEROP=1 and skipping loudly otherwise when they are
// missing.
func suitePaths(t *testing.T) (node, suite string) {
	t.Helper()
	dir := os.Getenv("REIN_INTEROP_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "testdata", "interop")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	node = filepath.Join(dir, "node_modules", ".bin", "node")
	suite = filepath.Join(dir, "node_modules", ".bin", "conformance")
	for _, p := range []string{node, suite} {
		if _, err := os.Stat(p); err != nil {
			msg := "INTEROP PEER MISSING: " + p + " (run scripts/test, or npm ci --prefix testdata/interop)"
			if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
				t.Fatal(msg)
			}
			t.Skip("SKIPPED: " + msg)
		}
	}
	return node, suite
}

// serveFixture runs the fixture's HTTP mode in-process on a free
// loopback port and returns its endpoint URL.
func serveFixture(t *testing.T) string {
	t.Helper()
	f, err := newFixture(nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := f.srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go f.updateWatched(ctx)
	go func() { done <- f.srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serving the fixture: %v", err)
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

var (
	totalRE    = regexp.MustCompile(`(?m)^Total: (\d+) passed, (\d+) failed`)
	scenarioRE = regexp.MustCompile(`(?m)^([✓✗]) (\S+): (\d+) passed, (\d+) failed`)
	notScored  = regexp.MustCompile(`(?m)^  ([✓✗]) (\S+) \((\S+)\)`)
)

// summarize counts the required scenarios passed, and the checks.
func summarize(out string) string {
	skip := map[string]bool{}
	nsPass, ns := 0, 0
	for _, m := range notScored.FindAllStringSubmatch(out, -1) {
		skip[m[2]] = true
		ns++
		if m[1] == "✓" {
			nsPass++
		}
	}
	req, reqPass := 0, 0
	for _, m := range scenarioRE.FindAllStringSubmatch(out, -1) {
		if skip[m[2]] {
			continue
		}
		req++
		if m[1] == "✓" {
			reqPass++
		}
	}
	checks := "no totals found"
	if m := totalRE.FindStringSubmatch(out); m != nil {
		checks = m[1] + " checks passed, " + m[2] + " failed over all scenarios run"
	}
	return strconv.Itoa(reqPass) + "/" + strconv.Itoa(req) + " required scenarios passed; " +
		strconv.Itoa(nsPass) + "/" + strconv.Itoa(ns) + " not-scored scenarios passed; " + checks
}

func scenarioLines(out string) string {
	var b strings.Builder
	for _, m := range scenarioRE.FindAllString(out, -1) {
		b.WriteString(m)
		b.WriteByte('\n')
	}
	return b.String()
}

// checkTasksScenarios fails unless the suite ran the tasks extension's
// scenarios and every one passed: the suite does not score extensions,
// but rein's server implements this one (issue 12).
func checkTasksScenarios(t *testing.T, out string) {
	t.Helper()
	ran := 0
	for _, m := range scenarioRE.FindAllStringSubmatch(out, -1) {
		if !strings.HasPrefix(m[2], "tasks-") {
			continue
		}
		ran++
		if m[1] != "✓" {
			t.Errorf("tasks scenario %s failed: %s passed, %s failed", m[2], m[3], m[4])
		}
	}
	if ran == 0 {
		t.Error("the suite ran no tasks-* scenario")
	}
}
