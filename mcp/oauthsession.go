package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// ErrNeedsLogin marks a server the user must sign in to: it demands OAuth
// and rein holds no sign-in for it, or the one it holds can no longer be
// refreshed (revoked, expired). Commands that cannot open a browser report
// it with the command that signs in.
var ErrNeedsLogin = errors.New("needs login")

// needsLoginError says which server needs a sign-in and why.
type needsLoginError struct {
	server string
	cause  error // nil: there was no sign-in
}

func (e *needsLoginError) Error() string {
	msg := fmt.Sprintf("needs login: run rein mcp login %s", e.server)
	if e.cause != nil {
		msg += fmt.Sprintf(" (the stored sign-in was refused: %s)", oneLine(e.cause.Error()))
	}
	return msg
}

// Unwrap lets errors.Is find ErrNeedsLogin and errors.As the token
// endpoint's answer (the SDK treats an invalid_grant refresh as "send no
// token", which makes the server's 401 bring rein back to Authorize).
func (e *needsLoginError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrNeedsLogin}
	}
	return []error{ErrNeedsLogin, e.cause}
}

// oauthSession is the OAuth handler of one server. It sends the stored
// sign-in, refreshes it when it expires (and once more when the server
// answers 401 to it), adopts a newer sign-in another rein process stored,
// and only then, when an Authorizer is configured, runs the SDK's
// authorization-code flow (discovery, registration, PKCE, the resource and
// issuer checks), storing what it obtains. Without an Authorizer a
// server that demands authorization fails with ErrNeedsLogin.
type oauthSession struct {
	name, resource string
	store          TokenStore                     // nil: sign-ins live only in memory
	flow           *auth.AuthorizationCodeHandler // nil: nobody can authorize
	client         *http.Client

	mu      sync.Mutex
	current *StoredToken       // the sign-in in use
	ts      oauth2.TokenSource // refreshes current
	loaded  bool               // the store was read
	refused error              // the last refresh failed: why
	flowErr error              // the authorization flow failed: why
}

var _ auth.OAuthHandler = (*oauthSession)(nil)

// TokenSource implements auth.OAuthHandler: the stored sign-in, read on
// first use; nil (no Authorization header) when there is none.
func (h *oauthSession) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.loaded && h.store != nil {
		h.loaded = true
		st, err := h.store.LoadToken(h.name, h.resource)
		if err != nil {
			return nil, err
		}
		if st != nil {
			h.adoptLocked(st)
		}
	}
	if h.ts == nil {
		return nil, nil
	}
	return h.ts, nil
}

// adoptLocked makes st the sign-in in use; h.mu must be held.
func (h *oauthSession) adoptLocked(st *StoredToken) {
	st.register()
	h.current, h.refused = st, nil
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, withResource(h.client, st.TokenURL, h.resource))
	h.ts = &savingSource{h: h, base: st.config().TokenSource(ctx, st.token()), last: st.AccessToken}
}

// Authorize implements auth.OAuthHandler; the transport calls it when the
// server answered 401 or 403.
func (h *oauthSession) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	stepUp := resp.StatusCode == http.StatusForbidden
	if stepUp && !insufficientScope(challenges) {
		drain(resp)
		return nil // not an authorization problem; the retry reports it
	}
	if !stepUp {
		if ok, err := h.recover(ctx, req); ok || err != nil {
			drain(resp)
			return err
		}
	}
	if h.flow == nil {
		drain(resp)
		h.mu.Lock()
		cause := h.refused
		h.mu.Unlock()
		if stepUp {
			return fmt.Errorf("%w: the server wants more scopes than the sign-in grants: run rein mcp login %s", ErrNeedsLogin, h.name)
		}
		return &needsLoginError{server: h.name, cause: cause}
	}
	h.mu.Lock()
	failed := h.flowErr
	h.mu.Unlock()
	if failed != nil {
		// The user refused, or the authorization server misbehaved: the
		// SDK's fallbacks (the initialize handshake after the discover
		// probe) must not send the user through it a second time.
		drain(resp)
		return failed
	}
	err := h.flow.Authorize(ctx, req, resp) // closes resp.Body
	if err != nil && ctx.Err() == nil {
		err = &SignInError{Err: err}
		h.mu.Lock()
		h.flowErr = err
		h.mu.Unlock()
	}
	return err
}

// SignInError is a failed authorization flow: the user refused, the
// authorization server failed a check (issuer, resource, state), or the
// code could not be exchanged. A Manager does not run a flow again after
// one failed.
type SignInError struct{ Err error }

func (e *SignInError) Error() string { return e.Err.Error() }

// Unwrap returns the flow's error.
func (e *SignInError) Unwrap() error { return e.Err }

// recover tries what needs no user after a 401: a sign-in stored by
// another process since this one was read, then a refresh of the sign-in
// the server refused. ok means the request may be retried.
func (h *oauthSession) recover(ctx context.Context, req *http.Request) (ok bool, err error) {
	sent := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.store != nil {
		st, err := h.store.LoadToken(h.name, h.resource)
		if err != nil {
			return false, err
		}
		if st != nil && st.AccessToken != sent && (h.current == nil || st.AccessToken != h.current.AccessToken) {
			h.adoptLocked(st)
			return true, nil
		}
	}
	if h.current == nil || h.current.RefreshToken == "" || h.refused != nil || sent == "" {
		return false, nil
	}
	// The server refused a token rein thought valid (revoked, or a clock
	// that disagrees): refresh it once, now.
	st := *h.current
	st.Expiry = time.Unix(1, 0)
	rctx := context.WithValue(ctx, oauth2.HTTPClient, withResource(h.client, st.TokenURL, h.resource))
	tok, err := st.config().TokenSource(rctx, st.token()).Token()
	if err != nil {
		h.refused = err
		return false, nil
	}
	if err := h.saveLocked(tok, nil); err != nil {
		return false, err
	}
	return true, nil
}

// saveLocked stores a new token of the current sign-in (cfg nil) or of a
// new sign-in made with cfg, and makes it the one in use.
func (h *oauthSession) saveLocked(tok *oauth2.Token, cfg *oauth2.Config) error {
	st := &StoredToken{}
	if h.current != nil {
		*st = *h.current
	}
	if cfg != nil {
		st = &StoredToken{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, TokenURL: cfg.Endpoint.TokenURL,
			AuthStyle: int(cfg.Endpoint.AuthStyle), Scopes: slices.Clone(cfg.Scopes)}
	}
	st.AccessToken, st.TokenType, st.Expiry = tok.AccessToken, tok.TokenType, tok.Expiry
	if tok.RefreshToken != "" {
		st.RefreshToken = tok.RefreshToken
	}
	st.Saved = time.Now().UTC()
	h.adoptLocked(st)
	if h.store == nil {
		return nil
	}
	return h.store.SaveToken(h.name, h.resource, st)
}

// newTokenSource is the SDK flow's hook after a successful code exchange:
// the new sign-in is stored and used.
func (h *oauthSession) newTokenSource(_ context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.saveLocked(tok, cfg); err != nil {
		return nil, err
	}
	return h.ts, nil
}

// scopes is the SDK flow's scope filter when the configuration names
// none: the discovered scopes plus those of the stored sign-in, so that a
// step-up in a later run keeps what an earlier one granted.
func (h *oauthSession) scopes(discovered []string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.current == nil {
		return discovered
	}
	out := slices.Clone(discovered)
	for _, s := range h.current.Scopes {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// savingSource refreshes the sign-in when it expires and stores every
// token it obtains; a refused refresh means the user must sign in again.
type savingSource struct {
	h    *oauthSession
	base oauth2.TokenSource
	mu   sync.Mutex
	last string // the access token last seen
}

// Token implements oauth2.TokenSource.
func (s *savingSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tok, err := s.base.Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			s.h.mu.Lock()
			s.h.refused = err
			s.h.mu.Unlock()
			return nil, &needsLoginError{server: s.h.name, cause: err}
		}
		return nil, fmt.Errorf("refreshing the sign-in: %w", err)
	}
	if tok.AccessToken != s.last {
		s.last = tok.AccessToken
		s.h.mu.Lock()
		err := s.h.persistRefreshLocked(tok)
		s.h.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	return tok, nil
}

// persistRefreshLocked stores a refreshed token without replacing the
// token source that produced it.
func (h *oauthSession) persistRefreshLocked(tok *oauth2.Token) error {
	if h.current == nil {
		return nil
	}
	st := *h.current
	st.AccessToken, st.TokenType, st.Expiry = tok.AccessToken, tok.TokenType, tok.Expiry
	if tok.RefreshToken != "" {
		st.RefreshToken = tok.RefreshToken
	}
	st.Saved = time.Now().UTC()
	st.register()
	h.current = &st
	if h.store == nil {
		return nil
	}
	return h.store.SaveToken(h.name, h.resource, &st)
}

// insufficientScope reports a 403 challenge asking for more scopes.
func insufficientScope(cs []oauthex.Challenge) bool {
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, "bearer") && c.Params["error"] == "insufficient_scope" {
			return true
		}
	}
	return false
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// needsLoginText is the message of the needs-login error in err's chain.
func needsLoginText(err error) string {
	var nl *needsLoginError
	if errors.As(err, &nl) {
		return nl.Error()
	}
	// A step-up the stored sign-in cannot satisfy: the text after the
	// SDK's prefixes.
	msg := err.Error()
	if i := strings.Index(msg, ErrNeedsLogin.Error()); i >= 0 {
		return msg[i:]
	}
	return msg
}
