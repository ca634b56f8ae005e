package cli

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/reinharness/rein/mcp"
)

// TestConsoleElicitURLOpensOnlyOnKeypress: a URL elicitation's link goes
// to the browser only when the user types o, never by itself, and never
// for an address that is not a web address.
func TestConsoleElicitURLOpensOnlyOnKeypress(t *testing.T) {
	const link = "https://auth.example.com/consent"
	for _, tc := range []struct {
		name    string
		url     string
		answers []string
		action  string
		opened  []string
		output  string
	}{
		{"answered without opening", link, []string{"y"}, "accept", nil, "rein opens it only if you type o"},
		{"opened then completed", link, []string{"o", "y"}, "accept", []string{link}, "(opened in your browser)"},
		{"opened then declined", link, []string{"open", "n"}, "decline", []string{link}, "(opened in your browser)"},
		{"not a web address", "javascript:alert(1)", []string{"o", "n"}, "decline", nil, "answer o, y or n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, out := console(tc.answers...)
			var opened []string
			c.openURL = func(u string) (bool, error) {
				opened = append(opened, u)
				return true, nil
			}
			got, err := c.Elicit(context.Background(), &mcp.Elicitation{Server: "srv", Mode: "url", Message: "Grant access", URL: tc.url, ID: "e1"})
			if err != nil {
				t.Fatal(err)
			}
			if got.Action != tc.action || !slices.Equal(opened, tc.opened) {
				t.Errorf("action %s, opened %v; want %s, %v", got.Action, opened, tc.action, tc.opened)
			}
			if !strings.Contains(out.String(), tc.output) {
				t.Errorf("output lacks %q:\n%s", tc.output, out.String())
			}
		})
	}
	// Without a browser the user is told to open it themselves.
	c, out := console("o", "y")
	c.openURL = func(string) (bool, error) { return false, nil }
	if got, err := c.Elicit(context.Background(), &mcp.Elicitation{Server: "srv", Mode: "url", URL: link}); err != nil || got.Action != "accept" {
		t.Fatalf("%+v, %v", got, err)
	}
	if !strings.Contains(out.String(), "there is no browser here") {
		t.Errorf("output:\n%s", out.String())
	}
}
