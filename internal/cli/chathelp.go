package cli

// chatHelp is what /help prints in chat.
const chatHelp = `Type a message and press Enter. @path in a message attaches a
workspace file; !command runs a command (through the policy and the
sandbox) and adds it and its output to your next message. Commands:
  /help   show this help
  /model  show the model; /model NAME switches to NAME for the next turns
  /resume pick a stored session of this workspace and continue it;
          /resume N or /resume ID picks directly
  /init   have the model survey the repository and write AGENTS.md or CLAUDE.md
  /diff   show the files changed in this session as a unified diff
  /undo   undo the changes of the last tool call that changed files, also
          of an earlier run of the session; /undo N the last N calls
  /compact summarize the conversation so far to free context
  /clear  start a new conversation and session (changes stay)
  /usage  show the tokens used in this session
  /cost   show the session's cost ([model] input_price, output_price)
  /status show the model, preset, session, context, MCP servers, instructions
  /mode   show the permission mode; /mode NAME switches to read-only,
          editor, full or plan (Shift+Tab cycles them in the chat UI);
          /mode accept carries out the plan made in plan mode
  /expand show in full the pastes of your last message, which the chat UI
          shows as [pasted N lines] (the model got them whole)
  /permissions  list what was allowed "always for this project";
          /permissions rm N revokes grant N
  /memory list the memories seen here; /memory search Q, rm ID, edit ID TEXT
  #TEXT   save TEXT to memory (then w = this workspace, u = every workspace)
  /mcp    show the MCP servers and their state; /mcp login NAME signs in to one;
          /mcp log LEVEL|off, subscribe SERVER URI, complete SERVER PROMPT ARG
  /prompt list the prompts of the MCP servers; /prompt SERVER NAME [JSON]
          sends one as your message (JSON: its arguments, e.g. {"city":"Oslo"})
  /exit   quit (or press Ctrl-D)
  /skills list the installed skills
  /NAME [ARGS]  run a custom command (.rein/commands, .claude/commands or
          ~/.config/rein/commands; listed below when there are any), or
          activate the skill NAME for ARGS (or for your next message)
Ctrl-C cancels the answer in progress.`
