package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// ErrNoRevocation reports an authorization server that offers no
// revocation endpoint: its tokens lapse on their own.
var ErrNoRevocation = errors.New("the authorization server offers no token revocation")

// RevokeToken revokes a stored sign-in at its authorization server (RFC
// 7009): the refresh token, then the access token. It finds the server as
// signing in did — the resource's protected-resource metadata (RFC 9728),
// then the server's metadata (RFC 8414, then OpenID discovery) — and
// authenticates as the stored client. c carries the requests (nil: the
// default client); ctx bounds them.
func RevokeToken(ctx context.Context, c *http.Client, resource string, st *StoredToken) error {
	if c == nil {
		c = http.DefaultClient
	}
	endpoint, err := revocationEndpoint(ctx, c, resource)
	if err != nil {
		return err
	}
	var errs []error
	for _, tok := range []struct{ value, hint string }{{st.RefreshToken, "refresh_token"}, {st.AccessToken, "access_token"}} {
		if tok.value == "" {
			continue
		}
		if err := revoke(ctx, c, endpoint, tok.value, tok.hint, st); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// revocationEndpoint discovers the revocation endpoint of resource's
// authorization server.
func revocationEndpoint(ctx context.Context, c *http.Client, resource string) (string, error) {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("the server URL %q is not absolute", resource)
	}
	var issuer string
	last := errors.New("no authorization server listed")
	for _, p := range wellKnown(u, "oauth-protected-resource") {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, p, resource, c)
		if err == nil && prm != nil && len(prm.AuthorizationServers) > 0 {
			issuer = prm.AuthorizationServers[0]
			break
		}
		if err != nil {
			last = err
		}
	}
	if issuer == "" {
		return "", fmt.Errorf("finding the authorization server of %s: %w", resource, last)
	}
	iu, err := url.Parse(issuer)
	if err != nil {
		return "", fmt.Errorf("the authorization server %q is not a URL", issuer)
	}
	for _, kind := range []string{"oauth-authorization-server", "openid-configuration"} {
		for _, p := range wellKnown(iu, kind) {
			meta, err := oauthex.GetAuthServerMeta(ctx, p, issuer, c)
			if err != nil || meta == nil {
				continue
			}
			if meta.RevocationEndpoint == "" {
				return "", ErrNoRevocation
			}
			return meta.RevocationEndpoint, nil
		}
	}
	return "", fmt.Errorf("finding the metadata of the authorization server %s failed", issuer)
}

// wellKnown lists the metadata URLs of u for kind: the path-inserted one
// (RFC 8414 §3.1, RFC 9728 §3.1), then the root one.
func wellKnown(u *url.URL, kind string) []string {
	root := u.Scheme + "://" + u.Host + "/.well-known/" + kind
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		return []string{root + p, root}
	}
	return []string{root}
}

// revoke posts one token to the revocation endpoint with the client's
// authentication.
func revoke(ctx context.Context, c *http.Client, endpoint, token, hint string, st *StoredToken) error {
	form := url.Values{"token": {token}, "token_type_hint": {hint}}
	basic := st.ClientSecret != "" && oauth2.AuthStyle(st.AuthStyle) != oauth2.AuthStyleInParams
	if !basic {
		form.Set("client_id", st.ClientID)
		if st.ClientSecret != "" {
			form.Set("client_secret", st.ClientSecret)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("revoking the %s: %w", strings.ReplaceAll(hint, "_", " "), err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basic {
		req.SetBasicAuth(url.QueryEscape(st.ClientID), url.QueryEscape(st.ClientSecret))
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("revoking the %s: %w", strings.ReplaceAll(hint, "_", " "), err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	// RFC 7009 §2.2: 200 whether or not the token was valid.
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("revoking the %s: the authorization server answered %s", strings.ReplaceAll(hint, "_", " "), resp.Status)
	}
	return nil
}
