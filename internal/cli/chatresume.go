package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/internal/tui"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

// maxResumeList bounds the sessions /resume lists; older ones are
// reached with /resume ID (rein sessions list shows them all).
const maxResumeList = 20

// replayExchanges is how many of a resumed session's last exchanges are
// shown; replayAnswer bounds each answer shown, replayTool each call.
const (
	replayExchanges = 3
	replayAnswer    = 4000
	replayTool      = 120
)

// resumeCommand is /resume [N|ID]: without an argument it lists this
// workspace's other sessions, newest first, and the next line may pick
// one by its number; /resume N picks from that list at once, /resume ID
// (or a unique prefix) names a session of any workspace.
func (s *chatSession) resumeCommand(ctx context.Context, arg string) {
	w := s.app.Stderr
	list, err := s.resumable(ctx)
	if err != nil {
		fmt.Fprintf(w, "rein: cannot list the sessions: %s\n", termsafe.Line(s.ex.scrub(textclip.FirstLine(err.Error()))))
		return
	}
	if arg != "" {
		if n, err := strconv.Atoi(arg); err == nil {
			s.picks = list
			s.pick(ctx, strconv.Itoa(n))
			return
		}
		s.resume(ctx, arg)
		return
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "(no other session of this workspace; rein sessions list shows those of all workspaces)")
		return
	}
	var b strings.Builder
	b.WriteString("sessions of this workspace, newest first:\n")
	now := time.Now()
	for i, in := range list {
		title := in.Title
		if title == "" {
			title = "(no message)"
		}
		fmt.Fprintf(&b, "%3d. %s  %-12s %s\n", i+1, in.ID, age(now, in.Updated), termsafe.Line(s.ex.scrub(host.ClipRunes(title, 60))))
	}
	b.WriteString("type its number to resume one (anything else leaves the list)\n")
	io.WriteString(w, b.String())
	s.picks = list
}

// resumable lists the workspace's sessions other than the current one.
func (s *chatSession) resumable(ctx context.Context) ([]session.Info, error) {
	all, err := s.sr.store.List(ctx, session.Filter{Workspace: s.sr.workspace, Limit: maxResumeList + 1})
	if err != nil {
		return nil, err
	}
	list := make([]session.Info, 0, len(all))
	for _, in := range all {
		if in.ID != s.conv.ID() && len(list) < maxResumeList {
			list = append(list, in)
		}
	}
	return list, nil
}

// pick takes the line after a /resume list: a number resumes that
// session and reports true; anything else leaves the list (false), and
// the line is handled as usual.
func (s *chatSession) pick(ctx context.Context, line string) bool {
	picks := s.picks
	s.picks = nil
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return false
	}
	if n < 1 || n > len(picks) {
		fmt.Fprintf(s.app.Stderr, "rein: no session %d in the list (it has %d); /resume lists them again\n", n, len(picks))
		return true
	}
	s.resume(ctx, picks[n-1].ID)
	return true
}

// resume attaches session id in place of the current one — as --session
// ID does at start: its interrupted calls are answered, its summaries
// restored — and replays its last exchanges. The current session stays
// stored; on failure it stays current.
func (s *chatSession) resume(ctx context.Context, id string) {
	if id == s.conv.ID() {
		fmt.Fprintf(s.app.Stderr, "(session %s is the current one)\n", id)
		return
	}
	old := s.conv.ID()
	res, err := s.sr.switchTo(ctx, id)
	if err != nil {
		fmt.Fprintf(s.app.Stderr, "rein: cannot resume %s: %s\n", termsafe.Line(id), termsafe.Line(s.ex.scrub(textclip.FirstLine(err.Error()))))
		return
	}
	if s.summarize != nil {
		s.summarize.Forget(old)
	}
	host.RestoreSummaries(res, s.summarize, res.Conversation)
	s.conv, s.context, s.note = res.Conversation, nil, ""
	var used *model.Usage
	if res.Snapshot != nil {
		used = &res.Snapshot.Info.Usage
	}
	s.resetUsage(used)
	s.pushStatus()
	s.announceResumed(res)
	fmt.Fprintf(s.app.Stderr, "(the previous session is kept as %s)\n", old)
}

// switchTo resumes session id (session.Resume) and makes it current,
// closing the current one's journal and log. Resume runs first, so a
// session that cannot be resumed leaves the current one open.
func (sr *sessionRun) switchTo(ctx context.Context, id string) (*session.Resumed, error) {
	res, err := session.Resume(ctx, sr.store, id, nil)
	if err != nil {
		return nil, err
	}
	if err := sr.detach(); err != nil {
		fmt.Fprintf(sr.app.Stderr, "rein: warning: %s\n", textclip.FirstLine(err.Error()))
	}
	if err := sr.attach(res.Conversation, res.Journal); err != nil {
		res.Journal.Close()
		return nil, err
	}
	sr.mu.Lock()
	sr.resumed = res
	sr.mu.Unlock()
	return res, nil
}

// announceResumed says which session was resumed (id, title, age) and
// replays its last exchanges, in the terminal UI as live output looks,
// in line mode as text on stderr.
func (s *chatSession) announceResumed(res *session.Resumed) {
	info := res.Snapshot.Info
	exs := s.lastExchanges(res.Conversation.Messages(), replayExchanges)
	title := ""
	if info.Title != "" {
		title = fmt.Sprintf(" %q", host.ClipRunes(info.Title, 60))
	}
	header := fmt.Sprintf("resumed session %s%s (updated %s)", info.ID, s.ex.scrub(title), age(time.Now(), info.Updated))
	switch len(exs) {
	case 0:
		header += "; it holds no exchange yet"
	case 1:
		header += "; its last exchange:"
	default:
		header += fmt.Sprintf("; its last %d exchanges:", len(exs))
	}
	if s.front != nil {
		s.front.send(tui.ReplayMsg{Header: header, Exchanges: exs})
		return
	}
	var b strings.Builder
	b.WriteString(termsafe.Line(header) + "\n")
	for _, ex := range exs {
		fmt.Fprintf(&b, "› %s\n", indent(termsafe.Text(ex.User)))
		for _, t := range ex.Tools {
			fmt.Fprintf(&b, "  → %s\n", termsafe.Line(t))
		}
		if a := strings.TrimSpace(ex.Answer); a != "" {
			b.WriteString(termsafe.Text(a) + "\n")
		}
	}
	io.WriteString(s.app.Stderr, b.String())
}

// lastExchanges groups msgs into exchanges — a user message with text,
// the calls and answers that followed — and returns the last n, redacted
// and bounded.
func (s *chatSession) lastExchanges(msgs []model.Message, n int) []tui.Exchange {
	var out []tui.Exchange
	for _, m := range msgs {
		switch m.Role {
		case model.RoleUser:
			// The user's own words: not the context hooks appended.
			if t := strings.TrimSpace(m.FirstText()); t != "" {
				out = append(out, tui.Exchange{User: s.ex.scrub(host.ClipRunes(t, replayAnswer))})
			}
		case model.RoleAssistant:
			if len(out) == 0 {
				out = append(out, tui.Exchange{})
			}
			ex := &out[len(out)-1]
			for _, c := range m.ToolCalls() {
				ex.Tools = append(ex.Tools, s.ex.scrub(host.ClipRunes(c.Name+" "+string(c.Args), replayTool)))
			}
			if t := strings.TrimSpace(m.Text()); t != "" {
				if ex.Answer != "" {
					ex.Answer += "\n\n"
				}
				ex.Answer += t
			}
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	for i := range out {
		out[i].Answer = s.ex.scrub(host.ClipRunes(out[i].Answer, replayAnswer))
	}
	return out
}

// age says how long ago t was, roughly.
func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
}
