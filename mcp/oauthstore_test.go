package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFileTokensRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", TokenFile)
	s := OpenTokens(path)
	if st, err := s.LoadToken("a", "https://a/mcp"); st != nil || err != nil {
		t.Fatalf("empty store: %v %v", st, err)
	}
	tok := &StoredToken{AccessToken: "access-secret-1", RefreshToken: "refresh-secret-1", ClientID: "c", TokenURL: "https://as/token", Expiry: time.Now().Add(time.Hour).UTC().Round(time.Second)}
	if err := s.SaveToken("a", "https://a/mcp", tok); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveToken("a", "https://other/mcp", &StoredToken{AccessToken: "access-secret-2"}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("store mode: %v %v", fi, err)
	}
	got, err := s.LoadToken("a", "https://a/mcp")
	if err != nil || got == nil || got.RefreshToken != "refresh-secret-1" || !got.Expiry.Equal(tok.Expiry) {
		t.Fatalf("loaded %+v, %v", got, err)
	}
	if found, err := s.DeleteToken("a", "https://a/mcp"); !found || err != nil {
		t.Fatalf("delete: %v %v", found, err)
	}
	if got, _ := s.LoadToken("a", "https://a/mcp"); got != nil {
		t.Error("the deleted sign-in is still there")
	}
	if got, _ := s.LoadToken("a", "https://other/mcp"); got == nil {
		t.Error("deleting one resource's sign-in removed another's")
	}
	if err := s.SaveToken("a", "x", &StoredToken{}); err == nil {
		t.Error("a sign-in without an access token was stored")
	}
}

// TestFileTokensHostile: a damaged or foreign file is refused with an
// error that does not quote it (it may hold tokens).
func TestFileTokensHostile(t *testing.T) {
	for name, content := range map[string]string{
		"garbage":   `not json access-secret-xyz`,
		"truncated": `{"version":1,"tokens":[{"server":"a","access_token":"access-secret-xyz"`,
		"version":   `{"version":7,"tokens":[]}`,
		"types":     `{"version":1,"tokens":{"access_token":"access-secret-xyz"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), TokenFile)
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := OpenTokens(path).LoadToken("a", "")
			if err == nil {
				t.Fatal("a damaged store was read")
			}
			if strings.Contains(err.Error(), "access-secret") {
				t.Errorf("the error quotes the store: %v", err)
			}
			if err := OpenTokens(path).SaveToken("a", "", &StoredToken{AccessToken: "new-token-1"}); err == nil {
				t.Error("a damaged store was overwritten")
			}
		})
	}
}

func FuzzTokenFile(f *testing.F) {
	f.Add([]byte(`{"version":1,"tokens":[{"server":"a","resource":"r","access_token":"tok-123456","expiry":"2030-01-01T00:00:00Z"}]}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), TokenFile)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s := OpenTokens(path)
		if _, err := s.LoadToken("a", "r"); err != nil {
			return
		}
		// A store that reads must take a save and give it back.
		if err := s.SaveToken("a", "r", &StoredToken{AccessToken: "fuzz-token"}); err != nil {
			t.Fatalf("a readable store refused a save: %v", err)
		}
		if got, err := s.LoadToken("a", "r"); err != nil || got == nil || got.AccessToken != "fuzz-token" {
			t.Fatalf("the saved sign-in did not come back: %+v %v", got, err)
		}
	})
}
