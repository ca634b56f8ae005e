package cli_test

import (
	"strings"
	"testing"
)

// noTerminalHint is what bare rein (or rein PROMPT) says without a
// terminal, instead of waiting on stdin.
const noTerminalHint = `rein: the chat needs a terminal on stdin and stdout; headless, run rein -p "PROMPT" (the same as rein run "PROMPT"), or pipe messages to rein chat; rein --help lists the commands`

// TestEntryMistypedCommands: a lone word close to a command is refused
// with the suggestion (not sent to the model), a word far from every
// command and one after "--" are prompts (here refused only for want of
// a terminal), and a real subcommand wins.
func TestEntryMistypedCommands(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"sesions"}, `did you mean "sessions"?`},
		{[]string{"Sesions"}, `did you mean "sessions"?`},
		{[]string{"sessons"}, `did you mean "sessions"?`},
		{[]string{"chta"}, `did you mean "chat"?`},
		{[]string{"rnu"}, `did you mean "run"?`},
		{[]string{"hlep"}, `did you mean "help"?`},
		{[]string{"verison"}, `did you mean "version"?`},
		{[]string{"permisions"}, `did you mean "permissions"?`},
		{[]string{"skils"}, `did you mean "skills"?`},
		{[]string{"-p", "sesions"}, `did you mean "sessions"?`},
		{[]string{"-m", "qwen", "replya"}, `did you mean "replay"?`},
		{[]string{"--", "sesions"}, noTerminalHint},
		{[]string{"sesions please"}, noTerminalHint},
		{[]string{"refactor"}, noTerminalHint},
		{[]string{"do"}, noTerminalHint},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, "_"), func(t *testing.T) {
			res := newEnv(t).run(t, tt.args...)
			if res.code != 2 || !strings.Contains(res.stderr, tt.want) {
				t.Errorf("rein %q: exit %d, stderr %q; want exit 2 and %q", tt.args, res.code, res.stderr, tt.want)
			}
		})
	}
	res := newEnv(t).run(t, "version")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "rein ") {
		t.Errorf("rein version: exit %d stdout %q", res.code, res.stdout)
	}
}
