package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/reinharness/rein/mcp"
)

// askURL shows a URL elicitation: the server's message, the full URL and
// the host it leads to. rein never opens it by itself: only when the user
// types o does it go to the browser (a link from a server is a link from
// a stranger), and only a well-formed web address is offered. The user
// then says whether they completed what the page asked.
func (c *consoleInteraction) askURL(q *questioner, req *mcp.Elicitation) error {
	fmt.Fprintf(c.out, "\nMCP server %s asks you to open a link:\n%s\n", termText(req.Server, 60), termBlock(req.Message, 2000, "  "))
	fmt.Fprintf(c.out, "  URL: %s\n", termText(req.URL, 2000))
	host := urlHost(req.URL)
	canOpen := host != "" && c.openURL != nil
	switch {
	case canOpen:
		fmt.Fprintf(c.out, "  (it leads to %s; rein opens it only if you type o)\n", termText(host, 200))
	case host != "":
		fmt.Fprintf(c.out, "  (it leads to %s; rein does not open links, open it yourself if you trust it)\n", termText(host, 200))
	default:
		fmt.Fprintln(c.out, "  (this is not a well-formed web address; do not open it unless you know what it is)")
	}
	prompt := "Did you complete it? [y]es, [n]o to decline (/cancel to cancel): "
	if canOpen {
		prompt = "[o]pen it in your browser, or: did you complete it? [y]es, [n]o to decline (/cancel to cancel): "
	}
	for range maxAnswerAttempts {
		in, err := q.ask(prompt)
		if err != nil {
			if errors.Is(err, errUnreadable) {
				continue
			}
			return err
		}
		switch strings.ToLower(in) {
		case "o", "open":
			if !canOpen {
				break
			}
			c.openLink(req.URL)
			prompt = "Did you complete it? [y]es, [n]o to decline (/cancel to cancel): "
			continue
		case "y", "yes":
			return nil
		case "", "n", "no":
			return errAnswerDecline
		}
		fmt.Fprintln(c.out, "  answer o, y or n")
	}
	return errNoValidAnswer
}

// openLink opens u in the browser and says what happened.
func (c *consoleInteraction) openLink(u string) {
	opened, err := c.openURL(u)
	switch {
	case err != nil:
		fmt.Fprintf(c.out, "  (the browser did not start: %s; open the URL yourself)\n", termText(err.Error(), 200))
	case !opened:
		fmt.Fprintln(c.out, "  (there is no browser here; open the URL yourself)")
	default:
		fmt.Fprintln(c.out, "  (opened in your browser)")
	}
}
