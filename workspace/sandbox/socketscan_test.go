package sandbox

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// listenUnix makes a Unix socket at path (closed at the test's end; the
// file stays while the listener is open).
func listenUnix(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
}

// covered reports whether a socket is unreachable under the masks: masked
// itself or inside a directory masked with a tmpfs.
func covered(ms []mount, sock string) bool {
	return slices.ContainsFunc(ms, func(m mount) bool {
		return (m.kind == "null" && m.path == sock) || (m.kind == "tmpfs" && within(sock, m.path))
	})
}

// TestSocketMasksFailClosed checks that every bound of the socket search
// fails closed: past the entry budget, past the depth and past the socket
// count, what was not looked at (or not masked one by one) is masked as a
// directory — the search used to stop silently, leaving those sockets
// reachable.
func TestSocketMasksFailClosed(t *testing.T) {
	root, err := os.MkdirTemp("", "rs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	var socks []string
	add := func(rel string) {
		p := filepath.Join(root, rel)
		listenUnix(t, p)
		socks = append(socks, p)
	}
	for i := range 12 {
		add(fmt.Sprintf("many/s%02d", i)) // more than the socket cap in one directory
	}
	add("a/b/c/d/e/f/deep") // deeper than the depth bound
	for i := range 30 {
		if err := os.MkdirAll(filepath.Join(root, "wide", fmt.Sprintf("d%02d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	add("wide/d29/late") // after the entry budget is spent
	add("w/own")         // inside a writable directory: left

	b := socketScan{entries: 40, depth: 4, sockets: 5}
	ms := b.masks([]string{root}, []string{filepath.Join(root, "w")})
	for _, s := range socks {
		if strings.HasSuffix(s, "/own") {
			if covered(ms, s) {
				t.Errorf("%s in a writable directory was masked", s)
			}
			continue
		}
		if !covered(ms, s) {
			t.Errorf("%s is reachable under the masks %v", s, ms)
		}
	}
	if n := len(ms); n > b.sockets+10 {
		t.Errorf("%d masks; the socket cap bounds them", n)
	}
	// The root itself is never masked whole.
	if slices.ContainsFunc(ms, func(m mount) bool { return m.path == root }) {
		t.Errorf("the root was masked whole: %v", ms)
	}

	// Within every bound, each socket is masked one by one, nothing more.
	ms = defaultSocketScan.masks([]string{filepath.Join(root, "many")}, nil)
	if len(ms) != 12 || slices.ContainsFunc(ms, func(m mount) bool { return m.kind != "null" }) {
		t.Errorf("masks within the bounds = %v; want the 12 sockets", ms)
	}
}
