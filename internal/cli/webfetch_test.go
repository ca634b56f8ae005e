package cli_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// webPage is a loopback page that counts its requests.
func webPage(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<h1>Release notes</h1><p>Version <b>2</b> is out.</p>")
	}))
	t.Cleanup(s.Close)
	return s, &hits
}

// TestWebFetchNetworkRules drives web_fetch through rein run: the
// [network] allow rule lifts the editor's question (headless, it would be
// denied), the page reaches the model as markdown; a deny rule beats
// allow and the full preset; read-only denies; a project's allow is
// ignored with a warning.
func TestWebFetchNetworkRules(t *testing.T) {
	for _, tc := range []struct {
		name, user, project, preset string
		fetched                     bool
		want, warn                  string
	}{
		{name: "allow lifts editor", user: "[network]\nallow = [\"127.0.0.1\"]\n", fetched: true, want: "# Release notes"},
		{name: "editor asks headless", user: "", want: "needs approval"},
		{name: "deny beats allow and full", user: "[network]\nallow = [\"127.0.0.1\"]\ndeny = [\"127.0.0.1\"]\n", preset: "full", want: "[network] deny rule"},
		{name: "read-only denies", user: "[network]\nallow = [\"127.0.0.1\"]\n", preset: "read-only", want: "read-only preset does not use the network"},
		{name: "full without a rule refuses loopback", user: "", preset: "full", want: "non-public address"},
		{name: "project allow ignored", project: "[network]\nallow = [\"127.0.0.1\"]\n", want: "needs approval", warn: "[network] allow ignored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, hits := webPage(t)
			e := newEnv(t)
			e.writeUserConfig(t, baseConfig+tc.user)
			if tc.project != "" {
				writeFiles(t, e.workspace, map[string]string{".rein/config.toml": tc.project})
			}
			srv := modeltest.NewServer(t,
				sse(toolBody("c1", "web_fetch", fmt.Sprintf(`{"url":%q}`, page.URL+"/notes"))),
				sse(textBody("done")),
			)
			args := []string{"run", "--output-format", "json", "-e", srv.URL}
			if tc.preset != "" {
				args = append(args, "--preset", tc.preset)
			}
			res := e.run(t, append(args, "read the release notes")...)
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("exit %d, %d model requests\nstderr: %s", res.code, len(reqs), res.stderr)
			}
			got := toolResults(t, reqs[1].Body)["c1"]
			if !strings.Contains(got, tc.want) {
				t.Errorf("web_fetch result %q, want %q", got, tc.want)
			}
			if n := hits.Load(); (n > 0) != tc.fetched {
				t.Errorf("the page got %d requests, fetched=%v expected", n, tc.fetched)
			}
			if tc.warn != "" && !strings.Contains(res.stderr, tc.warn) {
				t.Errorf("stderr lacks %q:\n%s", tc.warn, res.stderr)
			}
		})
	}
}

// TestNetworkConfigErrors: a bad [network] rule fails with the key.
func TestNetworkConfigErrors(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, baseConfig+"[network]\nallow = [\"*\"]\n")
	res := e.run(t, "run", "-e", "http://127.0.0.1:1", "hi")
	if res.code == 0 || !strings.Contains(res.stderr, "network.allow") {
		t.Errorf("exit %d, stderr %q", res.code, res.stderr)
	}
}
