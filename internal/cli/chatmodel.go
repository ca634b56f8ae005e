package cli

import (
	"fmt"
	"strings"

	"github.com/reinharness/rein/internal/termsafe"
)

// maxModelName bounds a /model argument: model names are short; a long
// line is a paste gone wrong, not a model.
const maxModelName = 200

// currentModel is the model the next turn uses: the one /model chose,
// else the configured one.
func (s *chatSession) currentModel() string {
	if s.model != "" {
		return s.model
	}
	return modelName(s.cfg)
}

// modelCommand is /model [NAME]: without a name it shows the model,
// with one it switches the next turns to it (agent.RunOptions.Model). A
// custom command's own model: still wins for its turn. The switch is
// not checked against the server — most servers do not list their
// models — so a wrong name shows as the next turn's error.
func (s *chatSession) modelCommand(arg string) {
	w := s.app.Stderr
	switch {
	case arg == "":
		fmt.Fprintf(w, "model %s at %s\n", termsafe.Line(s.currentModel()), s.ex.endpoint)
		return
	case len(arg) > maxModelName || strings.ContainsAny(arg, " \t\r\n") || termsafe.Line(arg) != arg:
		fmt.Fprintln(w, "rein: /model takes one model name, as the server knows it (no spaces or control characters)")
		return
	case arg == s.cfg.Model.Model:
		s.model = ""
	default:
		s.model = arg
	}
	fmt.Fprintf(w, "(model %s from the next message on)\n", termsafe.Line(s.currentModel()))
	s.pushStatus()
}
