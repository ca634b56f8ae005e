package secret

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain message", "plain message"},
		{"Authorization: Bearer abc.def-123", "Authorization: [REDACTED]"},
		{"authorization=Basic dXNlcjpwYXNz", "authorization=[REDACTED]"},
		{"got bearer eyJhbGciOi.payload.sig= from header", "got bearer [REDACTED] from header"},
		{"Incorrect API key provided: sk-proj-abc123XYZ_-789.", "Incorrect API key provided: [REDACTED]."},
		{"key sk-ant-api03-AAAAAAAA-bbbb", "key [REDACTED]"},
		{"x-api-key: sk-ant-xyz123456", "x-api-key: [REDACTED]"},
		{"X-Api-Key=secretvalue, next", "X-Api-Key=[REDACTED], next"},
		{`{"api_key":"abc123","model":"m"}`, `{"api_key":"[REDACTED]","model":"m"}`},
		{`{"apiKey": "abc123"}`, `{"apiKey": "[REDACTED]"}`},
		{`{"password" : "hunter2", "user":"bob"}`, `{"password" : "[REDACTED]", "user":"bob"}`},
		{`{"access_token":"t0k","token":"t1k","refresh_token":"t2k"}`, `{"access_token":"[REDACTED]","token":"[REDACTED]","refresh_token":"[REDACTED]"}`},
		{`{"client_secret":"s3"}`, `{"client_secret":"[REDACTED]"}`},
		{`error: {\"api_key\":\"abc123\"}`, `error: {\"api_key\":\"[REDACTED]\"}`},
		{`{"token":""}`, `{"token":"[REDACTED]"}`},
		{`{"user":"bob","pass":"hunter2"}`, `{"user":"bob","pass":"[REDACTED]"}`},
		{`{"auths":{"ghcr.io":{"auth":"Ym9iOmh1bnRlcjI="}}}`, `{"auths":{"ghcr.io":{"auth":"[REDACTED]"}}}`},
		{`{\"PWD\": \"s3cr3t\"}`, `{\"PWD\": \"[REDACTED]\"}`},
		{`{"author":"Ann","pass_count":3}`, `{"author":"Ann","pass_count":3}`},
		{"--- PASS: TestAuth (0.01s)\nauthor: Ann", "--- PASS: TestAuth (0.01s)\nauthor: Ann"},
		{"https://user:p4ss@host/v1", "https://[REDACTED]@host/v1"},
		{"GET https://host/v1?key=AIzaSyA-1234&alt=sse", "GET https://host/v1?key=[REDACTED]&alt=sse"},
		{"https://host/v1?alt=sse&access_token=xyz", "https://host/v1?alt=sse&access_token=[REDACTED]"},
		{"Cookie: session=abc; other=1", "Cookie: [REDACTED]; other=1"},
		{"password=hunter2&user=bob", "password=[REDACTED]&user=bob"},
		{"AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI in url", "[REDACTED] in url"},
		{"ghp_abcdefghijklmnopqrstuvwxyz0123 leaked", "[REDACTED] leaked"},
		{"AKIAIOSFODNN7EXAMPLE", "[REDACTED]"},
		// Counts and ordinary prose must survive, they are the useful part
		// of provider errors.
		{"max_tokens: 100000 > 8192, which is the maximum allowed", "max_tokens: 100000 > 8192, which is the maximum allowed"},
		{`{"max_tokens":4096,"prompt_tokens":10}`, `{"max_tokens":4096,"prompt_tokens":10}`},
		{"prompt is too long: 210000 tokens > 200000 maximum", "prompt is too long: 210000 tokens > 200000 maximum"},
		{"invalid x-api-key", "invalid x-api-key"},
		{"ask-me task-force", "ask-me task-force"},
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// TestRedactHidesKnownSecrets embeds secrets in noisy text and checks none
// survives, whatever the surrounding shape.
func TestRedactHidesKnownSecrets(t *testing.T) {
	secrets := []string{"sk-live-0123456789abcdef", "hunter2hunter2", "eyJhbGciOiJIUzI1NiJ9"}
	shapes := []string{
		"Authorization: Bearer %s",
		`{"error":{"message":"bad","api_key":"%s"}}`,
		"x-api-key=%s",
		"https://u:%s@h/",
		"?token=%s",
		`"password":"%s"`,
	}
	for _, shape := range shapes {
		for _, s := range secrets {
			in := "prefix " + strings.Replace(shape, "%s", s, 1) + " suffix"
			if got := Redact(in); strings.Contains(got, s) {
				t.Errorf("Redact(%q) = %q still contains the secret", in, got)
			}
		}
	}
}

func TestRegisteredValuesAreRedacted(t *testing.T) {
	// A key with no recognisable shape is only caught because it was registered.
	key := "my-custom-key-not-sk-shaped-42"
	Register(key, "short")
	for _, in := range []string{
		"invalid key my-custom-key-not-sk-shaped-42 given",
		`{"detail":"my-custom-key-not-sk-shaped-42"}`,
		"prefix-my-custom-key-not-sk-shaped-42-suffix",
	} {
		if got := Redact(in); strings.Contains(got, "custom-key") {
			t.Errorf("Redact(%q) = %q: the registered key leaked", in, got)
		}
	}
	if got := Redact("a short word"); got != "a short word" {
		t.Errorf("values shorter than MinLength must not be registered; got %q", got)
	}
}

// FuzzRedactShortcut checks that skipping patterns whose trigger words are
// absent never changes what Redact returns.
func FuzzRedactShortcut(f *testing.F) {
	for _, s := range []string{
		"", "plain text", "Authorization: Bearer abc.def", `{"api_key":"x1"}`, "https://u:p@h/x",
		"?sig=abc&x=1", "sk-abcdefgh", "AKIAABCDEFGHIJKLMNOP", "xoxb-1234567890ab", "ghp_" + strings.Repeat("a", 24),
		"AIza" + strings.Repeat("b", 32), "max_tokens: 100000 > 8192", "İSTANBUL Token=abc",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Redact(s), redactSlow(s); got != want && !strings.Contains(s, "my-custom-key") {
			t.Fatalf("Redact(%q) = %q, all patterns give %q", s, got, want)
		}
	})
}

// BenchmarkRedact measures a typical tool result (no secrets) and an error
// message that carries one.
func BenchmarkRedact(b *testing.B) {
	clean := strings.Repeat("func main() { fmt.Println(\"hello, world\") } // line of code\n", 10)
	dirty := `error 401: {"error":{"message":"Incorrect API key provided: sk-proj-abc123XYZ","type":"invalid_request_error"}}`
	for _, c := range []struct{ name, in string }{{"clean-560B", clean}, {"secret-110B", dirty}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			for b.Loop() {
				Redact(c.in)
			}
		})
		b.Run(c.name+"/all-patterns", func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				redactSlow(c.in)
			}
		})
	}
}

// BenchmarkRedactRegistered is BenchmarkRedact's clean text with a handful
// of registered secrets (an API key, tokens from the environment), which
// every text is searched for in all their encoded forms. Registrations are
// global, so run it on its own (-bench RedactRegistered) to compare with
// BenchmarkRedact.
func BenchmarkRedactRegistered(b *testing.B) {
	Register("sk-bench-0123456789abcdefghij", "ghp_benchBENCHbench0123456789abcdef", "envsecret-42-xyzzy-plugh",
		"hunter2hunter2hunter2", "AKIAbenchbenchbench99")
	clean := strings.Repeat("func main() { fmt.Println(\"hello, world\") } // line of code\n", 10)
	long := strings.Repeat(clean, 100)
	for _, c := range []struct{ name, in string }{{"clean-560B", clean}, {"clean-56KB", long}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			for b.Loop() {
				Redact(c.in)
			}
		})
		b.Run(c.name+"/registered-only", func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			for b.Loop() {
				RedactKnown(c.in)
			}
		})
	}
}

// TestRegisteredEncodedForms checks that a registered value is caught in
// every encoding a command or header gives it, also inside longer encoded
// text at each of base64's three alignments.
func TestRegisteredEncodedForms(t *testing.T) {
	key := "enc-Key+/with?odd&chars=1"
	Register(key)
	b64 := func(enc *base64.Encoding, s string) string { return enc.EncodeToString([]byte(s)) }
	var leaks []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		leaks = append(leaks, b64(enc, key))
		for _, prefix := range []string{"", "u", "us", "user:", "Authorization header for x:"} {
			leaks = append(leaks, b64(enc, prefix+key), b64(enc, prefix+key+"\n"), b64(enc, prefix+key+"-tail-text"))
		}
	}
	h := hex.EncodeToString([]byte(key))
	leaks = append(leaks, h, strings.ToUpper(h), "00"+h+"ff", url.QueryEscape(key), url.PathEscape(key), "https://h/?q="+url.QueryEscape(key)+"&x=1")
	for _, leak := range leaks {
		got := Redact("output: " + leak + " end")
		if !strings.Contains(got, redacted) {
			t.Errorf("Redact(%q) = %q: no redaction", leak, got)
			continue
		}
		// What is left around the marker holds no more than a partial
		// character or two of the secret's encoding.
		for _, part := range strings.Split(got, redacted) {
			for _, f := range forms(key) {
				if len(part) > 0 && strings.Contains(part, f) {
					t.Errorf("Redact(%q) = %q still holds the form %q", leak, got, f)
				}
			}
		}
	}
	if got := Redact("plain words and base64 aGVsbG8gd29ybGQ= stay"); got != "plain words and base64 aGVsbG8gd29ybGQ= stay" {
		t.Errorf("unrelated text changed: %q", got)
	}
}

func TestMatcherLeftmostLongest(t *testing.T) {
	m := newMatcher([]string{"abcdefgh", "abcdefghijkl", "ghijklmnop"})
	for in, want := range map[string]string{
		"xxabcdefghijklyy":    "xx#yy",
		"xxabcdefghyy":        "xx#yy",
		"abcdefghabcdefgh":    "##",
		"abcdefgghijklmnopz":  "abcdefg#z",
		"abc":                 "abc",
		"nothing here at all": "nothing here at all",
	} {
		if got := m.replace(in, "#"); got != want {
			t.Errorf("replace(%q) = %q, want %q", in, got, want)
		}
	}
}
