// Package adversarial is the corpus of attack commands shared by rein's
// adversarial suites: the policy-level one (policy/adversarial_test.go)
// and the end-to-end one through `rein run` (internal/cli). Only tests
// import it. See README.md for the file formats.
package adversarial

import (
	_ "embed"
	"fmt"
	"strings"
)

var (
	//go:embed dynamic.txt
	dynamicText string
	//go:embed meaning.txt
	meaningText string
	//go:embed payloads.txt
	payloadsText string
)

// Dynamic returns the class 1 templates: fmt formats with one %s, where
// bash evaluates the payload as code or arithmetic.
func Dynamic() []string { return lines(dynamicText) }

// Payloads returns the commands the policy suite hides in the templates.
func Payloads() []string { return lines(payloadsText) }

// Meaning is a class 2 case: a command whose meaning, not its spelling,
// must be decided.
type Meaning struct {
	Cmd string
	// Hard says a hard denial is required; otherwise at least an ask.
	Hard bool
}

// Meanings returns the class 2 cases for a workspace named wsName in the
// directory parent.
func Meanings(wsName, parent string) []Meaning {
	var out []Meaning
	for _, l := range lines(meaningText) {
		kind, cmd, ok := strings.Cut(l, "\t")
		if !ok || kind != "hard" && kind != "ask" {
			panic(fmt.Sprintf("adversarial: meaning.txt: bad line %q (want hard|ask, a tab, the command)", l))
		}
		cmd = strings.NewReplacer("@WSNAME@", wsName, "@PARENT@", parent).Replace(cmd)
		out = append(out, Meaning{Cmd: cmd, Hard: kind == "hard"})
	}
	return out
}

// lines are the non-empty lines of s.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}
