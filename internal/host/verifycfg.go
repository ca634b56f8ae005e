package host

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
)

// Defaults and bounds of the [verify] table.
const (
	defaultVerifyTimeout = 10 * time.Minute
	MaxVerifyAttempts    = 20
	maxVerifyChecks      = 32
)

// When the verification gate runs ([verify] on).
const (
	verifyOnChanges = "changes"
	verifyOnAlways  = "always"
)

// verifySection is the [verify] table of a configuration file:
//
//	[verify]
//	commands = [["go", "test", "./..."], ["go", "vet", "./..."], "make lint"]
//	timeout = "10m"        # per check (default 10m)
//	on = "changes"         # changes (default) | always
//	max_attempts = 3       # failed verifications before the run fails
//
// A command is an argv array, run as those words exactly, or a string, run
// as a bash script (bash -c), for pipes and &&. Either way it runs in the
// workspace under the sandbox, like run_command, with the session's
// network. The user's own checks are not put to the policy (they are the
// user's commands); a project layer's come with the repository: they run
// only once trusted (rein hooks trust), and each is decided by the policy
// like run_command — a hard denial is refused, an Ask goes to the
// approver (under --approve never: refused).
type verifySection struct {
	Commands    []any  `toml:"commands"`
	Timeout     string `toml:"timeout"`
	On          string `toml:"on"`
	MaxAttempts *int   `toml:"max_attempts"`
}

// VerifyCheck is one configured check.
type VerifyCheck struct {
	// Name is what is shown: the command line.
	Name string
	// Script is what bash -c runs.
	Script  string
	Timeout time.Duration
	// Source names the project file that added the check; "" for the
	// user's own checks.
	Source string
}

// VerifySettings is the merged [verify] configuration.
type VerifySettings struct {
	Checks      []VerifyCheck
	Always      bool
	MaxAttempts int
	Warnings    []string
}

// LoadVerify merges the [verify] layers. The user's layers (the user
// file or --config) set the checks, later replacing earlier; a project
// layer comes with the repository, so it may add checks but never remove
// the user's, may ask for on = "always" but not relax it, and may lower
// max_attempts but not raise it. Each layer's timeout applies to that
// layer's own checks.
func LoadVerify(cfg *config.Config) (VerifySettings, error) {
	out := VerifySettings{MaxAttempts: agent.DefaultMaxVerifyAttempts}
	var user, project []VerifyCheck
	for _, sec := range cfg.Sections("verify") {
		var t verifySection
		if err := sec.Decode(&t); err != nil {
			return VerifySettings{}, err
		}
		timeout := defaultVerifyTimeout
		if t.Timeout != "" {
			d, err := time.ParseDuration(t.Timeout)
			if err != nil || d < time.Second {
				return VerifySettings{}, sec.Errorf([]string{"timeout"}, "verify.timeout %q must be a duration of at least 1s, like \"90s\" or \"10m\"", t.Timeout)
			}
			timeout = d
		}
		checks, err := parseChecks(sec, t.Commands, timeout)
		if err != nil {
			return VerifySettings{}, err
		}
		switch t.On {
		case "", verifyOnChanges:
		case verifyOnAlways:
			out.Always = true
		default:
			return VerifySettings{}, sec.Errorf([]string{"on"}, "verify.on %q must be %q or %q", t.On, verifyOnChanges, verifyOnAlways)
		}
		isProject := sec.Source.Layer == config.LayerProject
		if t.MaxAttempts != nil {
			n := *t.MaxAttempts
			if n < 1 || n > MaxVerifyAttempts {
				return VerifySettings{}, sec.Errorf([]string{"max_attempts"}, "verify.max_attempts must be between 1 and %d (got %d)", MaxVerifyAttempts, n)
			}
			if isProject && n > out.MaxAttempts {
				out.Warnings = append(out.Warnings, fmt.Sprintf("%s: verify.max_attempts = %d ignored: a project can only lower it (it is %d)", sec.Source.Name, n, out.MaxAttempts))
			} else {
				out.MaxAttempts = n
			}
		}
		if isProject {
			for i := range checks {
				checks[i].Source = sec.Source.Name
			}
			project = append(project, checks...)
			continue
		}
		if t.Commands != nil {
			user = checks
		}
	}
	out.Checks = user
	for _, c := range project {
		if !slices.ContainsFunc(out.Checks, func(u VerifyCheck) bool { return u.Script == c.Script }) {
			out.Checks = append(out.Checks, c)
		}
	}
	if len(out.Checks) > maxVerifyChecks {
		return VerifySettings{}, fmt.Errorf("config: [verify] has %d checks; at most %d are allowed", len(out.Checks), maxVerifyChecks)
	}
	return out, nil
}

// parseChecks reads a commands array: each entry an argv array of strings
// or a bash script string.
func parseChecks(sec config.RawSection, cmds []any, timeout time.Duration) ([]VerifyCheck, error) {
	var out []VerifyCheck
	for i, c := range cmds {
		switch c := c.(type) {
		case string:
			if strings.TrimSpace(c) == "" {
				return nil, sec.Errorf([]string{"commands"}, "verify.commands[%d] is empty; give a command", i)
			}
			out = append(out, VerifyCheck{Name: c, Script: c, Timeout: timeout})
		case []any:
			argv := make([]string, 0, len(c))
			for _, w := range c {
				s, ok := w.(string)
				if !ok {
					return nil, sec.Errorf([]string{"commands"}, "verify.commands[%d] must hold only strings, like [\"go\", \"test\", \"./...\"]", i)
				}
				argv = append(argv, s)
			}
			if len(argv) == 0 || argv[0] == "" {
				return nil, sec.Errorf([]string{"commands"}, "verify.commands[%d] is empty; give a command, like [\"go\", \"test\", \"./...\"]", i)
			}
			line := ShellJoin(argv)
			out = append(out, VerifyCheck{Name: line, Script: line, Timeout: timeout})
		default:
			return nil, sec.Errorf([]string{"commands"}, "verify.commands[%d] must be an argv array like [\"go\", \"test\", \"./...\"] or a command string", i)
		}
	}
	return out, nil
}

// ShellJoin quotes argv for bash so that it runs as exactly these words:
// words of safe characters stay bare ("go test ./..."), others are single
// quoted.
func ShellJoin(argv []string) string {
	parts := make([]string, len(argv))
	for i, w := range argv {
		parts[i] = shellQuote(w)
		if i == 0 && strings.Contains(w, "=") {
			// Bare, bash would take NAME=value as an assignment.
			parts[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(parts, " ")
}

func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%^") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// MarkUnavailable marks a check result that says the check cannot run at
// all, so the gate ends the run verification_unavailable instead of
// asking the model to fix it: bash's 127 (command not found) and 126
// (found but not executable), and a timeout on the first attempt — the
// check never finished even before the model's latest change, so its
// timeout (or the check) is wrong, not the answer. A later attempt's
// timeout stays a failure: the model's change may have made it hang.
func MarkUnavailable(res agent.CheckResult, attempt int) agent.CheckResult {
	if res.Unavailable || res.Passed() {
		return res
	}
	switch {
	case res.Err == "" && res.ExitCode == 127:
		res.Unavailable, res.Err = true, "command not found (exit 127)"
	case res.Err == "" && res.ExitCode == 126:
		res.Unavailable, res.Err = true, "command not executable (exit 126)"
	case attempt == 1 && strings.HasPrefix(res.Err, "timed out after "):
		res.Unavailable, res.Err = true, res.Err+" on the first attempt; raise verify.timeout or fix the check"
	}
	return res
}
