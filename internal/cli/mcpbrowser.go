package cli

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/mcp"
)

// browserEnv names the command that opens the authorization URL instead
// of the desktop's browser: the URL is appended to its words (or replaces
// a "%s" among them). "none" never opens one; the URL is printed either
// way. Tests plug a scripted browser in through it.
const browserEnv = "REIN_BROWSER"

// callbackPath is where the loopback listener receives the redirect when
// the configuration names no redirect_url.
const callbackPath = "/callback"

// loopback receives the authorization server's redirect on a listener
// bound to a loopback address (RFC 8252 §7.3): 127.0.0.1 with a port the
// system picks, unless the server's oauth.redirect_url names a loopback
// address of its own (a client pre-registered with a fixed redirect).
// It implements mcp.Authorizer: Authorize opens the browser (or prints
// the URL) and waits for the redirect carrying the flow's state.
type loopback struct {
	app      *App
	redirect string // the redirect URL the flow announces
	path     string
	srv      *http.Server
	ln       net.Listener

	mu      sync.Mutex
	state   string // the state of the flow in progress; "" before one
	results chan callbackResult
	asked   bool // a flow began
}

type callbackResult struct {
	resp *mcp.AuthorizationResponse
	err  error
}

// newLoopback starts the listener. configured is the server's
// oauth.redirect_url ("" to pick a port).
func (a *App) newLoopback(configured string) (*loopback, error) {
	addr, path := "127.0.0.1:0", callbackPath
	if configured != "" {
		u, err := url.Parse(configured)
		if err != nil || u.Scheme != "http" || !isLoopbackHost(u.Hostname()) {
			return nil, fmt.Errorf("oauth.redirect_url %q is not an http:// loopback URL; rein receives the sign-in on this machine (leave redirect_url out to let rein pick a port)", clipText(configured, 120))
		}
		addr, path = u.Host, cmpOr(u.Path, "/")
		if u.Port() == "" {
			addr = net.JoinHostPort(u.Hostname(), "80")
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening for the sign-in redirect on %s: %w", addr, err)
	}
	lb := &loopback{app: a, path: path, ln: ln, results: make(chan callbackResult, 1)}
	if configured != "" {
		lb.redirect = configured
	} else {
		lb.redirect = "http://" + ln.Addr().String() + path
	}
	lb.srv = &http.Server{Handler: http.HandlerFunc(lb.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = lb.srv.Serve(ln) }()
	return lb, nil
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// close stops the listener.
func (lb *loopback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = lb.srv.Shutdown(ctx)
}

// began reports whether a server asked for a sign-in.
func (lb *loopback) began() bool {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.asked
}

// Authorize implements mcp.Authorizer.
func (lb *loopback) Authorize(ctx context.Context, server, authURL string) (*mcp.AuthorizationResponse, error) {
	u, err := url.Parse(authURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("the authorization server's authorization endpoint is not an http(s) URL")
	}
	state := u.Query().Get("state")
	if state == "" {
		return nil, errors.New("the authorization URL carries no state")
	}
	lb.mu.Lock()
	lb.state, lb.asked = state, true
	select { // a redirect of an earlier flow is stale
	case <-lb.results:
	default:
	}
	lb.mu.Unlock()

	w := lb.app.Stderr
	fmt.Fprintf(w, "Signing in to MCP server %s: complete the sign-in in your browser.\n", termText(server, 60))
	if opened, err := lb.app.openBrowser(authURL); err != nil {
		fmt.Fprintf(w, "rein: could not open a browser (%s)\n", textclip.FirstLine(err.Error()))
	} else if !opened {
		fmt.Fprintln(w, "No browser is available here.")
	}
	fmt.Fprintf(w, "If the browser did not open, visit this URL on this machine:\n  %s\nWaiting for the sign-in (Ctrl-C cancels)…\n", authURL)
	select {
	case r := <-lb.results:
		return r.resp, r.err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, errors.New("the sign-in was not completed in time")
		}
		return nil, ctx.Err()
	}
}

// serve handles the redirect. Only a request carrying the state of the
// flow in progress counts: anything else reaching the port (a stale tab,
// another local program) is answered 400 and ignored.
func (lb *loopback) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	lb.mu.Lock()
	want := lb.state
	lb.mu.Unlock()
	if r.Method != http.MethodGet || r.URL.Path != lb.path || want == "" || q.Get("state") != want {
		http.Error(w, "This is rein's sign-in listener; this request is not the sign-in it waits for.", http.StatusBadRequest)
		return
	}
	var res callbackResult
	if code := q.Get("error"); code != "" {
		msg := fmt.Sprintf("the authorization server refused the sign-in: %s", termText(code, 60))
		if d := q.Get("error_description"); d != "" {
			msg += ": " + termText(d, 200)
		}
		res.err = errors.New(msg)
		page(w, http.StatusOK, "Sign-in refused", "The sign-in was refused ("+code+"). You can close this tab.")
	} else if q.Get("code") == "" {
		res.err = errors.New("the authorization server redirected back without a code")
		page(w, http.StatusBadRequest, "Sign-in failed", "The redirect carried no authorization code.")
	} else {
		res.resp = &mcp.AuthorizationResponse{Code: q.Get("code"), State: q.Get("state"), Issuer: q.Get("iss")}
		page(w, http.StatusOK, "Signed in", "rein received the sign-in. You can close this tab.")
	}
	lb.mu.Lock()
	lb.state = "" // one redirect per flow
	lb.mu.Unlock()
	select {
	case lb.results <- res:
	default:
	}
}

func page(w http.ResponseWriter, status int, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><title>%s</title><p>%s</p>\n", html.EscapeString(title), html.EscapeString(body))
}

// openBrowser starts a browser on authURL: $REIN_BROWSER, else the
// desktop's opener where there is a desktop (macOS, a DISPLAY or
// WAYLAND_DISPLAY elsewhere). opened is false when there is none.
func (a *App) openBrowser(authURL string) (opened bool, err error) {
	var argv []string
	switch cmd := strings.TrimSpace(a.Getenv(browserEnv)); {
	case cmd == "none":
		return false, nil
	case cmd != "":
		argv = strings.Fields(cmd)
		replaced := false
		for i, f := range argv {
			if f == "%s" {
				argv[i], replaced = authURL, true
			}
		}
		if !replaced {
			argv = append(argv, authURL)
		}
	case runtime.GOOS == "darwin":
		argv = []string{"open", authURL}
	case runtime.GOOS == "windows":
		argv = []string{"rundll32", "url.dll,FileProtocolHandler", authURL}
	case a.Getenv("DISPLAY") != "" || a.Getenv("WAYLAND_DISPLAY") != "":
		if _, err := exec.LookPath("xdg-open"); err != nil {
			return false, nil
		}
		argv = []string{"xdg-open", authURL}
	default:
		return false, nil
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return false, err
	}
	go func() { _ = cmd.Wait() }() // reap it; the redirect is what counts
	return true, nil
}
