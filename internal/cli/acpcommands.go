package cli

import (
	"io"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/acp"
)

// sendCommands tells the editor the custom commands (.rein/commands,
// .claude/commands, ~/.config/rein/commands) the user may type as
// "/name args".
func (sess *acpSession) sendCommands() {
	cmds := []acp.AvailableCommand{}
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
	sess.send(acp.SessionUpdate{SessionUpdate: acp.UpdateCommands, AvailableCommands: cmds})
}

// expandPrompt runs a prompt naming a custom command ("/name args") as
// rein run --command does: its text with the arguments filled in, its
// allowed-tools narrowing the turn's tools. Other prompts pass unchanged.
func (sess *acpSession) expandPrompt(text string, stderr io.Writer) (string, agent.RunOptions, error) {
	if !strings.HasPrefix(text, "/") {
		return text, agent.RunOptions{}, nil
	}
	name, args, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	c, ok := sess.cmds.Get(strings.TrimSpace(name))
	if !ok {
		return text, agent.RunOptions{}, nil // a path, or a word the model may read
	}
	expanded, err := expandCommand(stderr, c, strings.TrimSpace(args))
	if err != nil {
		return "", agent.RunOptions{}, acp.Errorf(acp.CodeInvalidParams, "%s", oneLine(err.Error()))
	}
	return expanded, commandOptions(stderr, c, sess.h.tools.Names()), nil
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
