package workspace

import (
	"net/url"
	"slices"
	"strings"
)

// secretNameParts mark a variable name as secret when they appear anywhere
// in it (case-insensitive). The list errs on the side of dropping: a
// command missing a harmless variable is a smaller problem than a model
// reading a credential.
var secretNameParts = []string{
	"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL",
	"AUTH", "COOKIE", "SESSION", "PRIVATE",
}

// secretNamePrefixes drop whole families of cloud and CI credentials whose
// names do not always contain a telltale word (AWS_ACCESS_KEY_ID does,
// AWS_PROFILE points at them).
var secretNamePrefixes = []string{
	"AWS_", "AZURE_", "GOOGLE_", "GCLOUD_", "GCP_", "CLOUDSDK_", "DIGITALOCEAN_",
	"HEROKU_", "VAULT_", "NPM_CONFIG_", "DOCKER_", "KUBE", "OP_", "REIN_",
	"OPENAI_", "ANTHROPIC_", "GEMINI_", "MISTRAL_", "GROQ_", "HF_", "HUGGING",
}

// secretNames are exact names that matter but match no pattern above.
var secretNames = []string{
	"GH_ENTERPRISE_TOKEN", "NETRC", "PGPASS", "PGPASSFILE", "MYSQL_PWD",
	"DATABASE_URL", "REDIS_URL", "MONGODB_URI", "SENTRY_DSN", "SLACK_WEBHOOK_URL",
	"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KRB5CCNAME",
}

// safeNames are never dropped: commands need them and they carry no
// secrets by themselves.
var safeNames = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM",
	"TZ", "PWD", "TMPDIR", "COLORTERM", "NO_COLOR", "EDITOR", "VISUAL",
	"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY",
	"CARGO_HOME", "RUSTUP_HOME", "NODE_PATH", "PYTHONPATH", "VIRTUAL_ENV",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
}

// shellControlNames change what bash runs or where, rather than carrying
// data: an exported function (BASH_FUNC_ls%%) replaces the program a
// command names, SHELLOPTS/BASHOPTS switch on xtrace or extglob, PS4 is
// expanded (command substitutions included) under xtrace, OLDPWD is where
// `cd -` goes, IFS and GLOBIGNORE change how words split and globs
// expand, and the loader variables inject code into every program. The
// policy decides a command as it is written, so none of them may reach
// it from rein's environment.
var shellControlNames = []string{
	"OLDPWD", "SHELLOPTS", "BASHOPTS", "PS4", "IFS", "GLOBIGNORE", "BASH_XTRACEFD",
	"POSIXLY_CORRECT", "PROMPT_COMMAND", "BASH_ENV", "ENV", "CDPATH", "BASH_COMPAT",
	"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT",
}

// isShellControl reports a variable in shellControlNames or an exported
// bash function.
func isShellControl(name string) bool {
	return strings.HasPrefix(name, "BASH_FUNC_") || slices.Contains(shellControlNames, name)
}

// ScrubEnv returns env ("NAME=value" entries) without variables that look
// like secrets: names containing KEY, TOKEN, SECRET, PASSWORD, AUTH,
// COOKIE, SESSION and similar words, cloud and provider credential
// families (AWS_*, OPENAI_*, …), known credential variables, and any
// variable whose value is a URL carrying a password. Names in allow are
// kept regardless, as are the basics every command needs (PATH, HOME,
// LANG, TERM, …). Variables that steer the shell itself (exported
// functions, SHELLOPTS, PS4, OLDPWD, LD_PRELOAD, …; see
// shellControlNames) are dropped too. Only the last entry of a duplicated
// name is kept.
func ScrubEnv(env []string, allow []string) []string {
	out := make([]string, 0, len(env))
	seen := map[string]int{}
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if !keepVar(name, value, allow) {
			continue
		}
		if i, dup := seen[name]; dup {
			out[i] = kv
			continue
		}
		seen[name] = len(out)
		out = append(out, kv)
	}
	return out
}

func keepVar(name, value string, allow []string) bool {
	if slices.Contains(allow, name) {
		return true
	}
	if isShellControl(name) {
		return false
	}
	up := strings.ToUpper(name)
	if slices.Contains(safeNames, up) {
		return true
	}
	if slices.Contains(secretNames, up) {
		return false
	}
	for _, p := range secretNamePrefixes {
		if strings.HasPrefix(up, p) {
			return false
		}
	}
	for _, p := range secretNameParts {
		if strings.Contains(up, p) {
			return false
		}
	}
	return !hasURLPassword(value)
}

// hasURLPassword reports a value like scheme://user:password@host.
func hasURLPassword(v string) bool {
	if !strings.Contains(v, "://") || !strings.Contains(v, "@") {
		return false
	}
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || u.User == nil {
		return false
	}
	_, has := u.User.Password()
	return has
}

// credentialNameExceptions hold ScrubEnv's exact names whose values point
// at credentials (sockets, files) rather than being one.
var credentialNameExceptions = []string{"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KRB5CCNAME", "PGPASSFILE", "NETRC", "XAUTHORITY"}

// CredentialEnv returns the values of env's variables ("NAME=value") that
// hold credentials, for redaction: those ScrubEnv drops for a telltale
// word in their name (KEY, TOKEN, SECRET, PASSWORD, AUTH, …), known
// credential variables (DATABASE_URL, MYSQL_PWD, …) and any value that is
// a URL carrying a password. Variables dropped only for their family
// prefix (AWS_REGION, REIN_MODEL, KUBECONFIG) are plain settings and not
// returned, nor are paths to sockets and files (SSH_AUTH_SOCK,
// *_FILE, *_PATH, *_DIR), nor values shorter than minLen, which would
// redact ordinary words.
func CredentialEnv(env []string, minLen int) []string {
	var out []string
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		value = strings.TrimSpace(value)
		if !ok || name == "" || len(value) < minLen || !credentialVar(name, value) {
			continue
		}
		if !slices.Contains(out, value) {
			out = append(out, value)
		}
	}
	return out
}

func credentialVar(name, value string) bool {
	if hasURLPassword(value) {
		return true
	}
	up := strings.ToUpper(name)
	if slices.Contains(safeNames, up) || slices.Contains(credentialNameExceptions, up) {
		return false
	}
	for _, suffix := range []string{"_SOCK", "_FILE", "_PATH", "_DIR", "_INFO"} {
		if strings.HasSuffix(up, suffix) {
			return false
		}
	}
	if slices.Contains(secretNames, up) {
		return true
	}
	for _, p := range secretNameParts {
		if strings.Contains(up, p) {
			return true
		}
	}
	return false
}
