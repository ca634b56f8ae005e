package mcp

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// revokeWorld is a protected resource and its authorization server.
type revokeWorld struct {
	srv        *httptest.Server
	revocation bool // the server offers an endpoint
	status     int  // what the endpoint answers
	got        []string
	basic      []string
}

func newRevokeWorld(t *testing.T) *revokeWorld {
	w := &revokeWorld{revocation: true, status: http.StatusOK}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		base := w.srv.URL
		rw.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/oauth-protected-resource/mcp":
			json.NewEncoder(rw).Encode(map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base + "/as"}})
		case "/.well-known/oauth-authorization-server/as":
			meta := map[string]any{"issuer": base + "/as", "authorization_endpoint": base + "/a", "token_endpoint": base + "/t",
				"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}}
			if w.revocation {
				meta["revocation_endpoint"] = base + "/revoke"
			}
			json.NewEncoder(rw).Encode(meta)
		case "/revoke":
			r.ParseForm()
			w.got = append(w.got, r.Form.Get("token_type_hint")+"="+r.Form.Get("token"))
			if u, p, ok := r.BasicAuth(); ok {
				w.basic = append(w.basic, u+":"+p)
			}
			rw.WriteHeader(w.status)
		default:
			http.NotFound(rw, r)
		}
	}))
	t.Cleanup(w.srv.Close)
	return w
}

func TestRevokeToken(t *testing.T) {
	w := newRevokeWorld(t)
	st := &StoredToken{AccessToken: "at1", RefreshToken: "rt1", ClientID: "cid"}
	if err := RevokeToken(t.Context(), w.srv.Client(), w.srv.URL+"/mcp", st); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(w.got, " "); got != "refresh_token=rt1 access_token=at1" {
		t.Errorf("revoked %q", got)
	}
	// A confidential client authenticates with HTTP Basic.
	w.got = nil
	secret := &StoredToken{AccessToken: "at2", ClientID: "cid", ClientSecret: "s3"}
	if err := RevokeToken(t.Context(), w.srv.Client(), w.srv.URL+"/mcp", secret); err != nil || len(w.basic) != 1 || w.basic[0] != "cid:s3" {
		t.Errorf("confidential client: err %v, basic %v", err, w.basic)
	}
	w.status = http.StatusServiceUnavailable
	if err := RevokeToken(t.Context(), w.srv.Client(), w.srv.URL+"/mcp", st); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("a failing endpoint: %v", err)
	}
	w.revocation = false
	if err := RevokeToken(t.Context(), w.srv.Client(), w.srv.URL+"/mcp", st); !errors.Is(err, ErrNoRevocation) {
		t.Errorf("no endpoint: %v", err)
	}
	if err := RevokeToken(t.Context(), w.srv.Client(), w.srv.URL+"/nothing", st); err == nil {
		t.Error("a resource without metadata was revoked")
	}
	if err := RevokeToken(t.Context(), nil, "not a url", st); err == nil {
		t.Error("a relative resource was accepted")
	}
}
