package httpx

import "regexp"

// redacted replaces every secret Redact finds.
const redacted = "[REDACTED]"

// secretNames matches names of fields that hold secrets, in JSON keys,
// headers, form fields and query parameters. It errs on the side of
// hiding: a redacted "client_secret_hint" costs little, a leaked key costs
// a lot. Names must END in "token" (access_token, x-auth-token) so that
// counts such as max_tokens, which fill provider error messages, survive.
const secretNames = `(?:[\w.\-]*(?:api[_\-]?key|apikey|password|passwd|secret|credential|authorization|cookie|session[_\-]?id)[\w.\-]*|[\w.\-]*token)`

// redactions are applied in order; each keeps the context (names, quotes,
// schemes) and replaces only the secret, so messages stay readable. Value
// patterns never start with '[' so a later rule does not re-redact the
// marker an earlier one left.
var redactions = []struct {
	re   *regexp.Regexp
	repl string
}{
	// JSON string values of secret keys, also when the JSON is itself
	// embedded (escaped) in a string: "api_key": "…", \"token\":\"…\".
	{regexp.MustCompile(`(?i)(\\?"` + secretNames + `\\?"\s*:\s*\\?")(?:[^"\\]|\\[^"])*`), "${1}" + redacted},
	// URL user info: https://user:pass@host.
	{regexp.MustCompile(`(?i)([a-z][a-z0-9+.\-]*://)[^/\s:@]*:[^/\s@]*@`), "${1}" + redacted + "@"},
	// Query parameters that carry keys: ?key=…&token=….
	{regexp.MustCompile(`(?i)([?&](?:key|sig|signature|` + secretNames + `)=)[^&\s"'#\[][^&\s"'#]*`), "${1}" + redacted},
	// Header or form style "Name: value" / "name=value", with an optional
	// auth scheme word before the value (Authorization: Basic xyz).
	{regexp.MustCompile(`(?i)(\b(?:x-api-key|api-key|x-goog-api-key|proxy-authorization|authorization|set-cookie|cookie|` +
		secretNames + `)\s*[:=]\s*)(?:(?:bearer|basic|token|digest)\s+)?[^\s,;&"'}\]\[][^\s,;&"'}\]]*`), "${1}" + redacted},
	// Bearer tokens anywhere.
	{regexp.MustCompile(`(?i)\b(bearer\s+)[a-z0-9\-._~+/]+=*`), "${1}" + redacted},
	// Well-known key formats: OpenAI/Anthropic sk-…, Google AIza…, GitHub,
	// Slack and AWS access keys.
	{regexp.MustCompile(`\b(?:sk|rk|pk)-[A-Za-z0-9_\-]{6,}`), redacted},
	{regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{30,}`), redacted},
	{regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}`), redacted},
	{regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9\-]{10,}`), redacted},
	{regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), redacted},
}

// Redact removes secrets (Bearer tokens, sk-… keys, x-api-key values,
// "api_key"/"token"/"password" JSON values, credentials in URLs) from a
// string; used on any server text before it goes into an error. It is
// a best effort over free text, not a parser: the patterns prefer hiding
// too much to hiding too little.
func Redact(s string) string {
	for _, r := range redactions {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	return s
}
