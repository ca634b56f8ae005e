package host

import (
	"slices"
	"strings"
	"testing"

	"github.com/reinharness/rein/workspace/sandbox"
)

// TestSandboxCachesConfig: every kind is on by default with a 10 GiB cap;
// the user sets both; a project may only narrow the kinds and lower the
// cap, anything else is ignored with a warning; bad values are errors.
func TestSandboxCachesConfig(t *testing.T) {
	tests := []struct {
		name, user, project string
		kinds               []string
		size                int64
		warning, err        string
	}{
		{name: "default", kinds: sandbox.CacheKinds, size: sandbox.DefaultCacheSize},
		{name: "user subset", user: "[sandbox]\ncaches = [\"go\", \"pip\", \"go\"]\ncache_size = \"2GiB\"\n", kinds: []string{"go", "pip"}, size: 2 << 30},
		{name: "user none", user: "[sandbox]\ncaches = []\n", kinds: []string{}, size: sandbox.DefaultCacheSize},
		{name: "user no cap", user: "[sandbox]\ncache_size = \"off\"\n", kinds: sandbox.CacheKinds, size: 0},
		{name: "project narrows", project: "[sandbox]\ncaches = [\"npm\"]\ncache_size = \"1GiB\"\n", kinds: []string{"npm"}, size: 1 << 30},
		{name: "project cannot widen", user: "[sandbox]\ncaches = [\"go\"]\n", project: "[sandbox]\ncaches = [\"go\", \"cargo\"]\n", kinds: []string{"go"}, size: sandbox.DefaultCacheSize, warning: `sandbox.caches "cargo" ignored`},
		{name: "project cannot raise", user: "[sandbox]\ncache_size = \"1GiB\"\n", project: "[sandbox]\ncache_size = \"5GiB\"\n", kinds: sandbox.CacheKinds, size: 1 << 30, warning: "cache_size ignored"},
		{name: "project cannot lift", project: "[sandbox]\ncache_size = \"off\"\n", kinds: sandbox.CacheKinds, size: sandbox.DefaultCacheSize, warning: "cache_size ignored"},
		{name: "unknown kind", user: "[sandbox]\ncaches = [\"maven\"]\n", err: `unknown cache "maven"`},
		{name: "bad size", user: "[sandbox]\ncache_size = \"lots\"\n", err: "is not a size"},
		{name: "tiny size", user: "[sandbox]\ncache_size = 12\n", err: "too small"},
		{name: "wrong type", user: "[sandbox]\ncache_size = true\n", err: "give a size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, ws, home := loadLayers(t, tt.user, tt.project)
			s, err := LoadSandbox(cfg, ws, home)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.Caches, tt.kinds) || s.CacheSize != tt.size {
				t.Errorf("caches %q size %d, want %q %d", s.Caches, s.CacheSize, tt.kinds, tt.size)
			}
			switch {
			case tt.warning == "" && len(s.Warnings) != 0:
				t.Errorf("warnings %q", s.Warnings)
			case tt.warning != "" && (len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], tt.warning)):
				t.Errorf("warnings %q, want one with %q", s.Warnings, tt.warning)
			}
		})
	}
}

// FuzzParseCacheSize: any TOML value is a size of at least 1 MiB, 0
// ("off") or an error; never a panic or a negative size.
func FuzzParseCacheSize(f *testing.F) {
	for _, s := range []string{"10GiB", "off", "OFF", "1MiB", "0.5GiB", "", "-1GiB", "1e9", "99999999999TiB", "\x00"} {
		f.Add(s, int64(0), false)
	}
	f.Add("", int64(1<<20), true)
	f.Add("", int64(-5), true)
	f.Fuzz(func(t *testing.T, s string, n int64, num bool) {
		var v any = s
		if num {
			v = n
		}
		got, err := parseCacheSize(v)
		if err == nil && got != 0 && got < 1<<20 {
			t.Fatalf("parseCacheSize(%#v) = %d", v, got)
		}
	})
}
