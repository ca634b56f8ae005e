package policy

import "testing"

func TestCredentialComponent(t *testing.T) {
	for p, want := range map[string]string{
		".env": ".env", "config/.ENV.local": ".ENV.local", "home/.ssh/config": ".ssh", "keys/id_ed25519.pub": "id_ed25519.pub",
		"docs/notes.md": "", "environment.md": "", "": "",
	} {
		if got := CredentialComponent(p); got != want {
			t.Errorf("CredentialComponent(%q) = %q, want %q", p, got, want)
		}
	}
}
