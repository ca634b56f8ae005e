package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Authorizer completes the user's part of an OAuth 2.1 authorization-code
// flow: it sends the user to the authorization URL (a browser, a printed
// link) and returns what the authorization server sent to the redirect
// URL. It is called on the goroutine connecting to the server, which waits
// for it until the startup timeout; it must honour ctx.
type Authorizer interface {
	Authorize(ctx context.Context, server, authURL string) (*AuthorizationResponse, error)
}

// AuthorizationResponse holds the query parameters of the redirect.
type AuthorizationResponse struct {
	Code   string
	State  string
	Issuer string // the "iss" parameter (RFC 9207), when present
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, server, authURL string) (*AuthorizationResponse, error)

// Authorize implements Authorizer.
func (f AuthorizerFunc) Authorize(ctx context.Context, server, authURL string) (*AuthorizationResponse, error) {
	return f(ctx, server, authURL)
}

// oauthHandler returns the server's OAuth handler, creating it on first
// use so that its tokens survive reconnections; nil when the server does
// not use OAuth. A server uses OAuth when it has an oauth table, or, when
// a TokenStore is configured, when it is an HTTP server with no other
// credentials (no bearer token, no Authorization header): such a server
// may demand a sign-in, as remote servers commonly do.
func (s *server) oauthHandler() (auth.OAuthHandler, error) {
	o := s.cfg.OAuth
	if o == nil && s.implicitOAuth() {
		o = &OAuthConfig{}
	}
	if o == nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.oauth != nil {
		return s.oauth, nil
	}
	client := &http.Client{Transport: s.m.cfg.HTTPTransport}
	h := &oauthSession{name: s.cfg.Name, resource: s.cfg.URL, store: s.m.cfg.Tokens, client: client}
	if s.m.cfg.Authorizer != nil {
		flow, err := s.newFlow(o, h)
		if err != nil {
			return nil, err
		}
		h.flow = flow
	}
	s.oauth = h
	return h, nil
}

// implicitOAuth reports an HTTP server without an oauth table that may
// still be signed in to (see oauthHandler).
func (s *server) implicitOAuth() bool {
	return s.m.cfg.Tokens != nil && s.cfg.UsesOAuth()
}

// newFlow builds the SDK's authorization-code flow for o. Registration
// follows the order the MCP specification (2025-11-25, 2026-07-28) asks
// of a client: a pre-registered client when configured, else a client ID
// metadata document when the authorization server supports them, else
// dynamic registration.
func (s *server) newFlow(o *OAuthConfig, h *oauthSession) (*auth.AuthorizationCodeHandler, error) {
	if o.RedirectURL == "" {
		return nil, fmt.Errorf("oauth.redirect_url is required for the authorization-code flow")
	}
	authorizer, name := s.m.cfg.Authorizer, s.cfg.Name
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: o.RedirectURL,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			r, err := authorizer.Authorize(ctx, name, args.URL)
			if err != nil {
				return nil, err
			}
			if r == nil {
				return nil, errors.New("the authorization was not completed")
			}
			return &auth.AuthorizationResult{Code: r.Code, State: r.State, Iss: r.Issuer}, nil
		},
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs: []string{o.RedirectURL},
				ClientName:   s.m.cfg.ClientName,
				GrantTypes:   []string{"authorization_code", "refresh_token"},
			},
		},
		Client:              h.client,
		NewTokenSource:      h.newTokenSource,
		RequestRefreshToken: true,
	}
	if o.ClientID != "" {
		cred := &oauthex.ClientCredentials{ClientID: o.ClientID}
		if sec := o.ClientSecret.Reveal(); sec != "" {
			cred.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: sec}
		}
		cfg.PreregisteredClient = cred
	} else if o.ClientMetadataURL != "" {
		// The SDK would try a metadata document before a pre-registered
		// client; the specification prefers the pre-registered one.
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientMetadataURL}
	}
	if len(o.Scopes) > 0 {
		scopes := append([]string(nil), o.Scopes...)
		cfg.ScopeFilter = func([]string) []string { return scopes }
	} else {
		cfg.ScopeFilter = h.scopes
	}
	flow, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	return flow, nil
}
