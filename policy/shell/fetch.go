package shell

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// Download-and-execute is decided on data flow, not on names: a stage
// whose output may come from the network (a fetcher, a program rein
// cannot see, a command only known at run time, a word holding a
// download) taints what reads it, and anything that may execute what it
// reads is denied there — shells and interpreters by any name or
// variable, programs that run code rein cannot see, functions, eval,
// source. Code rein can see (bash -c '…', a function body) is analyzed
// with the taint.

// fetchers are programs whose output or files may come from the network,
// besides the downloaders.
var fetchers = map[string]bool{
	"nc": true, "ncat": true, "netcat": true, "socat": true, "telnet": true, "ssh": true,
	"scp": true, "sftp": true, "tftp": true, "ftp": true, "lftp": true, "lynx": true, "w3m": true,
	"links": true, "elinks": true, "rclone": true, "smbclient": true, "gsutil": true, "gh": true,
	"aws": true, "az": true, "gcloud": true, "s3cmd": true, "httpie": true, "hurl": true,
}

// fileFetchers write what they fetch to files whose names rein cannot
// tell (scp host:x ., rclone copy, aws s3 cp).
var fileFetchers = map[string]bool{
	"scp": true, "sftp": true, "tftp": true, "ftp": true, "lftp": true, "rclone": true, "smbclient": true,
	"gsutil": true, "aws": true, "az": true, "gcloud": true, "s3cmd": true, "aria2c": true,
}

// stdinRunners run what they read on standard input as commands.
var stdinRunners = map[string]string{
	"crontab": "installs a crontab", "at": "schedules a job", "batch": "schedules a job",
	"parallel": "runs command lines", "sed": "", "gsed": "",
}

// fetches reports whether this level's output or files may come from the
// network: a downloader or fetcher, a program whose code rein cannot see
// (it may fetch), or a word that carries a download.
func (a *analyzer) fetches(base string, ws []word) bool {
	if downloaders[base] || fetchers[base] || a.levelRuns != "" {
		return true
	}
	if base == "openssl" && slices.ContainsFunc(ws, func(w word) bool { return w.text == "s_client" }) {
		return true
	}
	return slices.ContainsFunc(ws, func(w word) bool { return w.download }) || slices.ContainsFunc(ws[1:], a.downloadedFile)
}

// fetchLevel counts a fetching level, so a pipeline taints its later
// stages, and records the files it writes.
func (a *analyzer) fetchLevel(base string, ws []word, fr frame) {
	if a.fetches(base, ws) {
		a.downloads++
	}
	if downloaders[base] || fetchers[base] || slices.ContainsFunc(ws, func(w word) bool { return w.download }) || slices.ContainsFunc(ws[1:], a.downloadedFile) {
		a.fetched++
	}
	if downloaders[base] || fetchers[base] {
		a.downloadTargets(base, ws)
	}
	if fr.taint {
		a.taintedWrites(base, ws)
	}
	if createsLinks(ws) && (fr.taint || slices.ContainsFunc(ws[1:], a.downloadedFile)) || fileFetchers[base] {
		a.dlUnknown = true
	}
	a.copiesDownload(ws)
}

// fedDownload denies a level that may execute the download on its
// standard input, or a download extracted or copied earlier.
func (a *analyzer) fedDownload(base string, ws []word, fr frame) {
	if a.dlUnknown && a.levelRuns != "" {
		a.hard("download-exec", base+" runs code after the command extracted a download ("+a.levelRuns+"); it is never allowed")
		return
	}
	if a.levelRuns != "" && a.fetched > 0 && len(a.dlFiles) > 0 {
		a.hard("download-exec", base+" runs code rein cannot see after the same command downloaded a file it may run ("+a.levelRuns+"); it is never allowed — run it as a command of its own")
		return
	}
	if !fr.taint {
		return
	}
	if spec, ok := interpreterSpec(base); ok && !spec.shell {
		a.inlineFedDownload(base, ws)
		return
	}
	if base == "script" && !slices.ContainsFunc(ws[1:], func(w word) bool {
		return strings.HasPrefix(w.text, "--command") || strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--") && strings.Contains(w.text, "c")
	}) {
		a.hard("download-exec", "script runs a shell that reads a download; it is never allowed")
		return
	}
	if why, ok := stdinRunners[base]; ok && why != "" && !(base == "parallel" && slices.ContainsFunc(ws[1:], func(w word) bool { return strings.HasPrefix(w.text, ":::") })) {
		a.hard("download-exec", base+" "+why+" read from a download; it is never allowed")
		return
	}
	if a.levelRuns != "" {
		a.hard("download-exec", "piping a download into "+base+" ("+a.levelRuns+") is never allowed")
	}
}

// inlineFedDownload decides an interpreter fed a download: a script or
// module may read and run it, and so may inline code that can evaluate
// or execute (exec, eval, system, child_process, …) or that rein cannot
// see.
func (a *analyzer) inlineFedDownload(base string, ws []word) {
	run, _ := a.interp(base, ws)
	if safeModule(base, ws) {
		return
	}
	if len(run.inline) == 0 || len(run.inline) != len(run.code) {
		a.hard("download-exec", "piping a download into "+base+" running a script or its standard input is never allowed")
		return
	}
	for _, w := range run.inline {
		if !w.literal {
			a.hard("download-exec", "piping a download into "+base+" with code only known at run time is never allowed")
			return
		}
		if tok := execToken(base, w.text); tok != "" {
			a.hard("download-exec", "piping a download into "+base+" with code that can run it ("+wspath.Quote(tok)+") is never allowed")
			return
		}
	}
}

// safeModules are python modules run with -m that only read and print
// their input.
var safeModules = map[string]bool{"json.tool": true, "base64": true}

// safeModule reports whether ws is `python -m MODULE [options]` with a
// safe module.
func safeModule(base string, ws []word) bool {
	if !strings.HasPrefix(base, "python") || len(ws) < 3 || ws[1].text != "-m" {
		return false
	}
	return ws[2].literal && safeModules[ws[2].text]
}

// execTokens are the names through which interpreter code evaluates or
// executes data: shared by every language (""), and by language. Reading
// and printing data (json.load, JSON.parse, process.stdin) is not among
// them, so a download can still be parsed — after an approval.
var execTokens = map[string][]string{
	"": {"exec", "eval", "system", "spawn", "popen", "fork", "compile", "syscall", "__import__",
		"importlib", "subprocess", "pty", "os", "runpy", "pickle", "marshal", "ctypes", "getattr",
		"globals", "builtins", "__builtins__", "breakpoint", "open", "child_process", "execsync",
		"execfilesync", "spawnsync", "vm", "function", "settimeout", "setinterval", "instance_eval",
		"class_eval", "module_eval", "send", "public_send", "__send__", "kernel", "binding", "qx",
		"readpipe", "passthru", "proc_open", "shell_exec", "assert", "create_function", "include",
		"dofile", "loadstring", "loadfile", "dlopen", "execfile", "interact", "webassembly"},
	"node":   {"require", "import", "module", "worker"},
	"nodejs": {"require", "import", "module", "worker"},
	"ruby":   {"load", "require", "require_relative", "io"},
	"perl":   {"do", "require", "use"},
	"php":    {"require", "require_once", "include_once", "preg_replace", "mail"},
	"lua":    {"load", "require", "io"},
	"luajit": {"load", "require", "io"},
	"pwsh":   {"invoke", "iex", "invoke-expression", "start-process", "add-type"},
}

// execToken returns the first token of inline code that can evaluate or
// execute, or "". Backticks and $( run commands in several languages.
func execToken(base, code string) string {
	if strings.ContainsAny(code, "`") || strings.Contains(code, "$(") || strings.Contains(code, "%x") {
		return "`"
	}
	lang := strings.TrimRight(base, "0123456789.")
	for _, tok := range strings.FieldsFunc(strings.ToLower(code), func(r rune) bool {
		return !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z')
	}) {
		if slices.Contains(execTokens[""], tok) || slices.Contains(execTokens[lang], tok) {
			return tok
		}
	}
	return ""
}

// netTokens name network access in interpreter code and its options
// (python's urllib, perl's -MLWP, node's fetch, ruby's open-uri).
var netTokens = []string{"urlopen", "urllib", "requests", "http.client", "httpx", "aiohttp", "socket", "fetch(", "http.get", "https.get",
	"lwp", "net::http", "open-uri", "io::socket", "net/http", "curl", "wget", "xmlhttprequest", "websocket", "urlretrieve", "http://", "https://"}

// netToken returns the first network token in an interpreter's words.
func netToken(argv []string) string {
	text := strings.ToLower(strings.Join(argv, " "))
	for _, t := range netTokens {
		if strings.Contains(text, t) {
			return t
		}
	}
	return ""
}

// taintedWrites records the files a level fed a download writes (tee,
// sponge, dd of=): running one later is download-exec.
func (a *analyzer) taintedWrites(base string, ws []word) {
	switch base {
	case "tee", "sponge", "dd", "cp", "install", "cat":
	default:
		return
	}
	for _, w := range ws[1:] {
		p := w.path
		if v, ok := strings.CutPrefix(p, "of="); ok {
			p = v
		}
		if w.pathOK && p != "" && !strings.HasPrefix(p, "-") {
			a.markDownloaded(p)
		}
	}
}

// copiesDownload carries the mark of a downloaded file to its copies and
// links (cp x.sh y.sh; sh y.sh).
func (a *analyzer) copiesDownload(ws []word) {
	if linkKind(texts(ws)) == "" || !slices.ContainsFunc(ws[1:], a.downloadedFile) {
		return
	}
	for _, w := range ws[1:] {
		if w.pathOK && !strings.HasPrefix(w.path, "-") {
			a.markDownloaded(w.path)
		}
	}
	// A copy into a directory keeps the base names.
	for _, w := range ws[1:] {
		if a.downloadedFile(w) {
			for _, d := range ws[1:] {
				if d.pathOK {
					a.markDownloaded(path.Join(d.path, path.Base(w.path)))
				}
			}
		}
	}
}

// callFunction walks a function's body again where a call is fed a
// download, for hard denials only: f() { sh; }; curl … | f.
func (a *analyzer) callFunction(name string, fr frame) {
	body, ok := a.funcBody[name]
	if !ok || !fr.taint || a.guessing >= 2 || a.walking[name] {
		return
	}
	a.walking[name] = true
	a.guessing++
	a.stmt(body, fr)
	a.guessing--
	delete(a.walking, name)
}

// devNet reports whether a redirect reads bash's network pseudo-files.
func devNet(p string) bool {
	return strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/")
}

// endless reports whether a while or until loop never ends by its
// condition (while :, while true, until false), so a loop that starts
// background jobs spawns without end.
func endless(c *syntax.WhileClause) bool {
	if len(c.Cond) != 1 {
		return false
	}
	call, ok := c.Cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 || c.Cond[0].Negated {
		return false
	}
	lit, _ := literalText(call.Args[0])
	if c.Until {
		return lit == "false"
	}
	return lit == ":" || lit == "true"
}

// spawnsInBackground reports whether statements start a background job.
func spawnsInBackground(stmts []*syntax.Stmt) bool {
	found := false
	for _, s := range stmts {
		syntax.Walk(s, func(n syntax.Node) bool {
			if st, ok := n.(*syntax.Stmt); ok && (st.Background || st.Coprocess) {
				found = true
			}
			return !found
		})
	}
	return found
}
