package cli

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/mcp"
)

// imageProtocol is how a terminal draws inline images.
type imageProtocol int

const (
	imagesNone  imageProtocol = iota
	imagesKitty               // the kitty graphics protocol (kitty, Ghostty)
	imagesITerm               // iTerm2's inline images (iTerm2, WezTerm)
)

// terminalImages says which image protocol the terminal on stdout speaks,
// from what the terminal announces about itself. Anything unsure is
// imagesNone: a terminal that does not know the sequence may print it as
// garbage. Inside tmux or screen the sequences would need wrapping that
// not every setup passes on, so icons are omitted there too.
func (a *App) terminalImages() imageProtocol {
	return imagesFor(isTerminal(a.Stdout), a.Getenv)
}

// imagesFor decides terminalImages for an output that is a terminal
// (tty) or not, given the environment.
func imagesFor(tty bool, getenv func(string) string) imageProtocol {
	if !tty || getenv("TMUX") != "" || strings.HasPrefix(getenv("TERM"), "screen") {
		return imagesNone
	}
	switch prog := getenv("TERM_PROGRAM"); {
	case getenv("TERM") == "xterm-kitty" || getenv("KITTY_WINDOW_ID") != "" || prog == "ghostty":
		return imagesKitty
	case prog == "iTerm.app" || prog == "WezTerm":
		return imagesITerm
	}
	return imagesNone
}

// printIcons draws the icons of the servers that have one, a line each,
// on the raw terminal writer w (the sequences would not survive
// termsafe). Nothing is printed where the terminal cannot draw them.
func printIcons(w io.Writer, proto imageProtocol, sts []mcp.Status) {
	if proto == imagesNone {
		return
	}
	first := true
	for _, st := range sts {
		if st.Icon == nil {
			continue
		}
		if first {
			fmt.Fprintln(w, "\nICONS")
			first = false
		}
		fmt.Fprintf(w, "%s %s\n", inlineImage(proto, st.Icon.PNG), termsafe.Line(st.Name))
	}
}

// inlineImage is the escape sequence that draws png two cells wide and one
// line high.
func inlineImage(proto imageProtocol, png []byte) string {
	data := base64.StdEncoding.EncodeToString(png)
	if proto == imagesITerm {
		return fmt.Sprintf("\x1b]1337;File=inline=1;size=%d;width=2;height=1;preserveAspectRatio=1:%s\a", len(png), data)
	}
	// kitty takes the data in chunks of at most 4096 bytes, m=1 on all
	// but the last; the first carries the keys.
	const chunk = 4096
	var b strings.Builder
	for i := 0; i < len(data); i += chunk {
		end := min(i+chunk, len(data))
		more := 0
		if end < len(data) {
			more = 1
		}
		if i == 0 {
			fmt.Fprintf(&b, "\x1b_Ga=T,f=100,c=2,r=1,q=2,m=%d;%s\x1b\\", more, data[i:end])
		} else {
			fmt.Fprintf(&b, "\x1b_Gm=%d;%s\x1b\\", more, data[i:end])
		}
	}
	return b.String()
}
