// Package tui is rein chat's terminal interface: an inline Bubble Tea
// program that keeps the terminal's scrollback (finished output is
// printed above it) and pins the live answer, the activity, the input
// editor and a status line at the bottom.
//
// The package knows nothing of the chat's logic: a front end sends it
// messages (agent events, notices, approval requests, status) and acts on
// the Actions it emits (a message sent, a turn cancelled, quit).
package tui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/reinharness/rein/agent"
)

// Config configures a Model.
type Config struct {
	// Emit receives the user's actions, in order, on the UI's goroutine:
	// it must not block (queue them).
	Emit func(Action)
	// Commands are the slash commands Tab completes ("/help", …).
	Commands []string
	// Paths completes an @path prefix to workspace paths; nil disables
	// @path completion.
	Paths func(prefix string) []string
	// Complete completes what neither a slash command nor an @path
	// does (a /prompt argument's value, say): given the input, it returns
	// where the completed word starts, its candidates and what follows a
	// single one (a closing quote). It is called off the UI's goroutine,
	// its context bounded by CompleteTimeout, so a slow source never
	// holds the input; nil disables it.
	Complete func(ctx context.Context, line string) (Completion, error)
	// History is the input history (nil: none kept).
	History *History
	// NoColor drops colors (NO_COLOR), keeping emphasis.
	NoColor bool
	// Width and Height are the terminal's size until the first resize.
	Width, Height int
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Model is the UI's state. It is a tea.Model; all its methods run on the
// program's goroutine.
type Model struct {
	cfg           Config
	st            styles
	width, height int
	now           func() time.Time

	input *editor
	// lastPastes are the collapsed pastes of the last message (/expand).
	lastPastes []string
	spin       spinner.Model
	hist       *History
	// histPos is the history entry shown (len = the draft); draft is
	// what was typed before browsing.
	histPos int
	draft   string

	mdr *mdRenderer
	md  *markdownStream
	// reasoning is the turn's reasoning; folded once the answer starts.
	reasoning strings.Builder
	folded    bool
	// lastReasoning and lastResult are what Ctrl-T and Ctrl-O show.
	lastReasoning, lastResult string

	busy      bool
	turnStart time.Time
	calls     []*runningCall
	plan      []agent.PlanItem
	verify    string
	// retry is the model request's retry in progress (zero when none).
	retry RetryMsg

	approval *approvalState
	// confirm is the open yes-or-no question (confirm.go).
	confirm *confirmState
	asking  bool
	status  Status
	// ctrlC is when Ctrl-C was last pressed at an empty, idle prompt.
	ctrlC time.Time

	// outbox holds lines for the scrollback; printing is set while one
	// print is in flight (prints go one at a time, so they keep their
	// order).
	outbox   []string
	printing bool
	// scroll records everything printed, for tests (nil: not kept).
	scroll *[]string
}

// runningCall is a tool call in progress.
type runningCall struct {
	id, name, detail string
	start            time.Time
	// tail is the end of the output reported so far (ToolOutputMsg),
	// escaped, at most maxCallTailBytes.
	tail string
	// denied is set when the call's denial was shown: its result, which
	// repeats the reason, is not.
	denied bool
}

// doubleCtrlC is how soon a second Ctrl-C at an empty prompt must follow
// the first to quit.
const doubleCtrlC = 2 * time.Second

// New returns the UI's model.
func New(cfg Config) *Model {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Emit == nil {
		cfg.Emit = func(Action) {}
	}
	if cfg.Width <= 0 {
		cfg.Width = 80
	}
	if cfg.Height <= 0 {
		cfg.Height = 24
	}
	m := &Model{cfg: cfg, st: newStyles(cfg.NoColor), now: cfg.Now, hist: cfg.History}
	m.input = newEditor()
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot))
	m.histPos = m.hist.Len()
	m.resize(cfg.Width, cfg.Height)
	m.md = newMarkdownStream(m.mdr)
	return m
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd { return nil }

// printedMsg reports that the print in flight reached the terminal.
type printedMsg struct{}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		if m.approval != nil {
			m.clampTop()
		}
	case printedMsg:
		m.printing = false
	case completedMsg:
		m.completed(msg)
	case spinner.TickMsg:
		if m.busy {
			var c tea.Cmd
			m.spin, c = m.spin.Update(msg)
			cmds = append(cmds, c)
		}
	case tea.KeyPressMsg:
		cmds = append(cmds, m.key(msg))
	case tea.PasteMsg:
		cmds = append(cmds, m.paste(msg.Content))
	case EventMsg:
		m.event(msg)
	case ToolOutputMsg:
		m.toolOutput(msg)
	case NoticeMsg:
		m.notice(msg)
	case TurnMsg:
		cmds = append(cmds, m.turn(msg.Running))
	case RetryMsg:
		m.retry = msg
	case StatusMsg:
		m.status = Status(msg)
	case ModeMsg:
		m.status.Preset = msg.Mode
	case MCPStatusMsg:
		m.status.MCP = string(msg)
	case AskMsg:
		m.asking = msg.Open
	case SubmitMsg:
		m.submit(msg.Text)
	case DraftMsg:
		m.restoreDraft(msg.Text)
	case ReplayMsg:
		m.replay(msg)
	case ApprovalMsg:
		cmds = append(cmds, m.openApproval(msg))
	case armMsg:
		// Drawn again below: the dialog shows it takes answers now.
	case ConfirmMsg:
		cmds = append(cmds, m.openConfirm(msg))
	case confirmArmMsg:
		// Drawn again below: the dialog takes answers now.
	case ConfirmWithdrawnMsg:
		if m.confirm != nil && m.confirm.req.ID == msg.ID {
			m.confirm = nil
		}
	case ApprovalWithdrawnMsg:
		if m.approval != nil && m.approval.req.ID == msg.ID {
			m.approval = nil
			m.print(m.st.dim.Render("(the approval was withdrawn: the turn ended)"))
		}
	}
	cmds = append(cmds, m.flush())
	return m, tea.Batch(cmds...)
}

// print queues text for the scrollback.
func (m *Model) print(text string) {
	m.outbox = append(m.outbox, text)
	if m.scroll != nil {
		*m.scroll = append(*m.scroll, text)
	}
}

// flush prints the queued text, one print at a time.
func (m *Model) flush() tea.Cmd {
	if m.printing || len(m.outbox) == 0 {
		return nil
	}
	text := strings.Join(m.outbox, "\n")
	m.outbox, m.printing = nil, true
	return tea.Sequence(tea.Println(text), func() tea.Msg { return printedMsg{} })
}

// resize adapts the layout and the markdown width to the terminal.
func (m *Model) resize(w, h int) {
	if w <= 0 || h <= 0 {
		return
	}
	m.width, m.height = w, h
	m.input.width = max(w-2, 10)
	if m.mdr == nil || m.mdr.width != w {
		m.mdr = newMDRenderer(w, m.cfg.NoColor)
		if m.md != nil {
			m.md.resize(m.mdr)
		}
	}
}

// turn starts or ends a turn's activity display.
func (m *Model) turn(running bool) tea.Cmd {
	if running {
		m.busy, m.turnStart = true, m.now()
		m.reasoning.Reset()
		m.folded = false
		m.plan, m.verify, m.retry = nil, "", RetryMsg{}
		return m.spin.Tick
	}
	m.endAnswer()
	m.foldReasoning()
	m.busy, m.calls = false, nil
	if len(m.plan) > 0 {
		m.print(m.planText())
	}
	m.plan, m.verify, m.retry = nil, "", RetryMsg{}
	return nil
}

// View implements tea.Model.
func (m *Model) View() tea.View {
	var parts []string
	if live := m.liveArea(); live != "" {
		parts = append(parts, live)
	}
	if m.approval != nil {
		parts = append(parts, m.approvalView())
	}
	if m.confirm != nil {
		parts = append(parts, m.confirmView())
	}
	parts = append(parts, m.inputView(), m.statusLine())
	return tea.NewView(strings.Join(parts, "\n"))
}
