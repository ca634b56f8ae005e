package tui

import (
	"io"

	tea "charm.land/bubbletea/v2"
)

// Program runs a Model on a terminal.
type Program struct {
	p *tea.Program
	m *Model
}

// NewProgram returns a program drawing on out and reading keys from in,
// inline (the terminal's scrollback is kept). env is the environment the
// color profile is detected from (NO_COLOR, TERM). Signals are left to
// the caller: Ctrl-C arrives as a key, SIGTERM as the caller handles it.
func NewProgram(cfg Config, in io.Reader, out io.Writer, env []string) *Program {
	m := New(cfg)
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out), tea.WithEnvironment(env), tea.WithoutSignalHandler())
	return &Program{p: p, m: m}
}

// Run runs the program until Quit; it restores the terminal before it
// returns.
func (p *Program) Run() error {
	_, err := p.p.Run()
	return err
}

// Send delivers a message to the UI; safe from any goroutine. It blocks
// until the UI takes it, or returns at once once the program ended.
func (p *Program) Send(msg tea.Msg) { p.p.Send(msg) }

// Quit ends the program.
func (p *Program) Quit() { p.p.Quit() }
