package web

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// page is a fetched body as text.
type page struct {
	text      string
	mediaType string
	converted bool // HTML converted to markdown
}

// render turns a body into text by its media type (sniffed when the
// server names none): HTML becomes markdown, text and text-like types
// stay as they are, anything else is refused.
func render(resp *http.Response, body []byte) (*page, error) {
	mt := mediaType(resp.Header.Get("Content-Type"), body)
	body = toUTF8(resp.Header.Get("Content-Type"), mt, body)
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return &page{text: toMarkdown(body, resp.Request.URL.String()), mediaType: mt, converted: true}, nil
	case textual(mt):
		if binary(body) {
			return nil, fmt.Errorf("the content is labelled %s but is binary; web_fetch returns text only", mt)
		}
		return &page{text: strings.ToValidUTF8(string(body), "\uFFFD"), mediaType: mt}, nil
	}
	return nil, fmt.Errorf("the content is %s, which is not text; web_fetch returns text only (HTML, plain text, JSON, XML, …)", mt)
}

// toUTF8 transcodes a body in another charset to UTF-8: the charset the
// Content-Type names, or for HTML the one its BOM or <meta> declares (the
// HTML5 sniffing rules). UTF-8, an unknown label or a failed decoding
// leave the body as it is (invalid bytes then become U+FFFD).
func toUTF8(contentType, mt string, body []byte) []byte {
	var enc encoding.Encoding
	if mt == "text/html" || mt == "application/xhtml+xml" {
		e, name, _ := charset.DetermineEncoding(body[:min(len(body), 4096)], contentType)
		if name == "utf-8" {
			return body
		}
		enc = e
	} else {
		_, params, err := mime.ParseMediaType(contentType)
		if err != nil || params["charset"] == "" {
			return body
		}
		e, name := charset.Lookup(params["charset"])
		if e == nil || name == "utf-8" {
			return body
		}
		enc = e
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body
	}
	return out
}

// mediaType is the declared type, lower-cased without parameters, or the
// sniffed one.
func mediaType(header string, body []byte) string {
	if header != "" {
		if mt, _, err := mime.ParseMediaType(header); err == nil {
			return strings.ToLower(mt)
		}
	}
	mt, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	return mt
}

// textual reports the types returned as they are.
func textual(mt string) bool {
	if strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/ecmascript",
		"application/x-javascript", "application/yaml", "application/x-yaml", "application/toml",
		"application/x-sh", "application/sql", "application/graphql", "application/x-ndjson":
		return true
	}
	return false
}

// binary reports a body that is not text whatever its label says: NUL
// bytes, or mostly invalid UTF-8, in its first kilobytes.
func binary(body []byte) bool {
	head := body[:min(len(body), 8192)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	bad := 0
	for len(head) > 0 {
		r, n := utf8.DecodeRune(head)
		if r == utf8.RuneError && n == 1 {
			bad++
		}
		head = head[n:]
	}
	return bad > 64
}

// toMarkdown converts HTML to markdown. The converter is a well-kept
// library, but a page is hostile input: if it fails or panics, the page's
// text without tags is returned instead.
func toMarkdown(body []byte, base string) (md string) {
	defer func() {
		if recover() != nil {
			md = strippedText(body)
		}
	}()
	out, err := htmltomarkdown.ConvertString(strings.ToValidUTF8(string(body), "\uFFFD"), converter.WithDomain(base))
	if err != nil {
		return strippedText(body)
	}
	return strings.TrimSpace(out)
}

// strippedText is the fallback rendering of HTML: the text between tags.
func strippedText(body []byte) string {
	var b strings.Builder
	in := false
	for _, r := range strings.ToValidUTF8(string(body), "\uFFFD") {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}

// format renders the result: where it came from, then the window of the
// text, with a note when the window or the size cap cut it.
func (p *page) format(resp *http.Response, cut bool, capBytes int64, start, maxLen int) string {
	runes := []rune(p.text)
	total := len(runes)
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\nStatus: %s\nContent-Type: %s", resp.Request.URL, resp.Status, p.mediaType)
	if p.converted {
		b.WriteString(" (converted to markdown)")
	}
	b.WriteString("\n")
	if cut {
		fmt.Fprintf(&b, "Note: the body is larger than %d MB; only its first %d MB were read.\n", capBytes>>20, capBytes>>20)
	}
	if start >= total && total > 0 {
		fmt.Fprintf(&b, "\n[start %d is past the end: the text has %d characters]\n", start, total)
		return b.String()
	}
	end := min(start+maxLen, total)
	b.WriteString("\n")
	b.WriteString(string(runes[start:end]))
	if start > 0 || end < total {
		fmt.Fprintf(&b, "\n\n[characters %d to %d of %d", start, end, total)
		if end < total {
			fmt.Fprintf(&b, "; call web_fetch with start=%d to read on", end)
		}
		b.WriteString("]")
	}
	return b.String()
}
