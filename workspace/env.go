package workspace

import (
	"net/url"
	"slices"
	"strings"

	"github.com/reinharness/rein/internal/secret"
)

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
// like secrets, by class (see secretName): names with a credential word
// (TOKEN, SECRET, PASSWORD, CREDENTIAL, COOKIE, SESSION, WEBHOOK, JWT,
// PRIVATE, a word starting PASS or holding AUTH, the words KEY, PAT,
// PWD, PW and DSN), cloud and provider credential families (AWS_*,
// OPENAI_*, …), known credential variables (DATABASE_URL, …), any
// variable whose value is a URL carrying a password or that the
// redactor would change (a bearer token, an sk-… key, a registered
// secret), and the agent sockets that act with the user's keys
// (SSH_AUTH_SOCK, GPG_AGENT_INFO, TMUX, DBUS_SESSION_BUS_ADDRESS). Names
// in allow are kept regardless, as are the basics every command needs
// (PATH, HOME, LANG, TERM, …) and known harmless names that match a
// credential word (KEYBOARD*, XDG_SESSION_*, TERM_SESSION_ID,
// TOKENIZERS_PARALLELISM, GIT_AUTHOR_*; see harmlessName). Variables that
// steer the shell itself (exported functions, SHELLOPTS, PS4, OLDPWD,
// LD_PRELOAD, …; see shellControlNames) are dropped too. Only the last
// entry of a duplicated name is kept.
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
	if slices.Contains(secretNames, up) || slices.Contains(capabilityNames, up) {
		return false
	}
	for _, p := range secretNamePrefixes {
		if strings.HasPrefix(up, p) {
			return false
		}
	}
	if !harmlessName(up) && secretName(up) {
		return false
	}
	return !secretValue(value)
}

// secretValue reports a value that is a credential whatever its name: a
// URL carrying a password, or text the redactor would change.
func secretValue(v string) bool {
	return hasURLPassword(v) || secret.Redact(v) != v
}

// hasURLPassword reports a value like scheme://user:password@host.
func hasURLPassword(v string) bool {
	return urlPassword(v) != ""
}

// urlPassword returns the password of a value like
// scheme://user:password@host, "" when there is none.
func urlPassword(v string) string {
	if !strings.Contains(v, "://") || !strings.Contains(v, "@") {
		return ""
	}
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || u.User == nil {
		return ""
	}
	p, _ := u.User.Password()
	return p
}

// CredentialEnv returns the values of env's variables ("NAME=value") that
// hold credentials, for redaction: those ScrubEnv drops for their name's
// class (TOKEN, SECRET, PASSWORD, DB_PASS, GITLAB_PAT, CI_JOB_JWT,
// DISCORD_WEBHOOK_URL, …), known credential variables (DATABASE_URL,
// MYSQL_PWD, …) and any value ScrubEnv drops for what it is (a URL
// carrying a password, whose password is returned on its own too; a
// bearer token). Variables dropped only for their family prefix
// (AWS_REGION, REIN_MODEL, KUBECONFIG) are plain settings and not
// returned, nor are paths to sockets and files (SSH_AUTH_SOCK,
// *_FILE, *_PATH, *_DIR), nor values shorter than minLen, which would
// redact ordinary words.
func CredentialEnv(env []string, minLen int) []string {
	var out []string
	add := func(v string) {
		if len(v) >= minLen && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		value = strings.TrimSpace(value)
		if !ok || name == "" || !credentialVar(name, value) {
			continue
		}
		add(value)
		if p := urlPassword(value); p != "" {
			add(p)
		}
	}
	return out
}

func credentialVar(name, value string) bool {
	if secretValue(value) {
		return true
	}
	up := strings.ToUpper(name)
	if slices.Contains(safeNames, up) || slices.Contains(credentialNameExceptions, up) || slices.Contains(capabilityNames, up) {
		return false
	}
	for _, suffix := range []string{"_SOCK", "_FILE", "_PATH", "_DIR", "_INFO"} {
		if strings.HasSuffix(up, suffix) {
			return false
		}
	}
	return slices.Contains(secretNames, up) || !harmlessName(up) && secretName(up)
}
