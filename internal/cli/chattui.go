package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/tui"
)

// useTUI reports whether chat runs the terminal UI: stdin and stdout are
// terminals, the terminal is not dumb, and --no-tui was not given.
// Everything else (pipes, TERM=dumb, tests driving Stdin) gets the line
// mode.
func (a *App) useTUI(noTUI bool) bool {
	if noTUI || !a.IsTerminal() || !isTerminal(a.Stdout) {
		return false
	}
	term := a.Getenv("TERM")
	return term != "" && term != "dumb"
}

// tuiFront is the chat's terminal-UI front end: the tui package draws,
// this adapter turns the chat's output into the UI's messages and the
// UI's actions into the chat's input lines and interrupts. The chat logic
// (chat.go, chatcmds.go) is the same as in line mode.
type tuiFront struct {
	prog *tui.Program
	// msgs are the messages sent, in order; answers the lines typed to
	// answer an open question; both end with the session.
	msgs, answers chan inputLine
	queue         actionQueue
	// modeQueue takes Shift+Tab apart from queue, where a message sent
	// during a turn waits for the chat: a mode switch must not wait.
	modeQueue actionQueue
	// interrupts merges the process's signals with the UI's cancels.
	interrupts chan os.Signal
	// cancelled is set once the running turn was cancelled: a second Esc
	// must not count as the second interrupt that ends the session.
	cancelled atomic.Bool
	quit      sync.Once
	ended     chan struct{}
	runErr    error
	// onMode is Shift+Tab's handler (chatSession.cycleMode), set once
	// the session exists.
	onMode atomic.Pointer[func()]
	// onComplete is Tab's completer of /prompt arguments
	// (chatSession.completePromptArg, chatcomplete.go), set likewise.
	onComplete atomic.Pointer[func(context.Context, string) (tui.Completion, error)]
}

// newTUIFront starts the UI on the app's terminal.
func (a *App) newTUIFront(ctx context.Context, history *tui.History, commands []string, paths func(string) []string) *tuiFront {
	f := &tuiFront{
		msgs: make(chan inputLine), answers: make(chan inputLine),
		interrupts: make(chan os.Signal, 4), ended: make(chan struct{}),
	}
	f.queue.init(f.act)
	f.modeQueue.init(f.act)
	env := os.Environ()
	if a.Getenv("NO_COLOR") != "" {
		env = append(env, "NO_COLOR=1")
	}
	cfg := tui.Config{
		Emit: f.emit, Commands: commands, Paths: paths, History: history,
		NoColor: a.Getenv("NO_COLOR") != "", Complete: f.complete,
	}
	f.prog = tui.NewProgram(cfg, a.Stdin, a.Stdout, env)
	go func() {
		for {
			select {
			case s, ok := <-a.Interrupts:
				if !ok {
					return
				}
				select {
				case f.interrupts <- s:
				case <-f.ended:
					return
				default: // four interrupts wait unread already: one more says nothing new
				}
			case <-f.ended:
				return
			}
		}
	}()
	go func() {
		defer close(f.ended)
		f.runErr = f.prog.Run()
		f.endInput()
	}()
	return f
}

// emit queues the UI's actions: mode switches on their own queue.
func (f *tuiFront) emit(ac tui.Action) {
	if ac.Kind == tui.ActionMode {
		f.modeQueue.push(ac)
		return
	}
	f.queue.push(ac)
}

// act turns one user action into chat input (on the queue's goroutine,
// so it may block until the chat takes it).
func (f *tuiFront) act(ac tui.Action) {
	switch ac.Kind {
	case tui.ActionSend:
		select {
		case f.msgs <- inputLine{text: ac.Text}:
		case <-f.ended:
		}
	case tui.ActionAnswer:
		select {
		case f.answers <- inputLine{text: ac.Text}:
		case <-f.ended:
		}
	case tui.ActionCancel:
		if f.cancelled.CompareAndSwap(false, true) {
			select {
			case f.interrupts <- os.Interrupt:
			default:
			}
		}
	case tui.ActionMode:
		if h := f.onMode.Load(); h != nil {
			(*h)()
		}
	case tui.ActionQuit:
		if f.cancelled.CompareAndSwap(false, true) {
			select {
			case f.interrupts <- os.Interrupt:
			default:
			}
		}
		f.endInput()
	}
}

// endInput ends the chat's input: the loop sees the end and returns.
func (f *tuiFront) endInput() { f.quit.Do(func() { close(f.msgs) }) }

// send delivers a message to the UI unless it has ended.
func (f *tuiFront) send(msg tea.Msg) {
	select {
	case <-f.ended:
	default:
		f.prog.Send(msg)
	}
}

// toolOutput is agent.Config.ToolProgress under the UI: a running call's
// output goes to its live tail. It runs on the call's goroutine; Send
// waits only for the UI loop to take the message, which never waits on
// the agent.
func (f *tuiFront) toolOutput(callID, _, text string) {
	f.send(tui.ToolOutputMsg{CallID: callID, Text: text})
}

// turnStarted resets the cancel guard and starts the activity display.
func (f *tuiFront) turnStarted() {
	f.cancelled.Store(false)
	f.send(tui.TurnMsg{Running: true})
}

// close ends the UI and waits until the terminal is restored.
func (f *tuiFront) close() error {
	f.prog.Quit()
	<-f.ended
	f.queue.close()
	return f.runErr
}

// readAnswer is the line source of questions put to the user (MCP
// servers' forms): it tells the UI a question waits, then takes the next
// line typed.
func (f *tuiFront) readAnswer(ctx context.Context) (string, error) {
	f.send(tui.AskMsg{Open: true})
	defer f.send(tui.AskMsg{Open: false})
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-f.ended:
		return "", errInputEnded
	case in := <-f.answers:
		return in.text, nil
	}
}

// actionQueue passes the UI's actions on in order without ever blocking
// the UI: push appends, one goroutine delivers.
type actionQueue struct {
	mu      sync.Mutex
	pending []tui.Action
	wake    chan struct{}
	closed  bool
}

func (q *actionQueue) init(deliver func(tui.Action)) {
	q.wake = make(chan struct{}, 1)
	go func() {
		for range q.wake {
			for {
				q.mu.Lock()
				if len(q.pending) == 0 {
					q.mu.Unlock()
					break
				}
				a := q.pending[0]
				q.pending = q.pending[1:]
				q.mu.Unlock()
				deliver(a)
			}
		}
	}()
}

func (q *actionQueue) push(a tui.Action) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return // the UI has ended: nobody acts on it any more
	}
	q.pending = append(q.pending, a)
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// close ends the delivering goroutine once it has delivered what is
// pending; later pushes are dropped. Deliveries must not block forever
// (act gives up when the UI has ended).
func (q *actionQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.wake)
	}
}

// noticeWriter turns what the chat prints (its notices on stderr, data
// such as /diff on stdout) into the UI's notices, a write at a time up
// to its last newline, so a diff printed in one write stays one notice.
type noticeWriter struct {
	f    *tuiFront
	kind tui.NoticeKind
	mu   sync.Mutex
	buf  bytes.Buffer
}

func (w *noticeWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	data := w.buf.Bytes()
	i := bytes.LastIndexByte(data, '\n')
	if i < 0 {
		if w.buf.Len() > 64<<10 {
			i = len(data) - 1
		} else {
			return len(p), nil
		}
	}
	text := string(data[:i+1])
	w.buf.Next(i + 1)
	kind := w.kind
	if kind == tui.NoticeInfo && strings.HasPrefix(text, "rein: ") && !strings.HasPrefix(text, "rein: warning") {
		kind = tui.NoticeError
	}
	w.f.send(tui.NoticeMsg{Kind: kind, Text: text})
	return len(p), nil
}

var _ io.Writer = (*noticeWriter)(nil)

// historyPath is where the input history of a workspace is kept: in the
// state directory, keyed by the workspace's canonical path.
func historyPath(state, ws string) string {
	if state == "" {
		return ""
	}
	return filepath.Join(state, "history", workspaceKey(ws)+".jsonl")
}

// workspaceKey names a workspace in file names: a hash of its canonical
// path (paths hold separators and may be long).
func workspaceKey(ws string) string {
	sum := sha256.Sum256([]byte(host.CanonicalDir(ws)))
	return hex.EncodeToString(sum[:8])
}
