package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// bangCommand is !command: the user's own command, run as a run_command
// call — decided by the policy engine and, when it asks, the approver,
// exactly as a call of the model's would be, and run by the tool in the
// workspace's sandbox. Its command line and output are added to the
// next message, so the model sees what the user saw.
func (s *chatSession) bangCommand(ctx context.Context, line string) {
	w := s.app.Stderr
	if line == "" {
		fmt.Fprintln(w, "rein: !command runs a command, e.g. !go test ./...")
		return
	}
	t, ok := s.tools.Get(commandTool)
	if !ok || s.decider == nil {
		fmt.Fprintf(w, "rein: !command needs the %s tool, which this session does not have\n", commandTool)
		return
	}
	args, _ := json.Marshal(map[string]string{"command": line})
	if s.front != nil {
		s.front.turnStarted()
		defer s.turnEnded()
	}
	var (
		res    *tool.Result
		denied string
	)
	sig, _ := s.app.interruptible(ctx, func(ctx context.Context) {
		call := policy.Call{ID: nextUserCallID(), Spec: t.Spec(), Args: args}
		d, err := s.decideUserCall(ctx, call)
		if err != nil || d.Action != policy.Allow {
			denied = d.Reason
			if err != nil {
				denied = err.Error()
			}
			return
		}
		ctx = tool.WithCallID(ctx, call.ID)
		res = tool.Invoke(ctx, t, args, tool.InvokeOptions{})
	})
	switch {
	case sig != nil:
		fmt.Fprintln(w, s.cancelled("command cancelled; nothing was added to the conversation"))
		return
	case res == nil:
		if denied == "" {
			denied = "denied"
		}
		fmt.Fprintf(w, "rein: !%s was not run: %s\n", termsafe.Line(line), termsafe.Line(s.ex.scrub(textclip.FirstLine(denied))))
		return
	}
	out := s.ex.scrub(res.Content)
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	io.WriteString(s.app.Stdout, termsafe.Text("$ "+s.ex.scrub(line)+"\n"+out))
	s.context = append(s.context, fmt.Sprintf("[The user ran a command in the workspace; its command line and result follow.]\n$ %s\n%s", line, fenced(res.Content)))
	fmt.Fprintln(w, "(added the command and its output to the conversation: the model sees them with your next message)")
}

// decideUserCall decides a call the user asked for as the agent decides
// the model's: the engine's verdict, an Ask resolved by the approver
// (never for a hard denial), no approver meaning no.
func (s *chatSession) decideUserCall(ctx context.Context, c policy.Call) (policy.Decision, error) {
	d := s.decider.Decide(ctx, c)
	if d.Action != policy.Ask {
		return d, nil
	}
	if d.Hard || s.approver == nil {
		d.Action = policy.Deny
		return d, nil
	}
	return s.approver.Approve(ctx, c, d)
}

// userCalls numbers the calls the user makes (!command), for their ids.
var userCalls atomic.Int64

func nextUserCallID() string { return fmt.Sprintf("user_%d", userCalls.Add(1)) }

// maxAttachBytes caps one @path attachment; a longer file is cut with a
// note, so one @ cannot fill the context window.
const maxAttachBytes = 256 << 10

// maxAttachments bounds the @paths of one message.
const maxAttachments = 20

// attachFiles expands the @path words of a message: each names a
// workspace file whose text is attached to the message. The file is read
// through the workspace (confined to it; devices refused), checked by
// the policy as a read_file call would be, cut at maxAttachBytes, and
// refused when binary. A word that names no file stays text (an
// @mention); a file that cannot be attached stops the message (ok
// false) so the user can fix it rather than send it without.
func (s *chatSession) attachFiles(msg string) (string, bool) {
	paths := attachPaths(msg)
	if len(paths) == 0 {
		return msg, true
	}
	if len(paths) > maxAttachments {
		fmt.Fprintf(s.app.Stderr, "rein: a message attaches at most %d files (this one names %d); the message was not sent\n", maxAttachments, len(paths))
		return "", false
	}
	var b strings.Builder
	b.WriteString(msg)
	for _, p := range paths {
		text, note, err := s.readAttachment(p)
		if errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(s.app.Stderr, "(@%s is no file of the workspace; it is sent as text)\n", termsafe.Line(p))
			continue
		}
		if err != nil {
			fmt.Fprintf(s.app.Stderr, "rein: cannot attach @%s: %s; the message was not sent\n", termsafe.Line(p), termsafe.Line(s.ex.scrub(textclip.FirstLine(err.Error()))))
			return "", false
		}
		fmt.Fprintf(&b, "\n\n[Attached by the user: %s%s]\n%s", p, note, fenced(text))
		fmt.Fprintf(s.app.Stderr, "(attached %s%s)\n", termsafe.Line(p), note)
	}
	return b.String(), true
}

// readAttachment reads one @path; note describes its size and any cut.
func (s *chatSession) readAttachment(p string) (text, note string, err error) {
	if s.decider != nil {
		if spec, ok := s.tools.Spec("read_file"); ok {
			args, _ := json.Marshal(map[string]string{"path": p})
			if d := s.decider.Decide(context.Background(), policy.Call{ID: nextUserCallID(), Spec: spec, Args: args}); d.Action == policy.Deny {
				return "", "", fmt.Errorf("the policy does not allow reading it (%s)", d.Reason)
			}
		}
	}
	f, err := s.ws.OpenFile(p)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	limit := s.attachCap()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", "", err
	}
	if workspace.IsBinary(data) {
		return "", "", errors.New("it is a binary file; only text can be attached")
	}
	note = ", " + plural(len(data), "byte")
	if len(data) > limit {
		data = data[:limit]
		// Do not end inside a UTF-8 sequence.
		for i := 0; i < utf8.UTFMax-1 && len(data) > 0; i++ {
			if r, size := utf8.DecodeLastRune(data); r != utf8.RuneError || size > 1 {
				break
			}
			data = data[:len(data)-1]
		}
		note = fmt.Sprintf(", cut to its first %d KiB", limit>>10)
	}
	return string(data), note, nil
}

// attachCap is the size an attachment is cut at: maxAttachBytes, or
// less when the context window is small — about half of it, at four
// bytes a token — so one file cannot crowd out the conversation.
func (s *chatSession) attachCap() int {
	limit := maxAttachBytes
	if w := s.cfg.Model.ContextWindow; w > 0 && w*2 < limit {
		limit = max(w*2, 4<<10)
	}
	return limit
}

// attachPaths returns the distinct @path words of msg, in order: an @
// at the start of a word followed by a path, trailing punctuation
// dropped. "a@b" (an address) and a lone "@" are not paths.
func attachPaths(msg string) []string {
	var out []string
	seen := map[string]bool{}
	for _, word := range strings.Fields(msg) {
		p, ok := strings.CutPrefix(word, "@")
		if !ok {
			continue
		}
		p = strings.TrimRight(p, ".,;:!?)]}'\"")
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// fenced wraps text in a code fence longer than any backtick run in it,
// so the content cannot close the fence early.
func fenced(text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return fence + "\n" + text + fence
}
