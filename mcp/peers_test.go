package mcp

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// interopDir returns the directory holding the npm interop peers
// (REIN_INTEROP_DIR, else the repository's testdata/interop). A missing
// peer fails the test under REIN_REQUIRE_INTEROP=1 and skips it loudly
// otherwise.
func interopDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("REIN_INTEROP_DIR")
	if dir == "" {
		dir = filepath.Join("..", "testdata", "interop")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// peer returns the path of a file under the interop directory, or skips
// (fails under REIN_REQUIRE_INTEROP=1) when it is missing.
func peer(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(interopDir(t), rel)
	if _, err := os.Stat(p); err != nil {
		missingPeer(t, p)
	}
	return p
}

func missingPeer(t testing.TB, what string) {
	t.Helper()
	msg := "INTEROP PEER MISSING: " + what + " (run scripts/test, or npm ci --prefix testdata/interop)"
	if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
		t.Fatal(msg)
	}
	t.Skip("SKIPPED: " + msg)
}

// nodeBin is the Node 22 binary installed with the peers.
func nodeBin(t testing.TB) string { return peer(t, "node_modules/.bin/node") }

// everythingJS is server-everything's entry point.
func everythingJS(t testing.TB) string {
	return peer(t, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

// testCtx is a context bounded for one peer test.
func testCtx(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(data)
}
