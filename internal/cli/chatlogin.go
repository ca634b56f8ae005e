package cli

import (
	"context"
	"fmt"
	"strings"
)

// mcpCommand is /mcp [login NAME]: the servers' state, or a sign-in.
func (s *chatSession) mcpCommand(ctx context.Context, rest string) {
	fields := strings.Fields(rest)
	switch {
	case len(fields) == 0:
		s.mcpStatus(ctx)
	case fields[0] == "login" && len(fields) == 2:
		s.mcpLogin(ctx, fields[1])
	case fields[0] == "log" && len(fields) <= 2:
		s.mcpLog(ctx, strings.Join(fields[1:], ""))
	case (fields[0] == "subscribe" || fields[0] == "unsubscribe") && len(fields) == 3:
		s.mcpSubscribe(ctx, fields[0] == "subscribe", fields[1], fields[2])
	case fields[0] == "complete":
		s.mcpComplete(ctx, strings.TrimSpace(strings.TrimPrefix(rest, "complete")))
	default:
		fmt.Fprintln(s.app.Stderr, "rein: usage: /mcp, /mcp login NAME, /mcp log [LEVEL|off], /mcp subscribe|unsubscribe SERVER URI, /mcp complete SERVER PROMPT ARGUMENT [PREFIX] [JSON]")
	}
}

// mcpLogin is /mcp login NAME: it runs the sign-in flow (browser, loopback
// redirect) for one server, then has the chat's connection to it retried
// at once, so its tools join from the next message.
func (s *chatSession) mcpLogin(ctx context.Context, name string) {
	w := s.app.Stderr
	if s.mcp == nil {
		fmt.Fprintln(w, noServers)
		return
	}
	sc, err := s.mcp.m.Server(name)
	if err != nil {
		fmt.Fprintf(w, "rein: /mcp login: %s\n", termText(err.Error(), 300))
		return
	}
	var tools []string
	sig, _ := s.app.interruptible(ctx, func(ctx context.Context) {
		tools, err = s.app.signInWith(ctx, sc, "", s.mcp.m.Tokens(), defaultLoginTimeout)
	})
	switch {
	case sig != nil:
		fmt.Fprintln(w, s.cancelled("sign-in cancelled"))
		return
	case err != nil:
		fmt.Fprintf(w, "rein: /mcp login: %s\n", s.ex.scrub(termText(err.Error(), 600)))
		return
	}
	// The chat's own connection picks the new sign-in up now, so the
	// tools are offered with the next message.
	rctx, cancel := context.WithTimeout(ctx, sc.StartupTimeout)
	defer cancel()
	if err := s.mcp.m.Reauthorize(rctx, name); err != nil {
		fmt.Fprintf(w, "rein: signed in to %s, but reconnecting failed: %s\n", termText(name, 60), s.ex.scrub(termText(err.Error(), 300)))
		return
	}
	fmt.Fprintf(w, "Signed in to %s (%s); its tools join from your next message.\n", termText(name, 60), plural(len(tools), "tool"))
}
