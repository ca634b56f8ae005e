package cli

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/reinharness/rein/mcp"
)

func TestPrintIcons(t *testing.T) {
	png := bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 2000) // 8000 bytes: kitty needs chunks
	sts := []mcp.Status{{Name: "plain"}, {Name: "iconic", Icon: &mcp.Icon{PNG: png, Width: 16, Height: 16}}}
	var none bytes.Buffer
	printIcons(&none, imagesNone, sts)
	if none.Len() != 0 {
		t.Errorf("icons printed for a terminal without images: %q", none.String())
	}
	var kitty bytes.Buffer
	printIcons(&kitty, imagesKitty, sts)
	out := kitty.String()
	data := base64.StdEncoding.EncodeToString(png)
	if !strings.HasPrefix(out, "\nICONS\n\x1b_Ga=T,f=100,c=2,r=1,q=2,m=1;"+data[:4096]+"\x1b\\") ||
		!strings.Contains(out, "\x1b_Gm=0;"+data[8192:]+"\x1b\\ iconic\n") || strings.Contains(out, "plain") {
		t.Errorf("kitty output = %q", clipText(out, 300))
	}
	var got strings.Builder
	for _, part := range strings.Split(out, "\x1b\\") {
		if _, chunk, ok := strings.Cut(part, ";"); ok {
			got.WriteString(chunk)
		}
	}
	if got.String() != data {
		t.Error("the kitty chunks do not add up to the image")
	}
	var iterm bytes.Buffer
	printIcons(&iterm, imagesITerm, sts)
	if want := "\x1b]1337;File=inline=1;size=8000;width=2;height=1;preserveAspectRatio=1:" + data + "\a iconic\n"; !strings.HasSuffix(iterm.String(), want) {
		t.Errorf("iTerm output = %q", clipText(iterm.String(), 300))
	}
}

// TestTerminalImages: icons only on a terminal that announces an image
// protocol, never through a multiplexer or on a pipe.
func TestTerminalImages(t *testing.T) {
	for _, tc := range []struct {
		tty  bool
		env  map[string]string
		want imageProtocol
	}{
		{true, map[string]string{"TERM": "xterm-kitty"}, imagesKitty},
		{true, map[string]string{"TERM_PROGRAM": "ghostty"}, imagesKitty},
		{true, map[string]string{"TERM_PROGRAM": "iTerm.app"}, imagesITerm},
		{true, map[string]string{"TERM_PROGRAM": "WezTerm"}, imagesITerm},
		{true, map[string]string{"TERM": "xterm-256color"}, imagesNone},
		{true, map[string]string{"TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"}, imagesNone},
		{true, map[string]string{"TERM": "screen-256color", "TERM_PROGRAM": "iTerm.app"}, imagesNone},
		{false, map[string]string{"TERM": "xterm-kitty"}, imagesNone},
	} {
		if got := imagesFor(tc.tty, func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("tty %v, env %v: %v, want %v", tc.tty, tc.env, got, tc.want)
		}
	}
	a := &App{Stdout: &bytes.Buffer{}, Getenv: func(string) string { return "xterm-kitty" }}
	if a.terminalImages() != imagesNone {
		t.Error("a buffer was taken for an image terminal")
	}
}
