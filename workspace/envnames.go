package workspace

import "strings"

// secretWords mark a variable name as secret when they appear anywhere
// in it (upper case). The lists err on the side of dropping: a command
// missing a harmless variable is a smaller problem than a model reading
// a credential.
var secretWords = []string{
	"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "COOKIE",
	"SESSION", "PRIVATE", "WEBHOOK", "JWT", "APIKEY", "API_KEY",
}

// secretSegments mark a name as secret when one of its "_"-separated
// words is one of them: DB_PASS's PASS is a word, PASSAGE_DIR's is not
// checked here (see secretName for the word rules).
var secretSegments = []string{"KEY", "KEYS", "PAT", "PWD", "PW", "DSN", "PIN"}

// secretName reports whether a variable name (upper case) marks a
// credential: it holds one of secretWords, or one of its words is in
// secretSegments, starts with PASS (DB_PASS, SMTP_PASSWORD, PASSCODE),
// ends with KEY (APIKEY, SSHKEY) or holds AUTH (AUTH, OAUTH,
// AUTHORIZATION, NPM_CONFIG__AUTH) but not as AUTHOR (GIT_AUTHOR_NAME).
func secretName(up string) bool {
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	for _, seg := range strings.Split(up, "_") {
		switch {
		case seg == "":
		case strings.HasPrefix(seg, "PASS"), strings.HasSuffix(seg, "KEY"):
			return true
		case strings.Contains(seg, "AUTH") && !authorWord(seg):
			return true
		}
		for _, s := range secretSegments {
			if seg == s {
				return true
			}
		}
	}
	return false
}

// authorWord reports a word that holds AUTH only as AUTHOR (AUTHOR,
// AUTHORS, COAUTHOR), not AUTHORIZATION or AUTHORITY.
func authorWord(seg string) bool {
	i := strings.Index(seg, "AUTH")
	rest := seg[i:]
	return strings.HasPrefix(rest, "AUTHOR") && !strings.HasPrefix(rest, "AUTHORI")
}

// harmlessPrefixes and harmlessNames are names (upper case) that match a
// credential word yet hold none: keyboard layouts, desktop sessions
// (XDG_SESSION_ID is a number, not a login token), a terminal's session
// id, a tokenizer setting, Go's private module patterns. They are kept in
// the sandbox and not registered as secrets; their values are still
// checked (secretValue).
var (
	harmlessPrefixes = []string{"KEYBOARD", "XKB_", "XDG_SESSION_", "GIT_AUTHOR_", "GIT_COMMITTER_"}
	harmlessNames    = []string{"TERM_SESSION_ID", "DESKTOP_SESSION", "GDMSESSION", "TOKENIZERS_PARALLELISM", "XDG_CURRENT_DESKTOP", "GOPRIVATE"}
)

func harmlessName(up string) bool {
	for _, p := range harmlessPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	for _, n := range harmlessNames {
		if up == n {
			return true
		}
	}
	return false
}

// secretNamePrefixes drop whole families of cloud and CI credentials whose
// names do not always contain a telltale word (AWS_ACCESS_KEY_ID does,
// AWS_PROFILE points at them).
var secretNamePrefixes = []string{
	"AWS_", "AZURE_", "GOOGLE_", "GCLOUD_", "GCP_", "CLOUDSDK_", "DIGITALOCEAN_",
	"HEROKU_", "VAULT_", "NPM_CONFIG_", "DOCKER_", "KUBE", "OP_", "REIN_",
	"OPENAI_", "ANTHROPIC_", "GEMINI_", "MISTRAL_", "GROQ_", "HF_", "HUGGING",
}

// secretNames are exact names that matter but match no class above.
var secretNames = []string{
	"NETRC", "PGPASS", "PGPASSFILE", "MYSQL_PWD", "DATABASE_URL", "REDIS_URL",
	"MONGODB_URI", "MONGO_URL", "AMQP_URL", "CELERY_BROKER_URL", "KRB5CCNAME",
}

// capabilityNames point at agents that act with the user's keys or run
// commands outside the sandbox (ssh-agent and gpg-agent sign with the
// user's keys; a tmux or D-Bus session socket runs commands unconfined).
// They are dropped from the sandbox but are not secrets to redact: their
// values are paths.
var capabilityNames = []string{"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "TMUX", "TMUX_PANE", "STY", "DBUS_SESSION_BUS_ADDRESS"}

// credentialNameExceptions hold ScrubEnv's exact names whose values point
// at credentials (files, caches) rather than being one.
var credentialNameExceptions = []string{"KRB5CCNAME", "PGPASSFILE", "NETRC", "XAUTHORITY"}

// safeNames are never dropped: commands need them and they carry no
// secrets by themselves.
var safeNames = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM",
	"TZ", "PWD", "TMPDIR", "COLORTERM", "NO_COLOR", "EDITOR", "VISUAL",
	"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY",
	"CARGO_HOME", "RUSTUP_HOME", "NODE_PATH", "PYTHONPATH", "VIRTUAL_ENV",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
}
