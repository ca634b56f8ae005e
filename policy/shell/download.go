package shell

import (
	"path"
	"strings"
)

// Download-and-execute across the statements of one command: the files a
// downloader writes (curl -o, wget -O, a redirect of its output) are
// remembered, and running one of them is a hard denial (see
// checkInterpreter and execArgs).

// downloadTargets records the files a downloader writes: curl -o F,
// --output F, -O (the URL's base name); wget -O F, --output-document F.
func (a *analyzer) downloadTargets(base string, ws []word) {
	if defaultSavers[base] {
		// wget URL saves the URL's base name (index.html for a
		// directory) unless -O says otherwise; both are marked.
		a.markURLBases(ws)
		a.markDownloaded("index.html")
	}
	for i := 1; i < len(ws); i++ {
		t := ws[i].text
		var file string
		switch {
		case outputInNext(base, t, i+1 < len(ws)):
			if i+1 < len(ws) {
				file = ws[i+1].path
				i++
			}
		case strings.HasPrefix(t, "--output=") || strings.HasPrefix(t, "--output-document="):
			_, file, _ = strings.Cut(ws[i].path, "=")
		case strings.HasPrefix(t, "-o") && len(t) > 2:
			file = strings.TrimPrefix(ws[i].path, "-o")
		case base == "curl" && (t == "-O" || t == "--remote-name" || shortCluster(t) && strings.Contains(t, "O")):
			a.markURLBases(ws)
		}
		if file != "" {
			a.markDownloaded(file)
		}
	}
}

// outputInNext reports whether option t of a downloader names its output
// file in the next word: -o, --output, --output-document, wget's -O, or a
// cluster of short options ending in one (-so F). A long option without
// a next word names nothing.
func outputInNext(base, t string, hasNext bool) bool {
	if t == "-o" || t == "--output" || t == "--output-document" || t == "-O" && base != "curl" {
		return hasNext
	}
	return shortCluster(t) && len(t) > 2 && (strings.HasSuffix(t, "o") || base != "curl" && strings.HasSuffix(t, "O"))
}

// shortCluster reports whether t is a cluster of short options (-xvf).
func shortCluster(t string) bool {
	return strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--")
}

// markURLBases marks the base name of every URL among the arguments
// (curl -O, wget without -O).
func (a *analyzer) markURLBases(ws []word) {
	for _, u := range ws[1:] {
		if name := urlBase(u.text); name != "" {
			a.markDownloaded(name)
		}
	}
}

// markDownloaded records a file a downloader writes.
//
// Guesses record too (code only known at run time may download a file
// and run it): a mark only makes later decisions stricter.
func (a *analyzer) markDownloaded(p string) {
	if a.dlFiles == nil {
		a.dlFiles = map[string]bool{}
	}
	for _, abs := range a.absPaths(p) {
		if len(a.dlFiles) < 64 {
			a.dlFiles[abs] = true
		}
	}
}

// downloadedFile reports whether w names a file a downloader of this
// command wrote.
func (a *analyzer) downloadedFile(w word) bool {
	if len(a.dlFiles) == 0 || !w.pathOK {
		return false
	}
	for _, abs := range a.absPaths(w.path) {
		if a.dlFiles[abs] {
			return true
		}
	}
	return false
}

// defaultSavers save a download to a file named after the URL by default.
var defaultSavers = map[string]bool{"wget": true, "wget2": true, "aria2c": true, "fetch": true, "lwp-download": true}

// urlBase is the file name a URL is saved under, or "" for a word that
// is not a URL.
func urlBase(u string) string {
	if !strings.Contains(u, "://") {
		return ""
	}
	name := path.Base(strings.SplitN(strings.SplitN(u, "?", 2)[0], "#", 2)[0])
	if name == "" || name == "/" || name == "." || strings.HasSuffix(name, ":") {
		return ""
	}
	return name
}
