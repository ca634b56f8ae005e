// Package secret keeps secrets out of everything rein prints or stores:
// logs, telemetry, the session store and error text. It knows secrets two
// ways: values registered at run time (the API key given by flag or
// environment, MCP header values), which are replaced wherever they occur,
// and patterns (bearer tokens, sk-… keys, "api_key" JSON values, URL
// credentials) for secrets rein was never told about.
package secret

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// redacted replaces every secret Redact finds.
const redacted = "[REDACTED]"

// nameWords are the words (lower case) one of which every secret field
// name in secretNames (and the header names beside it) contains: "passw"
// for password and passwd, "authorization" for (proxy-)authorization.
// They are as long as they can be, so that the PASS of every test run's
// output, say, does not send it through the patterns.
var nameWords = []string{"key", "passw", "secret", "credential", "authorization", "cookie", "session", "token"}

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
//
// needs lists words (lower case) of which a text must contain at least one
// for the pattern to match at all: checking them first spares most texts
// the regular expressions, which cost about a microsecond per 3 bytes.
var redactions = []rule{
	// JSON string values of secret keys, also when the JSON is itself
	// embedded (escaped) in a string: "api_key": "…", \"token\":\"…\".
	{regexp.MustCompile(`(?i)(\\?"` + secretNames + `\\?"\s*:\s*\\?")(?:[^"\\]|\\[^"])*`), "${1}" + redacted, nameWords},
	// Short JSON keys that hold secrets only as whole keys ("pass",
	// "pwd"; Docker's config.json "auth"): matched quoted, so prose
	// ("--- PASS:", "author") is left alone.
	{regexp.MustCompile(`(?i)(\\?"(?:pass|pwd|auth)\\?"\s*:\s*\\?")(?:[^"\\]|\\[^"])*`), "${1}" + redacted, []string{`pass"`, `pass\"`, `pwd"`, `pwd\"`, `auth"`, `auth\"`}},
	// URL user info: https://user:pass@host.
	{regexp.MustCompile(`(?i)([a-z][a-z0-9+.\-]*://)[^/\s:@]*:[^/\s@]*@`), "${1}" + redacted + "@", []string{"://"}},
	// Query parameters that carry keys: ?key=…&token=….
	{regexp.MustCompile(`(?i)([?&](?:key|sig|signature|` + secretNames + `)=)[^&\s"'#\[][^&\s"'#]*`), "${1}" + redacted, append([]string{"sig"}, nameWords...)},
	// Header or form style "Name: value" / "name=value", with an optional
	// auth scheme word before the value (Authorization: Basic xyz).
	{regexp.MustCompile(`(?i)(\b(?:x-api-key|api-key|x-goog-api-key|proxy-authorization|authorization|set-cookie|cookie|` +
		secretNames + `)\s*[:=]\s*)(?:(?:bearer|basic|token|digest)\s+)?[^\s,;&"'}\]\[][^\s,;&"'}\]]*`), "${1}" + redacted, nameWords},
	// Bearer tokens anywhere.
	{regexp.MustCompile(`(?i)\b(bearer\s+)[a-z0-9\-._~+/]+=*`), "${1}" + redacted, []string{"bearer"}},
	// Well-known key formats: OpenAI/Anthropic sk-…, Google AIza…, GitHub,
	// Slack and AWS access keys.
	{regexp.MustCompile(`\b(?:sk|rk|pk)-[A-Za-z0-9_\-]{6,}`), redacted, []string{"sk-", "rk-", "pk-"}},
	{regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{30,}`), redacted, []string{"aiza"}},
	{regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}`), redacted, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
	{regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9\-]{10,}`), redacted, []string{"xox"}},
	{regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), redacted, []string{"akia", "asia"}},
}

// rule is one of redactions.
type rule struct {
	re    *regexp.Regexp
	repl  string
	needs []string
}

// MinLength is the shortest value Register accepts: shorter strings
// would scrub ordinary words out of messages and protect nothing.
const MinLength = 6

var known struct {
	sync.RWMutex
	values  []string
	matcher *matcher
}

// Register records secret values (API keys, tokens, header values) so
// that Redact replaces them wherever they appear, whatever their shape,
// and in their encoded forms too: base64 (standard and URL alphabets,
// padded or not, also inside a longer base64 text such as a Basic
// authorization header or `base64 .env`), hexadecimal and every common
// URL encoding (Go, Python's quote and quote_plus, JavaScript's
// encodeURIComponent and encodeURI, upper- or lower-case hex), each also
// when wrapped over lines or split by spaces (see forms and spaceAt).
// Values shorter than MinLength are ignored. Safe for concurrent use;
// registrations last for the life of the process.
func Register(values ...string) {
	known.Lock()
	defer known.Unlock()
	changed := false
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < MinLength || slices.Contains(known.values, v) {
			continue
		}
		known.values = append(known.values, v)
		changed = true
	}
	if !changed {
		return
	}
	known.matcher = newMatcher(known.values)
}

// Redact removes secrets from s: every registered value, then bearer
// tokens, sk-… keys, x-api-key values, "api_key"/"token"/"password" JSON
// values and credentials in URLs. It is a best effort over free text, not
// a parser: the patterns prefer hiding too much to hiding too little.
func Redact(s string) string {
	s = redactKnown(s)
	lower := strings.ToLower(s)
	// Most rules need the same words: look for each once (found holds
	// 0 for not yet, 1 for present, 2 for absent), again only after a
	// rule changed the text.
	var found [len(triggerWords)]uint8
	for i, r := range redactions {
		if !triggered(lower, ruleWords[i], &found) {
			continue
		}
		if t := r.re.ReplaceAllString(s, r.repl); t != s {
			s, lower, found = t, strings.ToLower(t), [len(triggerWords)]uint8{}
		}
	}
	return s
}

// triggerWords are the distinct words of every rule's needs (30 today;
// init panics past the array), and ruleWords each rule's needs as
// indexes into it.
var (
	triggerWords [48]string
	ruleWords    = func() [][]int {
		n := 0
		out := make([][]int, len(redactions))
		for i, r := range redactions {
			for _, w := range r.needs {
				k := slices.Index(triggerWords[:n], w)
				if k < 0 {
					k, triggerWords[n] = n, w
					n++
				}
				out[i] = append(out[i], k)
			}
		}
		return out
	}()
)

// triggered reports whether lower holds one of the words (indexes into
// triggerWords), remembering in found what it looked for.
func triggered(lower string, words []int, found *[len(triggerWords)]uint8) bool {
	for _, k := range words {
		if found[k] == 0 {
			found[k] = 2
			if strings.Contains(lower, triggerWords[k]) {
				found[k] = 1
			}
		}
		if found[k] == 1 {
			return true
		}
	}
	return false
}

// RedactKnown replaces only the registered values (in all their forms),
// not the patterns: it suits text whose syntax a pattern could disturb,
// such as encoded JSON, and is cheap (about a nanosecond per byte).
func RedactKnown(s string) string { return redactKnown(s) }

func redactKnown(s string) string {
	known.RLock()
	m := known.matcher
	known.RUnlock()
	if m == nil {
		return s
	}
	return m.replace(s, redacted)
}

// redactSlow applies every pattern unconditionally; tests check that
// Redact's shortcut never changes the result.
func redactSlow(s string) string {
	for _, r := range redactions {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	return s
}
