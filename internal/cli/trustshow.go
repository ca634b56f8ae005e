package cli

import (
	"maps"
	"slices"
	"strings"

	"github.com/reinharness/rein/internal/secret"
	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/workspace"
)

// codeEnvNames are environment variables whose value makes a program run
// other code than it would (a preloaded library, a module required at
// start, a start-up file, a search path): a trust prompt shows them in
// full and says so, since hiding one would hide what actually runs.
var codeEnvNames = []string{
	"NODE_OPTIONS", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "PYTHONPATH", "PYTHONSTARTUP",
	"PYTHONHOME", "PYTHONUSERBASE", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB",
	"BASH_ENV", "ENV", "ZDOTDIR", "PROMPT_COMMAND", "PS4", "SHELLOPTS", "BASHOPTS",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH", "GOFLAGS",
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_EXEC_PATH", "GIT_SSH_COMMAND",
	"EDITOR", "VISUAL", "PAGER", "NODE_PATH", "DENO_DIR", "GEM_PATH", "GEM_HOME",
}

// codeEnvPrefixes mark families that run code by name.
var codeEnvPrefixes = []string{"BASH_FUNC_", "DYLD_", "LD_", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "npm_config_", "NPM_CONFIG_"}

// runsCode reports whether the variable name can make a program run
// other code (see codeEnvNames); every PATH-like name (…PATH) counts.
func runsCode(name string) bool {
	if slices.Contains(codeEnvNames, name) || strings.HasSuffix(name, "PATH") {
		return true
	}
	for _, p := range codeEnvPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// isCredential reports whether name=value looks like a credential: a
// name the sandbox's scrubbing drops as secret (KEY, TOKEN, AWS_*, …) or
// a value the redactor recognises. A variable that can run code is never
// treated as one: the user must see it.
func isCredential(name, value string) bool {
	if runsCode(name) {
		return false
	}
	return len(workspace.ScrubEnv([]string{name + "=" + value}, nil)) == 0 || secret.Redact(value) != value
}

// describeEnv shows a server's environment for review: every value that
// is not a credential, escaped and in full; credentials as [redacted];
// variables that can run code flagged.
func describeEnv(env mcp.Secrets) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		v := env[k]
		switch {
		case isCredential(k, v):
			parts = append(parts, termText(k, 200)+"=[redacted]")
		case runsCode(k):
			parts = append(parts, termText(k, 200)+"="+shellWord(termText(v, 1<<14))+" (CAN RUN CODE)")
		default:
			parts = append(parts, termText(k, 200)+"="+shellWord(termText(v, 1<<14)))
		}
	}
	return strings.Join(parts, " ")
}

// shellWord quotes w for display when it holds spaces or quotes.
func shellWord(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t'\"$`\\|&;<>()*?[]{}~") {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// codeEnvWarning names the variables of env that can run code, for a
// line of its own under the server ("" when none).
func codeEnvWarning(env mcp.Secrets) string {
	var names []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if runsCode(k) {
			names = append(names, termText(k, 80))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "  warning: " + strings.Join(names, ", ") + " can make the server run other code than its command: check the values above\n"
}
