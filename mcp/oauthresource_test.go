package mcp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestWithResource: refresh requests to the token endpoint gain the
// resource; other requests, other URLs and a resource already named pass
// unchanged; an oversized body is refused.
func TestWithResource(t *testing.T) {
	var got []url.Values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		v, _ := url.ParseQuery(string(b))
		got = append(got, v)
	}))
	defer srv.Close()
	tokenURL := srv.URL + "/token"
	c := withResource(srv.Client(), tokenURL, "https://mcp.example/mcp")
	post := func(u, body string) error {
		resp, err := c.Post(u, "application/x-www-form-urlencoded", strings.NewReader(body))
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	for _, tt := range []struct{ url, body, want string }{
		{tokenURL, "grant_type=refresh_token&refresh_token=r1", "https://mcp.example/mcp"},
		{tokenURL, "grant_type=refresh_token&refresh_token=r1&resource=https%3A%2F%2Fother", "https://other"},
		{tokenURL, "grant_type=authorization_code&code=c", ""},
		{srv.URL + "/elsewhere", "grant_type=refresh_token", ""},
	} {
		got = nil
		if err := post(tt.url, tt.body); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Get("resource") != tt.want {
			t.Errorf("%s %q: server got %v, want resource %q", tt.url, tt.body, got, tt.want)
		}
	}
	if err := post(tokenURL, "grant_type=refresh_token&x="+strings.Repeat("a", maxTokenRequest)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("an oversized token request: %v", err)
	}
	if withResource(nil, "", "r") != http.DefaultClient {
		t.Error("no token URL should leave the client as it is")
	}
}
