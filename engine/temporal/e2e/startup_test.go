package e2e

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gnuTime measures a child's peak RSS.
const gnuTime = "/usr/bin/time"

// TestStartupCompare measures what the Temporal engine costs a `rein run`
// that does not use it: the median wall time and peak RSS of N runs
// against the fake model, for the binary built from this tree and for a
// baseline binary from before the Temporal SDK entered rein
// (REIN_BASE_BINARY; the test skips without it). Runs alternate between
// the binaries, and which goes first, so that a change in machine load
// or in the state directory hits both. It fails
// when either median is more than 10 % above the baseline's (wall time
// gets 5 ms of slack for the timer's and scheduler's noise).
//
//	REIN_BASE_BINARY=/work/rein-base go test -run StartupCompare -v
func TestStartupCompare(t *testing.T) {
	base := os.Getenv("REIN_BASE_BINARY")
	if base == "" {
		t.Skip("set REIN_BASE_BINARY to a rein binary from before Temporal to compare start-up")
	}
	if _, err := os.Stat(gnuTime); err != nil {
		t.Skipf("GNU time is needed for the peak RSS: %v", err)
	}
	runs := 30
	if s := os.Getenv("REIN_STARTUP_RUNS"); s != "" {
		var err error
		if runs, err = strconv.Atoi(s); err != nil || runs < 1 {
			t.Fatalf("REIN_STARTUP_RUNS=%q: want a positive count", s)
		}
	}
	m := newFakeModel(t)
	m.script("startup", fixed(textStep("ready")))
	root := t.TempDir()
	h := makeHome(t, filepath.Join(root, "home"), m.URL, "")
	ws := filepath.Join(root, "ws")
	mkdir(t, ws)

	// Both binaries are measured as fresh copies written the same way:
	// the start-up RSS depends on how the file's page cache was filled
	// (on Linux 6.18 a binary written by the linker or by plain writes
	// starts with about 12 MB more than the same bytes copied by cp,
	// through copy_file_range), an effect that would otherwise be blamed
	// on the code.
	bins := []struct{ name, path string }{
		{"base", copyBinary(t, base, filepath.Join(root, "rein-base"))},
		{"new", copyBinary(t, reinBinary(t), filepath.Join(root, "rein-new"))},
	}
	walls := make([][]time.Duration, len(bins))
	rss := make([][]int64, len(bins)) // KiB
	for i := 0; i < runs+1; i++ {
		for k := range bins {
			b := (k + i) % len(bins) // alternate which binary goes first
			wall, maxrss := timedRun(t, bins[b].path, h, ws)
			if i == 0 {
				continue // the first run of each warms the page cache
			}
			walls[b] = append(walls[b], wall)
			rss[b] = append(rss[b], maxrss)
		}
	}
	medWall := func(b int) time.Duration { s := slices.Clone(walls[b]); slices.Sort(s); return s[len(s)/2] }
	medRSS := func(b int) int64 { s := slices.Clone(rss[b]); slices.Sort(s); return s[len(s)/2] }
	t.Logf("rein run start-up over %d runs each (median; peak RSS from GNU time):", runs)
	t.Logf("%-5s %12s %14s %14s", "", "wall", "peak RSS", "max peak RSS")
	for b, bin := range bins {
		t.Logf("%-5s %12s %11d KiB %11d KiB", bin.name, medWall(b).Round(10*time.Microsecond), medRSS(b), slices.Max(rss[b]))
	}
	wallRatio := float64(medWall(1)) / float64(medWall(0))
	rssRatio := float64(medRSS(1)) / float64(medRSS(0))
	t.Logf("new/base: wall %.3f, peak RSS %.3f", wallRatio, rssRatio)
	if medWall(1) > medWall(0)*110/100+5*time.Millisecond {
		t.Errorf("median start-up %s is more than 10 %% above the baseline's %s", medWall(1), medWall(0))
	}
	if rssRatio > 1.10 {
		t.Errorf("median peak RSS %d KiB is more than 10 %% above the baseline's %d KiB", medRSS(1), medRSS(0))
	}
}

// timedRun runs `BIN run PROMPT` to completion and returns its wall time
// and peak resident set (KiB). The peak comes from GNU time (/usr/bin/time
// -f %M), not from this process's own wait4: Go starts children with
// vfork semantics, and Linux carries the old address space's high-water
// mark across exec, so every direct child would report at least this
// test binary's RSS.
func timedRun(t testing.TB, bin string, h *home, ws string) (time.Duration, int64) {
	t.Helper()
	rssFile := filepath.Join(t.TempDir(), "rss")
	cmd := exec.Command(gnuTime, "-f", "%M", "-o", rssFile, bin, "run", "e2e:startup answer")
	cmd.Dir, cmd.Env = ws, h.env
	timer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		t.Fatalf("%s run: %v\n%s", bin, err, out)
	}
	if string(out) != "ready\n" {
		t.Fatalf("%s run printed %q, want the answer", bin, out)
	}
	raw, err := os.ReadFile(rssFile)
	if err != nil {
		t.Fatal(err)
	}
	kib, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil {
		t.Fatalf("%s: %q is not a size in KiB", gnuTime, raw)
	}
	return wall, kib
}

// copyBinary copies an executable with plain reads and writes (never
// copy_file_range, whose page cache differs) and returns the copy's path.
func copyBinary(t testing.TB, src, dst string) string {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	// The anonymous structs hide ReadFrom/WriteTo from io.Copy.
	if _, err := io.CopyBuffer(struct{ io.Writer }{out}, struct{ io.Reader }{in}, make([]byte, 1<<20)); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}
