package mcp

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/reinharness/rein/internal/secret"
	"github.com/reinharness/rein/internal/statefile"
)

// TokenFile is the name of the OAuth token store under rein's state
// directory.
const TokenFile = "mcp-tokens.json"

// TokenStore keeps the OAuth sign-ins of HTTP servers between runs. A
// sign-in is keyed by the server's name and its URL (the protected
// resource), so a server whose URL changes is signed in again rather than
// handed a token issued for another resource.
//
// Implementations must be safe for concurrent use.
type TokenStore interface {
	// LoadToken returns the sign-in kept for the server, or nil when
	// there is none.
	LoadToken(server, resource string) (*StoredToken, error)
	// SaveToken records a sign-in, replacing any other for the same key.
	SaveToken(server, resource string, t *StoredToken) error
	// DeleteToken forgets a sign-in and reports whether there was one.
	DeleteToken(server, resource string) (bool, error)
}

// StoredToken is one sign-in: the tokens and what refreshing them needs
// (the client the authorization server knows rein as, and its token
// endpoint), since a later run refreshes without discovering anything.
type StoredToken struct {
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	// Scopes are the scopes requested when signing in; a later step-up
	// request keeps them (SEP-2350).
	Scopes []string `json:"scopes,omitempty"`

	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	TokenURL     string `json:"token_url"`
	// AuthStyle is how the client authenticates at the token endpoint
	// (an oauth2.AuthStyle).
	AuthStyle int `json:"auth_style,omitempty"`

	Saved time.Time `json:"saved"`
}

// token returns the oauth2 form of the stored tokens.
func (t *StoredToken) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: t.AccessToken, RefreshToken: t.RefreshToken, TokenType: t.TokenType, Expiry: t.Expiry}
}

// config returns the oauth2 configuration that refreshes the tokens.
func (t *StoredToken) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID:     t.ClientID,
		ClientSecret: t.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: t.TokenURL, AuthStyle: oauth2.AuthStyle(t.AuthStyle)},
		Scopes:       t.Scopes,
	}
}

// register makes the token's secrets known to rein's redaction, so they
// are replaced wherever they might surface (an error echoing a header, a
// log line, the session store).
func (t *StoredToken) register() {
	if t != nil {
		secret.Register(t.AccessToken, t.RefreshToken, t.ClientSecret)
	}
}

// FileTokens is a TokenStore kept in one JSON file (mode 0600, written
// atomically) in rein's state directory, never in a workspace or the
// session store. Concurrent writers in several processes may lose an
// entry, never corrupt the file.
type FileTokens struct {
	path string
	mu   sync.Mutex
}

// OpenTokens returns the store kept in path (created on first save).
func OpenTokens(path string) *FileTokens { return &FileTokens{path: path} }

// maxTokenEntries bounds the file: a store that grew past it (by a bug or
// by hand) is refused rather than rewritten ever larger.
const maxTokenEntries = 1000

type tokenFile struct {
	Version int          `json:"version"`
	Tokens  []tokenEntry `json:"tokens"`
}

type tokenEntry struct {
	Server   string `json:"server"`
	Resource string `json:"resource"`
	StoredToken
}

func (f *FileTokens) read() (*tokenFile, error) {
	var tf tokenFile
	found, err := statefile.ReadJSON(f.path, &tf)
	if err != nil {
		// The decoding error could quote the file; it holds secrets.
		if errors.Is(err, statefile.ErrCorrupt) {
			return nil, fmt.Errorf("the MCP token store %s is corrupt; delete it and sign in again (rein mcp login SERVER)", f.path)
		}
		return nil, fmt.Errorf("reading the MCP token store: %w", err)
	}
	if !found {
		return &tokenFile{Version: 1}, nil
	}
	if tf.Version != 1 {
		return nil, fmt.Errorf("the MCP token store %s has version %d; this rein reads version 1", f.path, tf.Version)
	}
	if len(tf.Tokens) > maxTokenEntries {
		return nil, fmt.Errorf("the MCP token store %s holds %d sign-ins, more than %d; delete it and sign in again", f.path, len(tf.Tokens), maxTokenEntries)
	}
	for i := range tf.Tokens {
		tf.Tokens[i].register()
	}
	return &tf, nil
}

func (tf *tokenFile) find(server, resource string) int {
	return slices.IndexFunc(tf.Tokens, func(e tokenEntry) bool { return e.Server == server && e.Resource == resource })
}

// LoadToken implements TokenStore.
func (f *FileTokens) LoadToken(server, resource string) (*StoredToken, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	tf, err := f.read()
	if err != nil {
		return nil, err
	}
	i := tf.find(server, resource)
	if i < 0 {
		return nil, nil
	}
	t := tf.Tokens[i].StoredToken
	return &t, nil
}

// SaveToken implements TokenStore.
func (f *FileTokens) SaveToken(server, resource string, t *StoredToken) error {
	if t == nil || t.AccessToken == "" {
		return errors.New("no access token to store")
	}
	t.register()
	f.mu.Lock()
	defer f.mu.Unlock()
	tf, err := f.read()
	if err != nil {
		return err
	}
	e := tokenEntry{Server: server, Resource: resource, StoredToken: *t}
	if i := tf.find(server, resource); i >= 0 {
		tf.Tokens[i] = e
	} else {
		if len(tf.Tokens) >= maxTokenEntries {
			return fmt.Errorf("the MCP token store holds %d sign-ins already; remove some with rein mcp logout", len(tf.Tokens))
		}
		tf.Tokens = append(tf.Tokens, e)
	}
	if err := statefile.WriteJSON(f.path, tf); err != nil {
		return fmt.Errorf("saving the MCP token store: %w", err)
	}
	return nil
}

// DeleteToken implements TokenStore.
func (f *FileTokens) DeleteToken(server, resource string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	tf, err := f.read()
	if err != nil {
		return false, err
	}
	i := tf.find(server, resource)
	if i < 0 {
		return false, nil
	}
	tf.Tokens = slices.Delete(tf.Tokens, i, i+1)
	if err := statefile.WriteJSON(f.path, tf); err != nil {
		return false, fmt.Errorf("saving the MCP token store: %w", err)
	}
	return true, nil
}
