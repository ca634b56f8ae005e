package cli_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// binRun runs the rein binary in e with extra environment variables and
// no stdin (so never a terminal), bounded in time.
func binRun(t *testing.T, e *env, extra []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, reinBinary(t), args...)
	cmd.Dir = e.workspace
	cmd.Env = append([]string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH")}, extra...)
	var stdout, stderr syncBuffer
	cmd.Stdin = strings.NewReader("") // a pipe: not a terminal
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running rein: %v", err)
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// browser is the environment that makes rein use the scripted browser.
func browser(t *testing.T) []string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{"REIN_BROWSER=" + exe, scriptedBrowserEnv + "=1"}
}

// oauthEnv is a home whose config names the protected server "remote"
// (no oauth table: rein registers itself dynamically) and allows its tools.
func oauthEnv(t *testing.T, w *oauthWorld, extra string) *env {
	e := newEnv(t)
	e.writeUserConfig(t, fmt.Sprintf("[model]\ncontext_window = 32768\n\n[mcp_servers.remote]\nurl = %q\n%s\n[[policy.tools]]\nname = \"remote__*\"\naction = \"allow\"\n", w.url(), extra))
	return e
}

func (e *env) tokenFile() string {
	return filepath.Join(e.home, ".local", "state", "rein", "mcp-tokens.json")
}

// login signs in through the scripted browser and checks it worked.
func login(t *testing.T, e *env) result {
	t.Helper()
	res := binRun(t, e, browser(t), "mcp", "login", "remote")
	if res.code != 0 || res.stdout != "Signed in to remote; 1 tool: echo\n" {
		t.Fatalf("rein mcp login: exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
	}
	return res
}

// assertNoLeak fails when a token appears in any output or in any file of
// the home other than the token store (the session database, the event
// log, …).
func assertNoLeak(t *testing.T, e *env, w *oauthWorld, outputs ...result) (files int) {
	t.Helper()
	secrets := w.secrets()
	if len(secrets) == 0 {
		t.Fatal("no tokens were issued")
	}
	for _, r := range outputs {
		for _, s := range secrets {
			if strings.Contains(r.stdout+r.stderr, s) {
				t.Errorf("a token appears in rein's output:\n%s%s", r.stdout, r.stderr)
			}
		}
	}
	filepath.WalkDir(e.home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == e.tokenFile() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("reading %s: %v", path, err)
			return nil
		}
		files++
		for _, s := range secrets {
			if strings.Contains(string(data), s) {
				t.Errorf("a token appears in %s", path)
			}
		}
		return nil
	})
	return files
}

// TestMCPLoginEndToEnd signs in through the real binary (discovery,
// dynamic registration, PKCE, the loopback redirect), then lists, calls
// and uses the server's tool in a run without signing in again, and
// signs out; no token leaves the token store.
func TestMCPLoginEndToEnd(t *testing.T) {
	w := newOAuthWorld(t)
	e := oauthEnv(t, w, "")

	before := binRun(t, e, nil, "mcp", "list")
	if before.code != 0 || !strings.Contains(before.stdout, "needs login") || !strings.Contains(before.stdout, "run rein mcp login remote") {
		t.Fatalf("rein mcp list before signing in: exit %d\nstdout: %s\nstderr: %s", before.code, before.stdout, before.stderr)
	}

	in := login(t, e)
	if !strings.Contains(in.stderr, "Signing in to MCP server remote") || !strings.Contains(in.stderr, w.as.URL+"/authorize?") {
		t.Errorf("the sign-in did not show the authorization URL:\n%s", in.stderr)
	}
	st, err := os.Stat(e.tokenFile())
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("the token store has mode %v, want 0600", st.Mode().Perm())
	}

	call := binRun(t, e, nil, "mcp", "call", "remote", "echo", `{"text":"hi"}`)
	if call.code != 0 || call.stdout != "echo: hi\n" {
		t.Fatalf("rein mcp call: exit %d\nstdout: %s\nstderr: %s", call.code, call.stdout, call.stderr)
	}
	list := binRun(t, e, nil, "mcp", "list")
	if list.code != 0 || !strings.Contains(list.stdout, "connected") || strings.Contains(list.stdout, "needs login") {
		t.Errorf("rein mcp list after signing in: exit %d\nstdout: %s\nstderr: %s", list.code, list.stdout, list.stderr)
	}

	srv := modeltest.NewServer(t, sse(toolBody("c1", "remote__echo", `{"text":"from the model"}`)), sse(textBody("done")))
	run := binRun(t, e, nil, "run", "-e", srv.URL, "echo something")
	if run.code != 0 {
		t.Fatalf("rein run: exit %d\nstdout: %s\nstderr: %s", run.code, run.stdout, run.stderr)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || toolResults(t, reqs[1].Body)["c1"] != "echo: from the model" {
		t.Errorf("the model did not get the tool's result (%d requests)", len(reqs))
	}
	w.mu.Lock()
	authorizations := w.authorize
	w.mu.Unlock()
	if authorizations != 1 {
		t.Errorf("%d authorization requests, want 1: the stored sign-in was not reused", authorizations)
	}
	if files := assertNoLeak(t, e, w, before, in, call, list, run); files < 3 {
		t.Errorf("only %d files were checked for leaks; the session store and the event log should be among them", files)
	}

	out := binRun(t, e, nil, "mcp", "logout", "remote")
	if out.code != 0 || out.stdout != "Signed out of remote: its stored tokens were deleted and revoked at the authorization server.\n" {
		t.Errorf("rein mcp logout: exit %d\nstdout: %s\nstderr: %s", out.code, out.stdout, out.stderr)
	}
	// Revoked at the server (RFC 7009): a stolen copy is worthless.
	w.mu.Lock()
	revoked, live := strings.Join(w.revoked, ","), len(w.refresh)
	w.mu.Unlock()
	if revoked != "refresh_token,access_token" || live != 0 {
		t.Errorf("revoked %q at the server, %d refresh tokens still live", revoked, live)
	}
	data, _ := os.ReadFile(e.tokenFile())
	for _, s := range w.secrets() {
		if strings.Contains(string(data), s) {
			t.Error("logout left a token in the store")
		}
	}
	if again := binRun(t, e, nil, "mcp", "logout", "remote"); again.stdout != "remote had no stored sign-in.\n" {
		t.Errorf("second logout: %q", again.stdout)
	}
}

// TestMCPLoginRefusedConsent: the user declines at the authorization
// server; the redirect carries error=access_denied.
func TestMCPLoginRefusedConsent(t *testing.T) {
	w := newOAuthWorld(t)
	w.deny = true
	e := oauthEnv(t, w, "")
	res := binRun(t, e, browser(t), "mcp", "login", "remote")
	t.Logf("stderr:\n%s", res.stderr)
	if res.code != 1 || !strings.Contains(res.stderr, "rein: signing in to MCP server remote:") ||
		!strings.Contains(res.stderr, "the authorization server refused the sign-in: access_denied: the user declined") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
	}
	if w.authorize != 1 {
		t.Errorf("the user was sent to the authorization page %d times, want once", w.authorize)
	}
	if data, err := os.ReadFile(e.tokenFile()); err == nil && strings.Contains(string(data), "access_token") {
		t.Errorf("a refused sign-in stored tokens:\n%s", data)
	}
}

// TestMCPLoginWrongIssuer: the redirect names another issuer (RFC 9207,
// a mix-up attack); the code is not exchanged.
func TestMCPLoginWrongIssuer(t *testing.T) {
	w := newOAuthWorld(t)
	w.wrongIss = true
	e := oauthEnv(t, w, "")
	res := binRun(t, e, browser(t), "mcp", "login", "remote")
	t.Logf("stderr:\n%s", res.stderr)
	if res.code != 1 || !strings.Contains(res.stderr, `"https://impostor.example" does not match expected issuer`) {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
	}
	if len(w.secrets()) != 0 {
		t.Error("tokens were issued despite the wrong issuer")
	}
}

// TestMCPExpiredTokenRefreshed: an access token that expired is refreshed
// (refresh_token grant) by the next command, without a new sign-in, and
// the new tokens are stored.
func TestMCPExpiredTokenRefreshed(t *testing.T) {
	w := newOAuthWorld(t)
	// oauth2 treats a token as expired 10 s before its expiry.
	w.lifetime = 11 * time.Second
	e := oauthEnv(t, w, "")
	login(t, e)
	stored, _ := os.ReadFile(e.tokenFile())
	time.Sleep(1500 * time.Millisecond)
	call := binRun(t, e, nil, "mcp", "call", "remote", "echo", `{"text":"later"}`)
	if call.code != 0 || call.stdout != "echo: later\n" {
		t.Fatalf("rein mcp call after expiry: exit %d\nstdout: %s\nstderr: %s", call.code, call.stdout, call.stderr)
	}
	w.mu.Lock()
	refreshes, authorizations := w.refreshes, w.authorize
	w.mu.Unlock()
	if refreshes < 1 || authorizations != 1 {
		t.Errorf("%d refreshes and %d authorizations, want some and 1", refreshes, authorizations)
	}
	now, _ := os.ReadFile(e.tokenFile())
	if string(now) == string(stored) {
		t.Error("the refreshed tokens were not stored")
	}
	assertNoLeak(t, e, w, call)
}

// TestMCPRevokedRefreshNeedsLogin: every token was revoked; rein cannot
// refresh, and says once what to run. A headless run goes on without the
// server's tools, unless the server is required.
func TestMCPRevokedRefreshNeedsLogin(t *testing.T) {
	w := newOAuthWorld(t)
	w.lifetime = time.Second
	e := oauthEnv(t, w, "")
	login(t, e)
	w.revokeAll()
	time.Sleep(1100 * time.Millisecond)

	list := binRun(t, e, nil, "mcp", "list")
	if list.code != 0 || !strings.Contains(list.stdout, "remote needs login: run rein mcp login remote") {
		t.Errorf("rein mcp list: exit %d\nstdout: %s\nstderr: %s", list.code, list.stdout, list.stderr)
	}
	call := binRun(t, e, nil, "mcp", "call", "remote", "echo", `{}`)
	if call.code != 1 || !strings.Contains(call.stderr, "needs login: run rein mcp login remote") {
		t.Errorf("rein mcp call: exit %d\nstdout: %s\nstderr: %s", call.code, call.stdout, call.stderr)
	}

	srv := modeltest.NewServer(t, sse(textBody("no tools today")))
	run := binRun(t, e, nil, "run", "-e", srv.URL, "hi")
	if run.code != 0 {
		t.Fatalf("rein run: exit %d\nstderr: %s", run.code, run.stderr)
	}
	if n := strings.Count(run.stderr, "rein mcp login remote"); n != 1 {
		t.Errorf("the run named rein mcp login remote %d times, want once:\n%s", n, run.stderr)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || strings.Contains(string(reqs[0].Body), "remote__echo") {
		t.Errorf("the model was offered the tools of a server that needs login")
	}
	w.mu.Lock()
	authorizations := w.authorize
	w.mu.Unlock()
	if authorizations != 1 {
		t.Errorf("a headless command started a sign-in (%d authorization requests)", authorizations)
	}

	req := oauthEnv(t, w, "required = true\n")
	req.home = e.home // the same (revoked) sign-in
	req.writeUserConfig(t, fmt.Sprintf("[model]\ncontext_window = 32768\n\n[mcp_servers.remote]\nurl = %q\nrequired = true\n", w.url()))
	srv2 := modeltest.NewServer(t, sse(textBody("unreachable")))
	failed := binRun(t, req, nil, "run", "-e", srv2.URL, "hi")
	if failed.code == 0 || !strings.Contains(failed.stderr, "needs login: run rein mcp login remote") || len(srv2.Requests()) != 0 {
		t.Errorf("a required server that needs login: exit %d\nstderr: %s", failed.code, failed.stderr)
	}
	assertNoLeak(t, e, w, list, call, run, failed)
}

// TestMCPAccessRevokedRefreshedOn401: the server stops accepting an
// access token rein still thinks valid; rein refreshes it on the 401 and
// retries, without a new sign-in.
func TestMCPAccessRevokedRefreshedOn401(t *testing.T) {
	w := newOAuthWorld(t)
	e := oauthEnv(t, w, "")
	login(t, e)
	w.set(func(w *oauthWorld) { w.access = map[string]time.Time{} }) // refresh tokens stay live
	call := binRun(t, e, nil, "mcp", "call", "remote", "echo", `{"text":"again"}`)
	if call.code != 0 || call.stdout != "echo: again\n" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", call.code, call.stdout, call.stderr)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.refreshes != 1 || w.authorize != 1 {
		t.Errorf("%d refreshes and %d authorizations, want 1 and 1", w.refreshes, w.authorize)
	}
}

// TestMCPChatLogin: in chat, /mcp says the server needs login, /mcp login
// runs the sign-in, and the server's tools are offered from the next
// message.
func TestMCPChatLogin(t *testing.T) {
	w := newOAuthWorld(t)
	e := oauthEnv(t, w, "")
	srv := modeltest.NewServer(t, sse(toolBody("c1", "remote__echo", `{"text":"chat"}`)), sse(textBody("all done")))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, reinBinary(t), "chat", "-e", srv.URL)
	cmd.Dir = e.workspace
	cmd.Env = append([]string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH")}, browser(t)...)
	cmd.Stdin = strings.NewReader("/mcp\n/mcp login remote\nplease echo\n")
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("rein chat: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	errs := stderr.String()
	for _, want := range []string{"remote: needs login — sign in with /mcp login remote", "Signed in to remote (1 tool); its tools join from your next message."} {
		if !strings.Contains(errs, want) {
			t.Errorf("chat stderr lacks %q:\n%s", want, errs)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), `"remote__echo"`) || toolResults(t, reqs[1].Body)["c1"] != "echo: chat" {
		t.Fatalf("the signed-in server's tool was not offered and called (%d requests)\nstderr: %s", len(reqs), errs)
	}
	assertNoLeak(t, e, w, result{stdout: stdout.String(), stderr: errs})
}
