package cli_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// oauthWorld is a loopback authorization server and an MCP server
// (Streamable HTTP, the go-sdk's) that it protects, for the sign-in tests.
// The authorization server registers clients dynamically, checks PKCE
// (S256), the redirect URI, the resource (RFC 8707) and the state, sends
// iss (RFC 9207), and issues refreshable access tokens; the MCP server
// answers 401 with a resource_metadata challenge unless a live token is
// presented. Knobs select a refused consent, a wrong issuer, short-lived
// tokens and revocation.
type oauthWorld struct {
	as, rs *httptest.Server

	mu        sync.Mutex
	clients   map[string]string // client_id → redirect URI
	codes     map[string]codeGrant
	access    map[string]time.Time // access token → expiry
	refresh   map[string]bool      // live refresh tokens
	issued    []string             // every token issued, to look for leaks
	deny      bool                 // refuse consent
	wrongIss  bool                 // send a foreign iss
	lifetime  time.Duration        // access token lifetime
	authorize int                  // authorization requests seen
	refreshes int                  // refresh grants served
	registers int
	revoked   []string // tokens revoked (RFC 7009), with their hints
}

type codeGrant struct {
	client, redirect, challenge, resource string
}

func newOAuthWorld(t *testing.T) *oauthWorld {
	t.Helper()
	w := &oauthWorld{clients: map[string]string{}, codes: map[string]codeGrant{}, access: map[string]time.Time{}, refresh: map[string]bool{}, lifetime: time.Hour}
	w.as = httptest.NewServer(http.HandlerFunc(w.serveAS))
	t.Cleanup(w.as.Close)

	server := sdk.NewServer(&sdk.Implementation{Name: "protected", Version: "1.0.0"}, nil)
	type echoArgs struct {
		Text string `json:"text"`
	}
	sdk.AddTool(server, &sdk.Tool{Name: "echo", Description: "echoes its text"}, func(_ context.Context, _ *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + a.Text}}}, nil, nil
	})
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(rw http.ResponseWriter, r *http.Request) {
		writeJSON(rw, map[string]any{"resource": w.rs.URL + "/mcp", "authorization_servers": []string{w.as.URL}, "scopes_supported": []string{"tools"}})
	})
	mux.HandleFunc("/mcp", func(rw http.ResponseWriter, r *http.Request) {
		if !w.live(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")) {
			rw.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q`, w.rs.URL+"/.well-known/oauth-protected-resource/mcp"))
			http.Error(rw, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(rw, r)
	})
	w.rs = httptest.NewServer(mux)
	t.Cleanup(w.rs.Close)
	return w
}

func (w *oauthWorld) url() string { return w.rs.URL + "/mcp" }

func (w *oauthWorld) live(tok string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	exp, ok := w.access[tok]
	return ok && time.Now().Before(exp)
}

func (w *oauthWorld) set(f func(w *oauthWorld)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f(w)
}

// revokeAll ends every token, as a user revoking the app would.
func (w *oauthWorld) revokeAll() {
	w.set(func(w *oauthWorld) { w.access, w.refresh = map[string]time.Time{}, map[string]bool{} })
}

// secrets returns every token the authorization server issued.
func (w *oauthWorld) secrets() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.issued...)
}

func (w *oauthWorld) serveAS(rw http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		writeJSON(rw, map[string]any{
			"issuer":                                         w.as.URL,
			"authorization_endpoint":                         w.as.URL + "/authorize",
			"token_endpoint":                                 w.as.URL + "/token",
			"registration_endpoint":                          w.as.URL + "/register",
			"revocation_endpoint":                            w.as.URL + "/revoke",
			"response_types_supported":                       []string{"code"},
			"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":               []string{"S256"},
			"token_endpoint_auth_methods_supported":          []string{"none"},
			"authorization_response_iss_parameter_supported": true,
		})
	case "/revoke":
		if err := r.ParseForm(); err != nil || r.Method != http.MethodPost || r.Form.Get("client_id") == "" {
			http.Error(rw, `{"error":"invalid_request"}`, http.StatusBadRequest)
			return
		}
		w.mu.Lock()
		tok := r.Form.Get("token")
		delete(w.access, tok)
		delete(w.refresh, tok)
		w.revoked = append(w.revoked, r.Form.Get("token_type_hint"))
		w.mu.Unlock()
		rw.WriteHeader(http.StatusOK)
	case "/register":
		var meta struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&meta); err != nil || len(meta.RedirectURIs) != 1 {
			http.Error(rw, `{"error":"invalid_client_metadata"}`, http.StatusBadRequest)
			return
		}
		id := randomToken("client")
		w.set(func(w *oauthWorld) { w.clients[id] = meta.RedirectURIs[0]; w.registers++ })
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(http.StatusCreated)
		json.NewEncoder(rw).Encode(map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": "none"})
	case "/authorize":
		w.serveAuthorize(rw, r)
	case "/token":
		w.serveToken(rw, r)
	default:
		http.NotFound(rw, r)
	}
}

func (w *oauthWorld) serveAuthorize(rw http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.authorize++
	redirect, ok := w.clients[q.Get("client_id")]
	switch {
	case !ok || redirect != q.Get("redirect_uri"):
		http.Error(rw, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("state") == "":
		http.Error(rw, "PKCE S256 and state are required", http.StatusBadRequest)
		return
	case q.Get("resource") != w.rs.URL+"/mcp":
		http.Error(rw, "wrong resource "+q.Get("resource"), http.StatusBadRequest)
		return
	}
	back := url.Values{"state": {q.Get("state")}, "iss": {w.as.URL}}
	if w.wrongIss {
		back.Set("iss", "https://impostor.example")
	}
	if w.deny {
		back.Set("error", "access_denied")
		back.Set("error_description", "the user declined")
	} else {
		code := randomToken("code")
		w.codes[code] = codeGrant{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource")}
		back.Set("code", code)
	}
	http.Redirect(rw, r, redirect+"?"+back.Encode(), http.StatusFound)
}

func (w *oauthWorld) serveToken(rw http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		tokenError(rw, "invalid_request")
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		g, ok := w.codes[r.Form.Get("code")]
		delete(w.codes, r.Form.Get("code"))
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		switch {
		case !ok || g.client != r.Form.Get("client_id") || g.redirect != r.Form.Get("redirect_uri"):
			tokenError(rw, "invalid_grant")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			tokenError(rw, "invalid_grant") // PKCE verifier mismatch
			return
		case r.Form.Get("resource") != g.resource:
			tokenError(rw, "invalid_target")
			return
		}
	case "refresh_token":
		if !w.refresh[r.Form.Get("refresh_token")] {
			tokenError(rw, "invalid_grant")
			return
		}
		// RFC 8707 and the MCP authorization spec: every token request
		// names the resource, refreshes too.
		if r.Form.Get("resource") != w.rs.URL+"/mcp" {
			tokenError(rw, "invalid_target")
			return
		}
		delete(w.refresh, r.Form.Get("refresh_token")) // rotation
		w.refreshes++
	default:
		tokenError(rw, "unsupported_grant_type")
		return
	}
	access, refresh := randomToken("at"), randomToken("rt")
	w.access[access] = time.Now().Add(w.lifetime)
	w.refresh[refresh] = true
	w.issued = append(w.issued, access, refresh)
	writeJSON(rw, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(w.lifetime.Seconds()), "refresh_token": refresh})
}

func tokenError(rw http.ResponseWriter, code string) {
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(http.StatusBadRequest)
	fmt.Fprintf(rw, `{"error":%q}`, code)
}

func writeJSON(rw http.ResponseWriter, v any) {
	rw.Header().Set("Content-Type", "application/json")
	json.NewEncoder(rw).Encode(v)
}

func randomToken(prefix string) string {
	return prefix + "-" + rand.Text()
}

// scriptedBrowserEnv makes the test binary act as the browser rein starts
// (see TestMain): it follows the authorization server's redirect to
// rein's loopback listener, as a user approving the sign-in would.
const scriptedBrowserEnv = "REIN_TEST_SCRIPTED_BROWSER"

// scriptedBrowser is the browser's main: GET the authorization URL
// without following redirects, then GET the Location (rein's listener).
func scriptedBrowser() int {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "scripted browser: no URL")
		return 2
	}
	client := &http.Client{Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(os.Args[len(os.Args)-1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "scripted browser:", err)
		return 1
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || loc == "" {
		fmt.Fprintln(os.Stderr, "scripted browser: no redirect:", resp.Status)
		return 1
	}
	resp, err = client.Get(loc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scripted browser:", err)
		return 1
	}
	resp.Body.Close()
	return 0
}
