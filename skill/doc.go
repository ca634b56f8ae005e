// Package skill loads skills — folders of instructions and files a model
// can draw on for a kind of task — discovers them in layered directories,
// discloses them to the model progressively, and activates them.
//
// # Formats
//
// A skill is a folder named after the skill, in one of two formats:
//
//   - The Agent Skills standard (https://agentskills.io/specification):
//     SKILL.md, YAML front matter between "---" lines followed by Markdown
//     instructions, plus any files (scripts/, references/, assets/, …).
//     The front matter's name (1–64 lowercase letters, digits and single
//     hyphens, not at either end, equal to the folder name) and description
//     (1–1024 characters) are required; license, compatibility (≤ 500
//     characters), metadata (text values) and allowed-tools (a
//     space-separated string or a list) are optional. Keys the standard
//     does not define, such as Claude Code's, are ignored.
//   - rein's manifest, skill.json: name, description and system_prompt_file
//     (the instructions), optionally context_file (JSON, shown to the model
//     as a context section while the skill is active), allowed_tools,
//     license, metadata and mcp_servers — servers in the .mcp.json shape,
//     kept unparsed in Skill.MCPServers; Skill.MCPJSON feeds them to
//     mcp.ParseMCPJSON (this package does not import mcp, whose tests
//     import the agent).
//
// Everything read is bounded: SKILL.md and prompt files at
// MaxSkillFileBytes, front matter at MaxFrontMatterBytes, skill.json at
// MaxManifestBytes, the file listing at MaxFiles entries and MaxDepth
// levels, without following symbolic links.
//
// # Discovery
//
// Discover reads Sources in order; DefaultSources gives rein's:
// ~/.config/rein/skills (the user layer), then the workspace's
// .agents/skills, .claude/skills and .rein/skills (the project layer). A
// skill shadows an earlier one of the same name, with one warning.
// Discovery never fails and never skips silently: a malformed skill is
// left out with exactly one Problem naming the file and the field, and
// flaws that do not stop a skill (a file left out of its listing) are
// warnings.
//
// # Disclosure
//
// Only names and descriptions go into the system prompt (PromptSection),
// in a section capped at 2 % of the context window (DisclosureBudget). The
// skill tool (NewTool) returns a skill's instructions and its file listing
// on demand; the model reads the files with read_file through
// skill://<name>/<path> paths (Path, ParsePath), which the wiring serves
// with Open.
//
// # Activation
//
// Activate builds a skill's system prompt section ("# Skill: <name>"),
// its context section ("# Skill Context: <name>", at most
// MaxContextSectionBytes — past it activation fails; nothing is
// truncated) and its Go tools under <skill>__<tool> names (ExposeTool). A
// Registry tracks the active skills of an agent over a base tool set:
// activating adds a skill's tools (shadowing a base tool of the same
// name) and starts the MCP servers it binds (RegistryOptions.Servers),
// deactivating stops them and restores what the tools shadowed, and
// allowed-tools narrows the set (Narrow). Registry.RunOptions hands the
// active skills' sections and tools to one agent run (agent.RunOptions
// AppendSystem and Tools), so skills change between runs without the
// Agent being rebuilt. This package imports agent; agent never imports it.
//
// # Security
//
// Project skills are input a repository chose, as untrusted as the rest of
// it: their folders are opened through an os.Root on the workspace, so no
// symbolic link leads out of it; every file a skill names or the model
// asks for is opened through an os.Root on the skill folder (Open refuses
// "..", absolute paths, links leading out, and anything not a regular
// file); text shown to the model or a terminal has its control characters
// escaped. A skill grants nothing: allowed-tools can only narrow the tools
// the policy and configuration already offer, never widen them (it is not
// Claude Code's pre-approval), and a skill's scripts run only through
// run_command, under the same policy and sandbox as any command. A
// skill's MCP servers are as untrusted as a project's .mcp.json and
// should go through the same trust prompt.
package skill
