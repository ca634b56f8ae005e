package mcp

import (
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// What `rein mcp list` says of tasks: how each task-capable tool is
// called, and which tools are not offered at all because they must run
// as tasks and rein cannot run tasks with that server.

// TaskUse says how rein calls a tool that lists execution.taskSupport.
type TaskUse string

// Task uses.
const (
	// TaskUseRequired: the tool must run as a task, and every call does.
	TaskUseRequired TaskUse = "required"
	// TaskUseAsTask: the tool may run as a task and rein asks for one
	// (2025-11-25, the server's tasks setting is "always").
	TaskUseAsTask TaskUse = "optional-as-task"
	// TaskUseServerDecides: the tool may run as a task; rein declares the
	// tasks extension and the server decides per call (2026-07-28).
	TaskUseServerDecides TaskUse = "optional-server-decides"
	// TaskUseDirect: the tool may run as a task but rein calls it
	// directly (tasks = "auto" in 2025-11-25, or "never").
	TaskUseDirect TaskUse = "optional-direct"
)

// HiddenTool is a tool the server lists that rein does not offer.
type HiddenTool struct {
	// Name is the server's name for the tool (made printable, clipped).
	Name string
	// Reason says why, as a clause ("it must be called as an MCP task,
	// and …").
	Reason string
}

// taskUse is how a tool of this support is called in sess ("" for a
// tool without task support).
func (s *server) taskUse(sess *session, support string) TaskUse {
	switch {
	case support == taskRequired:
		return TaskUseRequired
	case support != taskOptional:
		return ""
	case s.cfg.Tasks == TasksNever:
		return TaskUseDirect
	case sess != nil && sess.era >= ProtocolModern:
		return TaskUseServerDecides
	case s.wantsTask(support):
		return TaskUseAsTask
	}
	return TaskUseDirect
}

// hiddenForTasks reports whether a listed tool is withheld from the
// model: it requires a task, and rein cannot run tasks (tasksOK false,
// from canRunTasks). A call could only fail.
func (s *server) hiddenForTasks(t *sdk.Tool, tasksOK bool) bool {
	return !tasksOK && taskSupport(t) == taskRequired && s.exposes(t.Name)
}

// untaskableReason is the clause a hidden tool is reported with.
func untaskableReason(why string) string {
	return fmt.Sprintf("it must be called as an MCP task, and %s", why)
}

// taskStatus fills a Status's Tasks and Hidden from the server's current
// listing and session.
func (s *server) taskStatus(st *Status, sess *session, exposed []*mcpTool) {
	for _, t := range exposed {
		if use := s.taskUse(sess, t.task); use != "" {
			if st.Tasks == nil {
				st.Tasks = map[string]TaskUse{}
			}
			st.Tasks[t.spec.Name] = use
		}
	}
	s.mu.Lock()
	tools := s.listing.tools
	s.mu.Unlock()
	tasksOK, why := s.canRunTasks(sess)
	for _, t := range tools {
		if s.hiddenForTasks(t, tasksOK) {
			st.Hidden = append(st.Hidden, HiddenTool{Name: clip(printable(t.Name), 100), Reason: untaskableReason(why)})
		}
	}
}
