package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestCharsets: pages in other charsets arrive as UTF-8, whether the
// header names the charset or only the page's <meta> does; a long Latin-1
// text is not taken for binary; an unknown label leaves the bytes.
func TestCharsets(t *testing.T) {
	latin1 := strings.Repeat("caf\xe9 cr\xe8me br\xfbl\xe9e ", 40) // é è û in ISO-8859-1
	sjis := "\x93\xfa\x96\x7b\x8c\xea"                             // 日本語 in Shift_JIS
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/latin1.txt":
			w.Header().Set("Content-Type", "text/plain; charset=ISO-8859-1")
			fmt.Fprint(w, latin1)
		case "/meta.html":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><meta charset="shift_jis"></head><body><p>`+sjis+`</p></body></html>`)
		case "/win.html":
			w.Header().Set("Content-Type", "text/html; charset=windows-1252")
			fmt.Fprint(w, "<p>\x93quoted\x94 \x80 5</p>")
		case "/bogus.txt":
			w.Header().Set("Content-Type", "text/plain; charset=no-such-charset")
			fmt.Fprint(w, "plain ascii")
		}
	})
	for path, want := range map[string]string{
		"/latin1.txt": "café crème brûlée",
		"/meta.html":  "日本語",
		"/win.html":   "“quoted” € 5",
		"/bogus.txt":  "plain ascii",
	} {
		res := fetch(t, Options{Rules: loopback}, Input{URL: s.URL + path})
		if res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("%s: error=%v %q, want %q", path, res.IsError, res.Content, want)
		}
	}
}
