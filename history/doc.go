// Package history holds rein's context strategies — what part of a long
// conversation is sent on each model call — and the loader of instruction
// files (AGENTS.md, CLAUDE.md and their imports). Long-term recall across
// sessions is package memory.
//
// Three strategies implement agent.ContextStrategy:
//
//   - Full sends the whole history;
//   - Window sends the newest messages that fit a token budget and an
//     optional message cap;
//   - Summarize folds older turns into a summary written by the model
//     itself once the history reaches a fraction of the budget, and keeps
//     the newer turns verbatim, falling back to the window when a summary
//     cannot be had.
//
// All three keep the invariants of DESIGN §4. The system prompt and the
// instructions never enter the history (the agent sends them as
// Request.System on every call), so no strategy can drop them. Cuts fall
// only in front of a non-tool message, so a tool result always travels
// with the assistant message that made the call. Whatever was left out is
// marked in the request with a line the model can read, and reported to
// the agent as a CompactionInfo.
package history
