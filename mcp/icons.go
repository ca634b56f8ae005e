package mcp

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Icon is a server's icon, ready to draw: PNG data the server embedded
// in a data: URI, checked to decode. Icons at http(s) addresses are not
// fetched: listing servers would tell each icon's host that, and when,
// the user looked, and could stall on a slow host.
type Icon struct {
	PNG           []byte
	Width, Height int
	Theme         string // "light", "dark" or "" (either)
}

// Bounds on an icon rein draws: a terminal shows it a line high, so
// anything larger is a waste or an attack.
const (
	maxIconBytes = 64 << 10
	maxIconSide  = 512
)

// serverIcon picks the icon to show for a server: the first embedded PNG
// that decodes within the bounds, preferring one without a theme. nil
// when the server has none rein can draw.
func serverIcon(info *sdk.Implementation) *Icon {
	if info == nil {
		return nil
	}
	var themed *Icon
	for _, ic := range info.Icons {
		got := decodeIcon(ic)
		if got == nil {
			continue
		}
		if got.Theme == "" {
			return got
		}
		if themed == nil {
			themed = got
		}
	}
	return themed
}

// decodeIcon reads an icon from a base64 data: URI of a PNG, or returns
// nil.
func decodeIcon(ic sdk.Icon) *Icon {
	const prefix = "data:"
	src := ic.Source
	if !strings.HasPrefix(src, prefix) || len(src) > maxIconBytes*4/3+200 {
		return nil
	}
	head, data, ok := strings.Cut(src[len(prefix):], ",")
	if !ok || !strings.HasSuffix(head, ";base64") {
		return nil
	}
	mime := strings.TrimSuffix(head, ";base64")
	if mime == "" {
		mime = ic.MIMEType
	}
	if mime != "image/png" {
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(raw) > maxIconBytes {
		return nil
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxIconSide || cfg.Height > maxIconSide {
		return nil
	}
	// The whole image must decode: a terminal handed a corrupt PNG may
	// draw garbage or stop drawing.
	if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
		return nil
	}
	return &Icon{PNG: raw, Width: cfg.Width, Height: cfg.Height, Theme: string(ic.Theme)}
}
