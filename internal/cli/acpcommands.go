package cli

import (
	"context"
	"io"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/acp"
	"github.com/reinharness/rein/internal/textclip"
)

// sendCommands tells the editor the custom commands (.rein/commands,
// .claude/commands, ~/.config/rein/commands) and the skills the user may
// type as "/name args". A custom command shadows a skill of its name, as
// in chat.
func (sess *acpSession) sendCommands() {
	cmds := []acp.AvailableCommand{}
	defer func() {
		sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateCommands, AvailableCommands: cmds})
	}()
	if sess.h != nil && sess.h.skills != nil {
		for _, sk := range sess.h.skills.Skills() {
			if _, shadowed := sess.cmds.Get(sk.Name); shadowed {
				continue
			}
			cmds = append(cmds, acp.AvailableCommand{
				Name:        sk.Name,
				Description: "skill: " + clipText(strings.Join(strings.Fields(sk.Description), " "), 200),
				Input:       &acp.CommandInput{Hint: "what to do with the skill"},
			})
		}
	}
	for _, c := range sess.cmds.Commands() {
		ac := acp.AvailableCommand{Name: c.Name, Description: c.Description}
		if ac.Description == "" {
			ac.Description = "custom command"
		}
		if c.ArgumentHint != "" {
			ac.Input = &acp.CommandInput{Hint: c.ArgumentHint}
		}
		cmds = append(cmds, ac)
	}
}

// expandPrompt runs a prompt naming a custom command ("/name args") as
// rein run --command does: its text with the arguments filled in, its
// allowed-tools narrowing the turn's tools. One naming a skill runs the
// arguments as the message with the skill active (its tools and servers
// added; release ends them after the turn). Other prompts pass unchanged.
func (sess *acpSession) expandPrompt(ctx context.Context, text string, stderr io.Writer) (_ string, _ agent.RunOptions, release func(), _ error) {
	if !strings.HasPrefix(text, "/") {
		return text, agent.RunOptions{}, nil, nil
	}
	name, args, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	name, args = strings.TrimSpace(name), strings.TrimSpace(args)
	if c, ok := sess.cmds.Get(name); ok {
		expanded, err := expandCommand(stderr, c, args)
		if err != nil {
			return "", agent.RunOptions{}, nil, acp.Errorf(acp.CodeInvalidParams, "%s", textclip.FirstLine(err.Error()))
		}
		return expanded, commandOptions(stderr, c, sess.h.tools.Names()), nil, nil
	}
	if sess.h.skills != nil {
		if sk, ok := sess.h.skills.Get(name); ok {
			opts, release, err := skillOptions(ctx, stderr, sk, sess.h.system, sess.h.tools, sess.h.skillServers)
			if err != nil {
				return "", agent.RunOptions{}, nil, acp.Errorf(acp.CodeInvalidParams, "skill %s: %s", sk.Name, textclip.FirstLine(err.Error()))
			}
			if args == "" {
				args = "Use the " + sk.Name + " skill."
			}
			return args, opts, release, nil
		}
	}
	return text, agent.RunOptions{}, nil, nil // a path, or a word the model may read
}

// toolOutput streams a running tool's output (run_command's, as it comes)
// as the call's content. ACP replaces a call's content with each update,
// so the output so far is sent, its last maxToolText bytes.
func (sess *acpSession) toolOutput(callID, _, text string) {
	sess.outMu.Lock()
	buf := sess.outputs[callID] + text
	if len(buf) > maxToolText {
		buf = buf[len(buf)-maxToolText:]
	}
	sess.outputs[callID] = buf
	sess.outMu.Unlock()
	sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateToolCallUpdate, ToolCall: acp.ToolCall{
		ToolCallID: callID, Status: acp.StatusInProgress,
		Content: []acp.ToolCallContent{{Type: "content", Content: ptr(acp.TextBlock(buf))}},
	}})
}

// outputDone forgets a finished call's output.
func (sess *acpSession) outputDone(callID string) {
	sess.outMu.Lock()
	delete(sess.outputs, callID)
	sess.outMu.Unlock()
}
