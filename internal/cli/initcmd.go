package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/reinharness/rein/history"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
)

// initSurvey is the part of /init's message common to every case: what
// an instruction file should hold, so the model surveys before it writes.
// The write is an ordinary write_file call, decided by the policy and
// shown for approval with its diff.
const initSurvey = `First look around: the top-level layout, the build and dependency files (go.mod, package.json, Cargo.toml, Makefile, …), the README, CI configuration and any existing AGENTS.md or CLAUDE.md. Read what you need; do not guess.

The file should be short (under about 150 lines) and hold what an agent cannot see at a glance:
- what the project is, in two or three sentences;
- how to build, run the tests (a single package or test too) and lint, as exact commands;
- the layout: the main directories and what lives where;
- conventions: code style, naming, error handling, how tests are written, commit messages;
- pitfalls: generated files not to edit, slow or flaky tests, required services or environment.`

// initFile is what /init saw of one instruction file at the root.
type initFile struct {
	exists bool
	lines  int
	sum    [sha256.Size]byte
	info   fs.FileInfo
	// importsAgents is set when the file is nothing but @AGENTS.md: the
	// usual way to make Claude Code read AGENTS.md.
	importsAgents bool
}

// initState is the root's AGENTS.md and CLAUDE.md.
type initState struct{ agents, claude initFile }

// readInitState looks at the two files through an os.Root of the
// workspace, so a symlink out of it counts as no file.
func readInitState(dir string) initState {
	var st initState
	root, err := os.OpenRoot(dir)
	if err != nil {
		return st
	}
	defer root.Close()
	st.agents = readInitFile(root, history.InstructionsFile)
	st.claude = readInitFile(root, history.ClaudeInstructionsFile)
	return st
}

func readInitFile(root *os.Root, name string) initFile {
	fi, err := root.Stat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return initFile{}
	}
	f, err := root.Open(name)
	if err != nil {
		return initFile{}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 4<<20))
	if err != nil {
		return initFile{}
	}
	return initFile{
		exists: true, lines: bytes.Count(data, []byte("\n")) + boolInt(len(data) > 0 && data[len(data)-1] != '\n'),
		sum: sha256.Sum256(data), info: fi,
		importsAgents: strings.TrimSpace(string(data)) == "@"+history.InstructionsFile,
	}
}

// differs reports whether the file was created, removed or changed.
func (f initFile) differs(g initFile) bool { return f.exists != g.exists || f.sum != g.sum }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// claudeIsAgents reports whether CLAUDE.md is AGENTS.md under a second name
// (a symlink or hard link), or does nothing but import it.
func (st initState) claudeIsAgents() bool {
	return st.agents.exists && st.claude.exists && (os.SameFile(st.agents.info, st.claude.info) || st.claude.importsAgents)
}

// initPlan is what /init asks for, and says it asks for, in each case.
func initPlan(st initState) (prompt, notice string) {
	switch {
	case st.claude.exists && !st.agents.exists:
		return "Survey this repository and improve the CLAUDE.md at its root for coding agents working in it. Do not create an AGENTS.md: rein reads CLAUDE.md as it is, and Claude Code keeps reading it too.\n\n" + initSurvey +
				"\n\nKeep what in CLAUDE.md is still right; fix what is wrong and add what is missing. Write the file with write_file (or edit_file), then say in one paragraph what you changed.",
			"/init: CLAUDE.md exists and AGENTS.md does not: asking the model to update CLAUDE.md in place (no AGENTS.md is created)"
	case st.claude.exists && st.agents.exists && !st.claudeIsAgents():
		return "Survey this repository and merge its two instruction files at the root, AGENTS.md and CLAUDE.md, into AGENTS.md for coding agents working in it. rein reads both, so what is in both is said twice.\n\n" + initSurvey +
				"\n\nPut everything from CLAUDE.md that is still right into AGENTS.md (improving both texts as you go, dropping nothing that is right), then replace the content of CLAUDE.md with the single line @AGENTS.md, so that Claude Code reads the merged file through its import. Write the files with write_file (or edit_file), then say in one paragraph what you moved and changed.",
			"/init: both AGENTS.md and CLAUDE.md exist: asking the model to merge CLAUDE.md into AGENTS.md and leave CLAUDE.md as the line @AGENTS.md"
	case st.agents.exists:
		return "Survey this repository and improve the AGENTS.md at its root for coding agents working in it.\n\n" + initSurvey +
				"\n\nImprove AGENTS.md rather than start over, keeping what is still right. Write the file with write_file (or edit_file), then say in one paragraph what you changed.",
			"/init: asking the model to update AGENTS.md"
	}
	return "Survey this repository and write an AGENTS.md at its root for coding agents working in it.\n\n" + initSurvey +
			"\n\nWrite the file with write_file, then say in one paragraph what you put in it.",
		"/init: no AGENTS.md or CLAUDE.md yet: asking the model to write AGENTS.md"
}

// initCommand is /init: it says what it asks the model to do with the
// instruction files there are, runs the turn, and then says what became
// of each file, so an existing CLAUDE.md is never retired unnoticed.
func (s *chatSession) initCommand(ctx context.Context) (bool, int) {
	dir := s.ws.Dir()
	before := readInitState(dir)
	prompt, notice := initPlan(before)
	fmt.Fprintln(s.app.Stderr, notice)
	quit, code := s.turn(ctx, prompt, nil)
	after := readInitState(dir)
	report := "/init: " + initChange(history.InstructionsFile, before.agents, after.agents) + "; " +
		initChange(history.ClaudeInstructionsFile, before.claude, after.claude)
	if before.agents.differs(after.agents) || before.claude.differs(after.claude) {
		report += " (the new text applies from the next session)"
	}
	fmt.Fprintln(s.app.Stderr, report)
	return quit, code
}

// initChange says what happened to one file during /init.
func initChange(name string, before, after initFile) string {
	switch {
	case !before.exists && !after.exists:
		return "no " + name
	case !before.exists:
		return fmt.Sprintf("%s created (%s)", name, plural(after.lines, "line"))
	case !after.exists:
		return name + " removed"
	case !before.differs(after):
		return name + " unchanged"
	case after.importsAgents:
		return fmt.Sprintf("%s replaced by the line @%s (was %s)", name, history.InstructionsFile, plural(before.lines, "line"))
	}
	return fmt.Sprintf("%s updated (%d → %s)", name, before.lines, plural(after.lines, "line"))
}

// showInstructions prints which instruction files the agent was given.
func (s *chatSession) showInstructions() {
	if l := host.InstructionsLine(s.instructions); l != "" {
		fmt.Fprintln(s.app.Stderr, termsafe.Line(l))
		return
	}
	fmt.Fprintln(s.app.Stderr, "instructions: none (AGENTS.md, CLAUDE.md, .claude/CLAUDE.md or CLAUDE.local.md; /init writes one)")
}
