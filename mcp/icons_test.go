package mcp

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// pngOf encodes a w×h image.
func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func dataURI(mime string, data []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

func TestServerIcon(t *testing.T) {
	small := pngOf(t, 16, 16)
	for _, tc := range []struct {
		name  string
		icons []sdk.Icon
		want  int // width of the icon chosen, 0 for none
	}{
		{"none", nil, 0},
		{"remote only", []sdk.Icon{{Source: "https://example.com/icon.png"}}, 0},
		{"embedded", []sdk.Icon{{Source: "https://example.com/icon.png"}, {Source: dataURI("image/png", small)}}, 16},
		{"unthemed preferred", []sdk.Icon{{Source: dataURI("image/png", pngOf(t, 8, 8)), Theme: "dark"}, {Source: dataURI("image/png", small)}}, 16},
		{"themed when alone", []sdk.Icon{{Source: dataURI("image/png", pngOf(t, 8, 8)), Theme: "dark"}}, 8},
		{"svg skipped", []sdk.Icon{{Source: dataURI("image/svg+xml", []byte("<svg/>"))}}, 0},
		{"png that is not", []sdk.Icon{{Source: dataURI("image/png", []byte("\x89PNG not really"))}}, 0},
		{"truncated png", []sdk.Icon{{Source: dataURI("image/png", small[:len(small)-12])}}, 0},
		{"too large", []sdk.Icon{{Source: dataURI("image/png", pngOf(t, 1024, 4))}}, 0},
		{"bad base64", []sdk.Icon{{Source: "data:image/png;base64,!!!"}}, 0},
		{"mime from field", []sdk.Icon{{Source: "data:;base64," + base64.StdEncoding.EncodeToString(small), MIMEType: "image/png"}}, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := serverIcon(&sdk.Implementation{Name: "x", Icons: tc.icons})
			switch {
			case tc.want == 0 && got != nil:
				t.Errorf("icon %dx%d chosen, want none", got.Width, got.Height)
			case tc.want != 0 && (got == nil || got.Width != tc.want):
				t.Errorf("icon = %+v, want width %d", got, tc.want)
			}
		})
	}
}

// FuzzDecodeIcon: whatever a server puts in an icon, decoding neither
// panics nor returns what it did not check.
func FuzzDecodeIcon(f *testing.F) {
	f.Add(dataURI("image/png", pngOf(f, 2, 2)), "")
	f.Add("data:image/png;base64,iVBORw0KGgo=", "image/png")
	f.Add("data:;base64,", "image/png")
	f.Add("https://example.com/x.png", "")
	f.Fuzz(func(t *testing.T, src, mime string) {
		ic := decodeIcon(sdk.Icon{Source: src, MIMEType: mime})
		if ic == nil {
			return
		}
		if len(ic.PNG) > maxIconBytes || ic.Width > maxIconSide || ic.Height > maxIconSide || ic.Width <= 0 {
			t.Fatalf("icon out of bounds: %d bytes, %dx%d", len(ic.PNG), ic.Width, ic.Height)
		}
		if _, err := png.Decode(bytes.NewReader(ic.PNG)); err != nil {
			t.Fatalf("an icon that does not decode was returned: %v", err)
		}
	})
}

// iconServer is a TypeScript SDK (v1) stdio server that names two
// icons: one at a web address, one embedded.
const iconServer = `
const sdk = process.argv[2];
const { McpServer } = require(sdk + "/dist/cjs/server/mcp.js");
const { StdioServerTransport } = require(sdk + "/dist/cjs/server/stdio.js");
const s = new McpServer({ name: "iconic", version: "1.0.0", icons: [
  { src: "https://example.com/icon.png", mimeType: "image/png" },
  { src: process.argv[3], mimeType: "image/png", sizes: ["16x16"] },
] });
s.registerTool("noop", { description: "does nothing" }, async () => ({ content: [{ type: "text", text: "ok" }] }));
s.connect(new StdioServerTransport());
`

// TestIconFromTypeScriptServer: the icon a real SDK server sends in its
// serverInfo reaches Status.
func TestIconFromTypeScriptServer(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	sdkDir := filepath.Dir(peer(t, "node_modules/@modelcontextprotocol/sdk/package.json"))
	script := filepath.Join(t.TempDir(), "icons.cjs")
	if err := os.WriteFile(script, []byte(iconServer), 0o600); err != nil {
		t.Fatal(err)
	}
	icon := pngOf(t, 16, 16)
	m, _ := newManager(t, Config{Servers: []ServerConfig{{Name: "iconic", Command: nodeBin(t), Args: []string{script, sdkDir, dataURI("image/png", icon)}}}})
	mustTools(t, ctx, m)
	st := m.Status(ctx)[0]
	if st.Icon == nil || !bytes.Equal(st.Icon.PNG, icon) || st.Icon.Width != 16 {
		t.Fatalf("status = %+v, want the embedded icon", st)
	}
	if !strings.HasPrefix(string(st.Icon.PNG), "\x89PNG") {
		t.Error("not PNG data")
	}
}
