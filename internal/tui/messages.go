package tui

import (
	"time"

	"github.com/reinharness/rein/agent"
)

// The messages below are what a front end sends the UI (Program.Send);
// they may be sent from any goroutine. Text in them may be
// model-controlled: the UI escapes it (termsafe) before it reaches the
// terminal.

// EventMsg shows one agent event. Diff, for the result of a tool that
// changed files, is the unified diff of its changes, shown colored.
type EventMsg struct {
	Event agent.Event
	Diff  string
}

// ToolOutputMsg is output of the running call CallID as it comes (a
// command's lines): the UI shows its last lines under the call until the
// result arrives. Text for a call not running (its result came first) is
// dropped.
type ToolOutputMsg struct {
	CallID, Text string
}

// NoticeKind says how a notice is shown.
type NoticeKind int

// Notice kinds.
const (
	// NoticeInfo is rein's own commentary (dim).
	NoticeInfo NoticeKind = iota
	// NoticeError is a problem worth the user's attention.
	NoticeError
	// NoticeOutput is data the user asked for (/diff, /usage): shown as
	// is, a unified diff colored.
	NoticeOutput
)

// NoticeMsg prints text above the input.
type NoticeMsg struct {
	Kind NoticeKind
	Text string
}

// RetryMsg reports that the model request failed and is retried at
// Until: the working line says so ("rate limited (429), retrying in
// 3 s") with the seconds counting down, until the answer starts or the
// turn ends.
type RetryMsg struct {
	// Reason names the failure, e.g. "rate limited (429)".
	Reason string
	Until  time.Time
}

// TurnMsg reports that a turn started (Running) or ended.
type TurnMsg struct{ Running bool }

// Status is what the status line shows; empty fields are left out.
type Status struct {
	Model, Preset, Session string
	// Context is the context window the last request used, e.g.
	// "12.3k/32k 38%"; Tokens the session's "in/out"; Cost its price.
	Context, Tokens, Cost string
	// MCP is the servers' state, e.g. "2 up, 1 failed".
	MCP string
}

// StatusMsg replaces the status line.
type StatusMsg Status

// ModeMsg changes the status line's mode (Status.Preset) alone: the
// front end switches modes on the UI's action queue, outside the chat's
// goroutine that owns the rest of the status.
type ModeMsg struct{ Mode string }

// AskMsg tells the UI that a question on screen (an MCP server's form)
// waits for a line: the next line the user sends goes to Answer instead
// of being a message. Open false ends that (the question was withdrawn).
type AskMsg struct{ Open bool }

// Choice is an answer to an approval.
type Choice string

// The approval choices, each on one key.
const (
	ChoiceOnce    Choice = "once"    // y
	ChoiceSession Choice = "session" // s
	ChoiceAlways  Choice = "always"  // a: for this project, kept in rein's state
	ChoiceDeny    Choice = "deny"    // n, then an optional reason
)

// ApprovalRequest is a tool call the policy wants approved.
type ApprovalRequest struct {
	// ID ties the reply and a withdrawal to this request.
	ID   int
	Tool string
	// Command is the full command of an exec tool; Diff the preview of
	// the change a write would make; Args the call's arguments otherwise.
	Command, Diff, Args string
	// Why is the policy's reason for asking.
	Why string
	// CanAlways offers "always for this project".
	CanAlways bool
}

// ApprovalReply is the user's answer to an ApprovalRequest.
type ApprovalReply struct {
	ID     int
	Choice Choice
	// Reason is the user's optional reason for a denial, told the model.
	Reason string
}

// ApprovalMsg shows the approval dialog. The reply is sent on Reply,
// which must have room for one value (the UI never blocks on it).
type ApprovalMsg struct {
	Request ApprovalRequest
	Reply   chan<- ApprovalReply
}

// ApprovalWithdrawnMsg closes the dialog of request ID unanswered (the
// turn was cancelled).
type ApprovalWithdrawnMsg struct{ ID int }

// ActionKind is what the user did.
type ActionKind int

// Actions the UI emits.
const (
	// ActionSend sends Text as a message (or a /command, or !command).
	ActionSend ActionKind = iota
	// ActionAnswer answers the open question (AskMsg) with Text.
	ActionAnswer
	// ActionCancel cancels the turn in progress (Esc, Ctrl-C).
	ActionCancel
	// ActionQuit ends the session (Ctrl-D, Ctrl-C twice at an empty
	// prompt).
	ActionQuit
	// ActionMode asks for the next permission mode (Shift+Tab); the
	// front end decides which it is and may ask (ConfirmMsg).
	ActionMode
)

// Action is one thing the user did, for the front end to act on.
type Action struct {
	Kind ActionKind
	Text string
}

// Exchange is one exchange of a stored transcript: the user's message,
// the tool calls made for it (one line each, "name detail") and the
// answer.
type Exchange struct {
	User   string
	Tools  []string
	Answer string
}

// ReplayMsg prints the last exchanges of a resumed session above the
// input, as they looked live: the message after the prompt mark, the
// calls dimmed, the answer as rendered markdown. Header introduces them.
type ReplayMsg struct {
	Header    string
	Exchanges []Exchange
}

// ConfirmMsg asks a yes-or-no question in a dialog, like an approval:
// keys typed just before it opened are ignored, Enter answers nothing,
// y says yes and n or Esc no. The answer is sent on Reply, which must
// have room for one value.
type ConfirmMsg struct {
	// ID ties a withdrawal (ConfirmWithdrawnMsg) to this question.
	ID int
	// Title is the question; Body says what yes means; Yes and No label
	// the two keys ("switch to full", "stay in editor").
	Title, Body, Yes, No string
	Reply                chan<- bool
}

// ConfirmWithdrawnMsg closes the question ID unanswered.
type ConfirmWithdrawnMsg struct{ ID int }
