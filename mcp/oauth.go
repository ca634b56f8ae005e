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

// errNoAuthorizer explains a server that needs OAuth when nobody can
// authorize.
var errNoAuthorizer = errors.New("the server is configured for OAuth but this command cannot complete an authorization flow; use bearer_token_env_var with a token you obtained, or run rein interactively")

// oauthHandler returns the server's OAuth handler, creating it on first
// use so that its tokens survive reconnections; nil when OAuth is not
// configured.
func (s *server) oauthHandler() (auth.OAuthHandler, error) {
	o := s.cfg.OAuth
	if o == nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.oauth != nil {
		return s.oauth, nil
	}
	if s.m.cfg.Authorizer == nil {
		return nil, errNoAuthorizer
	}
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
			Metadata: &oauthex.ClientRegistrationMetadata{RedirectURIs: []string{o.RedirectURL}},
		},
		Client: &http.Client{Transport: s.m.cfg.HTTPTransport},
	}
	if o.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientMetadataURL}
	}
	if o.ClientID != "" {
		cred := &oauthex.ClientCredentials{ClientID: o.ClientID}
		if sec := o.ClientSecret.Reveal(); sec != "" {
			cred.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: sec}
		}
		cfg.PreregisteredClient = cred
	}
	if len(o.Scopes) > 0 {
		scopes := append([]string(nil), o.Scopes...)
		cfg.ScopeFilter = func([]string) []string { return scopes }
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	s.oauth = h
	return h, nil
}
