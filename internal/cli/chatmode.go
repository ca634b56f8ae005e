package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/internal/tui"
	"github.com/reinharness/rein/policy"
)

// EventModeChanged is journaled when the user changes the session's
// permission mode (Shift+Tab, /mode); its Text is the new mode.
const EventModeChanged agent.EventType = "mode.changed"

// planAccepted is the message that carries out an accepted plan.
const planAccepted = "The plan is accepted. Carry it out."

// chatModes is the session's permission mode: the preset of its policy,
// changed by Shift+Tab (on the UI's goroutine) and /mode (on the chat's),
// hence the lock. The policy.Switch makes each change a real policy
// change for every later call, the project's cap and hard denials kept.
type chatModes struct {
	sw *policy.Switch
	mu sync.Mutex
	// initial is the mode the system prompt states; prev the last mode
	// other than plan, which accepting a plan returns to.
	initial, prev policy.Preset
	// fullOK is set once full was confirmed (or chosen with --preset).
	fullOK bool
	// asks numbers the questions put in the UI's dialog (from the UI's
	// queue and the chat's goroutine).
	asks atomic.Int64
}

func newChatModes(sw *policy.Switch) *chatModes {
	p := sw.Preset()
	m := &chatModes{sw: sw, initial: p, prev: p, fullOK: p == policy.PresetFull}
	if p == policy.PresetPlan {
		m.prev = policy.PresetEditor
	}
	return m
}

// current is the effective mode.
func (m *chatModes) current() policy.Preset { return m.sw.Preset() }

// modeName is the mode for the status line and /status.
func (s *chatSession) modeName() string {
	if s.modes == nil {
		return ""
	}
	return string(s.modes.current())
}

// next is the mode after cur in policy.Modes, skipping the modes the
// project's preset does not allow.
func (m *chatModes) next(cur policy.Preset) policy.Preset {
	i := slices.Index(policy.Modes, cur)
	for k := 1; k <= len(policy.Modes); k++ {
		p := policy.Modes[(i+k)%len(policy.Modes)]
		if !m.sw.Engine().Capped(p) {
			return p
		}
	}
	return cur
}

// cycleMode is Shift+Tab: the next mode. It runs on the UI's action
// queue, so it may wait for the confirmation of full.
func (s *chatSession) cycleMode() {
	s.switchMode(context.Background(), s.modes.next)
}

// setMode switches to p, first asking in the UI when p is full and full
// was not confirmed yet in this session. It reports whether the mode is
// now p.
func (s *chatSession) setMode(ctx context.Context, p policy.Preset) bool {
	return s.switchMode(ctx, func(policy.Preset) policy.Preset { return p })
}

// switchMode switches to to(the current mode), under the lock so that
// two quick Shift+Tabs make two steps.
func (s *chatSession) switchMode(ctx context.Context, to func(policy.Preset) policy.Preset) bool {
	m := s.modes
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.current()
	p := to(old)
	if p == old {
		s.modeNotice(fmt.Sprintf("mode: %s (unchanged)", p))
		return true
	}
	if p == policy.PresetFull && !m.fullOK && s.front != nil {
		if !s.confirm(ctx, "Switch to full mode?",
			"Commands run and the network is used without asking (rules, hard denials and the project's limits still apply). Asked once per session.",
			"switch to full", "stay in "+string(old)) {
			s.modeNotice("mode: still " + string(old))
			return false
		}
	}
	got, err := m.sw.Set(p)
	if err != nil {
		s.modeNotice("rein: " + err.Error())
		return false
	}
	if got == policy.PresetFull {
		m.fullOK = true
	}
	if got != policy.PresetPlan {
		m.prev = got
	}
	line := fmt.Sprintf("mode: %s — %s", got, modeSummaries[got])
	if got != p {
		line = fmt.Sprintf("mode: %s (the project's preset does not allow %s)", got, p)
	}
	s.modeNotice(line)
	s.journalMode(ctx, got)
	if s.front != nil {
		s.front.send(tui.ModeMsg{Mode: string(got)})
	}
	return got == p
}

// modeSummaries say in a line what each mode lets the model do.
var modeSummaries = map[policy.Preset]string{
	policy.PresetReadOnly: "reads only; writes and commands are denied",
	policy.PresetEditor:   "edits files; commands and the network ask",
	policy.PresetFull:     "edits files and runs commands without asking, within the rules",
	policy.PresetPlan:     "reads and plans; nothing changes until you accept the plan",
}

// modeNotice shows a mode line: a notice in the UI, stderr in line mode.
func (s *chatSession) modeNotice(text string) {
	if s.front != nil {
		s.front.send(tui.NoticeMsg{Kind: tui.NoticeInfo, Text: text})
		return
	}
	fmt.Fprintln(s.app.Stderr, text)
}

// journalMode records the change in the session, so `rein sessions show`
// and replays see when the policy changed.
func (s *chatSession) journalMode(ctx context.Context, p policy.Preset) {
	if s.sr == nil {
		return
	}
	ev := agent.Event{Type: EventModeChanged, RunID: s.sr.ID(), Time: time.Now().UTC(), Text: string(p)}
	if err := s.sr.Append(ctx, ev); err != nil {
		s.modeNotice("rein: could not record the mode change: " + textclip.FirstLine(err.Error()))
	}
}

// confirm asks a yes-or-no question in the UI's dialog and waits for the
// answer; no when the UI or ctx ends first.
func (s *chatSession) confirm(ctx context.Context, title, body, yes, no string) bool {
	id := int(s.modes.asks.Add(1))
	reply := make(chan bool, 1)
	s.front.send(tui.ConfirmMsg{ID: id, Title: title, Body: body, Yes: yes, No: no, Reply: reply})
	select {
	case ok := <-reply:
		return ok
	case <-s.front.ended:
		return false
	case <-ctx.Done():
		s.front.send(tui.ConfirmWithdrawnMsg{ID: id})
		return false
	}
}

// modeCommand is /mode: without an argument it shows the mode; /mode NAME
// switches (Claude Code's names work too); /mode accept accepts the plan.
func (s *chatSession) modeCommand(ctx context.Context, arg string) (quit bool, code int) {
	if arg == "" {
		fmt.Fprintf(s.app.Stderr, "mode: %s — %s\nmodes: read-only, editor, full, plan (Shift+Tab cycles); /mode NAME switches\n",
			s.modes.current(), modeSummaries[s.modes.current()])
		return false, 0
	}
	if arg == "accept" {
		if s.modes.current() != policy.PresetPlan {
			fmt.Fprintln(s.app.Stderr, "rein: /mode accept accepts a plan; the session is not in plan mode")
			return false, 0
		}
		return s.acceptPlan(ctx)
	}
	p, err := parseMode(arg)
	if err != nil {
		fmt.Fprintf(s.app.Stderr, "rein: %v\n", err)
		return false, 0
	}
	s.setMode(ctx, p)
	return false, 0
}

// parseMode reads a mode name: rein's presets or Claude Code's
// permission modes (acceptEdits, bypassPermissions, default).
func parseMode(s string) (policy.Preset, error) {
	switch s {
	case "default", "acceptEdits":
		return policy.PresetEditor, nil
	case "bypassPermissions":
		return policy.PresetFull, nil
	case "readonly", "read_only", "ro":
		return policy.PresetReadOnly, nil
	}
	p, err := policy.ParsePreset(s)
	if err != nil || s == "" {
		return "", fmt.Errorf("unknown mode %q: use read-only, editor, full or plan", s)
	}
	return p, nil
}

// modeSystem is what the system prompt of the next turn adds about the
// mode: plan mode's instructions, or that the user changed the preset
// the prompt states.
func (s *chatSession) modeSystem() string {
	cur := s.modes.current()
	switch {
	case cur == policy.PresetPlan:
		return "# Plan mode\n\nThe session is in plan mode. Explore with the read-only tools, write your plan with todo_write, " +
			"and end your answer with the plan for the user. Do not change files or run commands that change anything: " +
			"such calls are denied until the user accepts the plan. When the plan is accepted you will be told to carry it out."
	case cur != s.modes.initial:
		return fmt.Sprintf("# Mode\n\nThe user switched the session to the %s preset: %s. This replaces the preset stated above.",
			cur, host.PresetSummaries[cur])
	}
	return ""
}

// planDone runs after a turn that completed: in plan mode the user is
// asked to accept the plan — in the UI's dialog, in line mode by
// /mode accept.
func (s *chatSession) planDone(ctx context.Context) (quit bool, code int) {
	if s.modes.current() != policy.PresetPlan {
		return false, 0
	}
	prev := s.modes.prevMode()
	if s.front == nil {
		fmt.Fprintf(s.app.Stderr, "plan mode: /mode accept carries out the plan (in %s mode); or say what to change\n", prev)
		return false, 0
	}
	if !s.confirm(ctx, "Accept the plan?", fmt.Sprintf("Yes switches to %s mode and carries it out; no keeps planning (say what to change).", prev),
		"accept and switch to "+string(prev), "keep planning") {
		s.modeNotice("mode: still plan — say what to change")
		return false, 0
	}
	return s.acceptPlan(ctx)
}

func (m *chatModes) prevMode() policy.Preset {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.prev
}

// acceptPlan leaves plan mode for the previous mode and tells the model
// to carry the plan out.
func (s *chatSession) acceptPlan(ctx context.Context) (quit bool, code int) {
	if !s.setMode(ctx, s.modes.prevMode()) {
		return false, 0
	}
	return s.turn(ctx, planAccepted, nil)
}

// appendSection joins two system prompt sections.
func appendSection(a, b string) string {
	switch {
	case b == "":
		return a
	case a == "":
		return b
	}
	return strings.TrimRight(a, "\n") + "\n\n" + b
}
