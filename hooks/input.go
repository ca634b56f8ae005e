package hooks

import (
	"encoding/json"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/telemetry/redact"
)

// input is the JSON a hook reads on stdin: Claude Code's common fields
// and those of its event. rein adds rein_tool_name and rein_tool_input,
// the call in rein's own vocabulary.
type input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode,omitempty"`

	ToolName      string          `json:"tool_name,omitempty"`
	ToolInput     json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID     string          `json:"tool_use_id,omitempty"`
	ToolResponse  json.RawMessage `json:"tool_response,omitempty"`
	ReinToolName  string          `json:"rein_tool_name,omitempty"`
	ReinToolInput json.RawMessage `json:"rein_tool_input,omitempty"`

	Prompt *string `json:"prompt,omitempty"`
	// StopHookActive is always present for Stop and SubagentStop.
	StopHookActive *bool `json:"stop_hook_active,omitempty"`
	// LastAssistantMessage is the final answer the run would stop with.
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`

	Message          *string `json:"message,omitempty"`
	NotificationType string  `json:"notification_type,omitempty"`

	Source             string  `json:"source,omitempty"`
	Trigger            string  `json:"trigger,omitempty"`
	CustomInstructions *string `json:"custom_instructions,omitempty"`
	Reason             string  `json:"reason,omitempty"`
}

// subject is what a group's matcher is compared with at p: the tool's
// names for tool events, the source for SessionStart, the trigger for
// PreCompact, the reason for SessionEnd, the notification's type. Events
// Claude Code matches nothing for return nil (every group applies).
func subject(p agent.SteerPoint) []string {
	switch p.Event {
	case agent.SteerPreToolUse, agent.SteerPostToolUse:
		if p.Call == nil {
			return []string{""}
		}
		return []string{ClaudeName(p.Call.Name), p.Call.Name}
	case agent.SteerSessionStart, agent.SteerPreCompact, agent.SteerSessionEnd:
		return []string{p.Source}
	case agent.SteerNotification:
		return []string{notificationType(p)}
	}
	return nil
}

// notificationType is Claude Code's notification_type for the message:
// rein notifies only when it is about to ask for a permission.
func notificationType(agent.SteerPoint) string { return "permission_prompt" }

// buildInput returns the JSON written to the hooks of point p. Its
// texts (tool input and response, prompt, messages) are redacted as the
// event log is (telemetry/redact): a hook script that logs its stdin,
// or sends it somewhere, never holds a secret rein knows of. A hook that
// returns updatedInput edits the redacted input, so what it does not
// change stays redacted too.
func (r *Runner) buildInput(p agent.SteerPoint) ([]byte, error) {
	in := input{
		SessionID:      p.SessionID,
		TranscriptPath: r.transcriptPath(p.SessionID),
		Cwd:            r.cfg.Workspace,
		HookEventName:  string(p.Event),
		PermissionMode: "default",
	}
	switch p.Event {
	case agent.SteerPreToolUse, agent.SteerPostToolUse:
		if c := p.Call; c != nil {
			in.ToolName = ClaudeName(c.Name)
			in.ToolInput = redact.JSON(toClaudeInput(c.Name, c.Args, r.cfg.Workspace))
			in.ToolUseID = c.ID
			in.ReinToolName = c.Name
			in.ReinToolInput = redact.JSON(validJSON(c.Args))
			if p.Event == agent.SteerPostToolUse {
				in.ToolResponse = redact.JSON(toolResponse(in.ToolName, in.ToolInput, p.Result))
			}
		}
	case agent.SteerUserPromptSubmit:
		prompt := redact.String(p.Prompt)
		in.Prompt = &prompt
	case agent.SteerStop, agent.SteerSubagentStop:
		in.StopHookActive = &p.StopActive
		in.LastAssistantMessage = redact.String(p.Text)
	case agent.SteerNotification:
		msg := redact.String(p.Text)
		in.Message = &msg
		in.NotificationType = notificationType(p)
	case agent.SteerSessionStart:
		in.Source = p.Source
	case agent.SteerPreCompact:
		in.Trigger = p.Source
		empty := ""
		in.CustomInstructions = &empty
	case agent.SteerSessionEnd:
		in.Reason = p.Source
	}
	return json.Marshal(in)
}

// toolResponse is PostToolUse's tool_response: the result's text and
// error flag, with the fields Claude Code's tools report where rein's
// result has them (Bash's stdout, a file tool's filePath and success).
func toolResponse(claudeName string, claudeInput json.RawMessage, res *model.ToolResult) json.RawMessage {
	out := map[string]any{"content": "", "is_error": false}
	if res != nil {
		out["content"] = res.Content
		out["is_error"] = res.IsError
	}
	switch claudeName {
	case "Bash":
		out["stdout"], out["stderr"], out["interrupted"], out["isImage"] = out["content"], "", out["is_error"], false
	case "Write", "Edit", "Read":
		var in struct {
			FilePath string `json:"file_path"`
		}
		_ = json.Unmarshal(claudeInput, &in)
		out["filePath"], out["success"] = in.FilePath, out["is_error"] == false
	}
	data, _ := json.Marshal(out)
	return data
}
