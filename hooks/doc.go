// Package hooks runs Claude-Code-compatible command hooks: shell commands
// configured per event (SessionStart, UserPromptSubmit, PreToolUse,
// PostToolUse, Notification, Stop, SubagentStop, PreCompact, SessionEnd)
// that receive Claude Code's JSON on stdin and steer a run with their exit
// code and their JSON output. A hook script written for Claude Code works
// unchanged: tool names and inputs are given in Claude Code's vocabulary
// where one maps (run_command is Bash, read_file is Read, …).
//
// Configuration comes in two forms, decoded into one Config: rein's TOML
// ([[hooks.PreToolUse]] tables, see GroupSpec) and the "hooks" object of
// Claude Code's .claude/settings.json (ParseSettings). Each matcher group
// carries its Layer; a Runner (see NewRunner) implements agent.Steering
// over a Config, and Transcript writes the JSONL transcript whose path the
// hooks receive.
//
// The package does not decide what to trust: the caller gives a Runner
// only the groups the user trusted (project hooks run nothing until then),
// and the agent loop limits what any verdict may do (see agent.Steering).
package hooks
