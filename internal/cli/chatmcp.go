package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/reinharness/rein/mcp"
)

// noServers is what /mcp and /prompt say when no MCP server runs.
const noServers = "(no MCP servers are running: add an [mcp_servers.NAME] table to config.toml or a .mcp.json to the workspace)"

// mcpStatus is /mcp: one line per configured server.
func (s *chatSession) mcpStatus(ctx context.Context) {
	w := s.app.Stderr
	if s.mcp == nil {
		fmt.Fprintln(w, noServers)
		return
	}
	var sts []mcp.Status
	if sig, _ := s.app.interruptible(ctx, func(ctx context.Context) { sts = s.mcp.m.Status(ctx) }); sig != nil {
		fmt.Fprintln(w, s.cancelled("cancelled"))
		return
	}
	for _, st := range sts {
		fmt.Fprintln(w, s.ex.scrub(statusLine(st)))
	}
}

// statusLine describes a server in one line: state, transport and era,
// what it offers, or why it is not connected.
func statusLine(st mcp.Status) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", st.Name, shownState(st))
	if st.State == mcp.StateConnected {
		fmt.Fprintf(&b, " over %s", st.Transport)
		if st.Era != "" {
			fmt.Fprintf(&b, ", protocol %s", st.Era)
		}
		fmt.Fprintf(&b, ", %s", plural(len(st.Tools), "tool"))
		if st.Prompts {
			b.WriteString(", prompts")
		}
		if st.Resources {
			b.WriteString(", resources")
		}
	}
	if st.Required {
		b.WriteString(" (required)")
	}
	if needsLogin(st) {
		return fmt.Sprintf("%s: %s — sign in with /mcp login %s", st.Name, stateNeedsLogin, st.Name)
	}
	if st.State != mcp.StateConnected && st.Err != nil {
		b.WriteString(" — " + termText(st.Err.Error(), 300))
	}
	return b.String()
}

// promptCommand is /prompt [SERVER [NAME [JSON]]]: without a name it
// lists prompts; with one it fetches the prompt and sends its text as the
// next message.
func (s *chatSession) promptCommand(ctx context.Context, rest string) (quit bool, code int) {
	w := s.app.Stderr
	if s.mcp == nil {
		fmt.Fprintln(w, noServers)
		return false, 0
	}
	server, name, args, err := parsePromptCommand(rest)
	if err != nil {
		fmt.Fprintf(w, "rein: %s\n", err)
		return false, 0
	}
	var text string
	sig, _ := s.app.interruptible(ctx, func(ctx context.Context) {
		if name == "" {
			err = s.listPrompts(ctx, server)
			return
		}
		text, err = s.fetchPrompt(ctx, server, name, args)
	})
	switch {
	case sig != nil:
		fmt.Fprintln(w, s.cancelled("cancelled"))
		return false, 0
	case err != nil:
		fmt.Fprintf(w, "rein: /prompt: %s\n", s.ex.scrub(termText(err.Error(), 600)))
		return false, 0
	case name == "":
		return false, 0
	}
	fmt.Fprintf(w, "(sending the prompt %s of %s as your message)\n", termText(name, 100), termText(server, 60))
	return s.turn(ctx, text, nil)
}

// parsePromptCommand splits "/prompt SERVER NAME {json}" after the
// command word. The JSON object's values must be strings.
func parsePromptCommand(rest string) (server, name string, args map[string]string, err error) {
	fields := strings.Fields(rest)
	if len(fields) > 0 {
		server = fields[0]
		rest = strings.TrimSpace(strings.TrimPrefix(rest, server))
	}
	if len(fields) > 1 {
		name = fields[1]
		rest = strings.TrimSpace(strings.TrimPrefix(rest, name))
	}
	if strings.HasPrefix(server, "{") || strings.HasPrefix(name, "{") {
		return "", "", nil, errors.New("name the server and the prompt before its arguments: /prompt SERVER NAME [JSON]")
	}
	if rest == "" {
		return server, name, nil, nil
	}
	var raw map[string]any
	dec := json.NewDecoder(strings.NewReader(rest))
	if err := dec.Decode(&raw); err != nil || raw == nil || dec.More() {
		return "", "", nil, fmt.Errorf(`the prompt's arguments must be one JSON object of strings, e.g. /prompt %s %s {"city":"Oslo"}`, server, name)
	}
	args = make(map[string]string, len(raw))
	for k, v := range raw {
		str, ok := v.(string)
		if !ok {
			return "", "", nil, fmt.Errorf("the prompt argument %q must be a string (prompt arguments are text); quote it: \"%s\": \"…\"", clipText(k, 60), clipText(k, 60))
		}
		args[k] = str
	}
	return server, name, args, nil
}

// listPrompts prints the prompts of one server, or of every connected
// server that offers prompts when server is "".
func (s *chatSession) listPrompts(ctx context.Context, server string) error {
	w := s.app.Stderr
	if server != "" {
		prompts, err := s.mcp.m.Prompts(ctx, server)
		if err != nil {
			return err
		}
		writePrompts(w, server, prompts)
		fmt.Fprintln(w, `Send one with /prompt SERVER NAME, arguments as JSON: {"name":"value"}.`)
		return nil
	}
	shown := 0
	for _, st := range s.mcp.m.Status(ctx) {
		if st.State != mcp.StateConnected || !st.Prompts {
			continue
		}
		prompts, err := s.mcp.m.Prompts(ctx, st.Name)
		if err != nil {
			fmt.Fprintf(w, "%s: %s\n", st.Name, s.ex.scrub(termText(err.Error(), 300)))
			continue
		}
		writePrompts(w, st.Name, prompts)
		shown++
	}
	if shown == 0 {
		fmt.Fprintln(w, "(no connected MCP server offers prompts; /mcp shows the servers)")
		return nil
	}
	fmt.Fprintln(w, `Send one with /prompt SERVER NAME, arguments as JSON: {"name":"value"}.`)
	return nil
}

// writePrompts lists a server's prompts with their arguments.
func writePrompts(w io.Writer, server string, prompts []mcp.Prompt) {
	fmt.Fprintf(w, "%s:\n", termText(server, 60))
	if len(prompts) == 0 {
		fmt.Fprintln(w, "  (no prompts)")
	}
	for _, p := range prompts {
		line := "  " + termText(p.Name, 100)
		if d := cmpOr(p.Description, p.Title); d != "" {
			line += " — " + termText(d, 200)
		}
		fmt.Fprintln(w, line)
		for _, a := range p.Arguments {
			line := "      " + termText(a.Name, 60)
			if a.Required {
				line += " (required)"
			}
			if a.Description != "" {
				line += ": " + termText(a.Description, 200)
			}
			fmt.Fprintln(w, line)
		}
	}
}

// cmpOr returns the first non-empty string.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// maxPromptText bounds the text of a prompt sent as a message, as
// maxChatLine bounds a typed one.
const maxPromptText = maxChatLine

// fetchPrompt gets a prompt filled in with args and returns the message
// to send: a note naming the prompt, then its messages' text.
func (s *chatSession) fetchPrompt(ctx context.Context, server, name string, args map[string]string) (string, error) {
	prompts, err := s.mcp.m.Prompts(ctx, server)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(prompts, func(p mcp.Prompt) bool { return p.Name == name })
	if i < 0 {
		names := make([]string, len(prompts))
		for j, p := range prompts {
			names[j] = p.Name
		}
		return "", fmt.Errorf("MCP server %s has no prompt %q; it offers: %s", server, clipText(name, 100), orDash(strings.Join(names, ", ")))
	}
	var missing []string
	for _, a := range prompts[i].Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			missing = append(missing, a.Name)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf(`the prompt %s needs the argument %s: /prompt %s %s {"%s":"…"}%s`,
			name, strings.Join(missing, ", "), server, name, missing[0], s.suggestions(ctx, server, name, missing[0], args))
	}
	res, err := s.mcp.m.GetPrompt(ctx, server, name, args)
	if err != nil {
		return "", err
	}
	return promptMessage(server, name, res)
}

// promptMessage renders a filled-in prompt as one user message. When the
// prompt holds assistant turns too, each turn is labelled with its role.
func promptMessage(server, name string, res *mcp.PromptResult) (string, error) {
	labelled := slices.ContainsFunc(res.Messages, func(m mcp.PromptMessage) bool { return m.Role != "user" })
	var b bytes.Buffer
	fmt.Fprintf(&b, "[Prompt %q from MCP server %s]\n", name, server)
	empty := true
	for _, m := range res.Messages {
		text := strings.TrimSpace(m.Text)
		if text == "" {
			continue
		}
		empty = false
		b.WriteString("\n")
		if labelled {
			fmt.Fprintf(&b, "[%s]\n", m.Role)
		}
		b.WriteString(text)
		b.WriteString("\n")
	}
	switch {
	case empty:
		return "", fmt.Errorf("the prompt %s of %s has no text to send", name, server)
	case b.Len() > maxPromptText:
		return "", fmt.Errorf("the prompt %s of %s is %d KiB; a message may be at most %d KiB", name, server, b.Len()>>10, maxPromptText>>10)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}
