package cli_test

import (
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
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
		{[]string{"hello"}, noTerminalHint},
		{[]string{"list"}, noTerminalHint},
		{[]string{"-p", "--command", "nosuch", "rnu"}, `no custom commands are defined`},
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

// TestChatSlashDidYouMean: a mistyped slash command, alone or with
// arguments, is refused with the closest command and never reaches the
// model; a line that merely starts with a path is a message.
func TestChatSlashDidYouMean(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("it is there")))
	e := newEnv(t)
	res := e.invoke("/hlep\n/mdoel qwen\n/Usgae\n/bogus\n/etc/hosts is missing, why?\n").run(t, "chat", "-e", srv.URL)
	for _, want := range []string{
		"rein: unknown command /hlep; /help lists the commands (did you mean /help?)",
		"rein: unknown command /mdoel; /help lists the commands (did you mean /model?)",
		"rein: unknown command /Usgae; /help lists the commands (did you mean /usage?)",
		"rein: unknown command /bogus; /help lists the commands\n",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	if got := userMessages(t, reqs[0].Body); len(got) != 1 || got[0] != "/etc/hosts is missing, why?" {
		t.Errorf("user messages = %q", got)
	}
}
