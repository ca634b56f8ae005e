package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/lsp"
	"github.com/reinharness/rein/tool"
	lsptools "github.com/reinharness/rein/tools/lsp"
	"github.com/reinharness/rein/workspace"
)

// Bounds of the diagnostics added to an edit's result: the model sees the
// errors it just made, not a wall of them, and an edit never waits long
// for a slow server.
const (
	afterEditMaxErrors = 20
	afterEditWait      = 20 * time.Second
	afterEditSettle    = 400 * time.Millisecond
)

// editTools are the file tools whose results gain diagnostics.
var editTools = map[string]bool{"write_file": true, "edit_file": true, "apply_patch": true}

// wireLSP adds the language server tools to builtin when a server is
// configured or found on PATH, and wraps the edit tools when after_edit
// is on. The servers start on first use, each in the workspace's sandbox.
func (h *harness) wireLSP(cfg *config.Config, getenv func(string) string, builtin []tool.Tool) ([]tool.Tool, []string, error) {
	st, err := host.LoadLSP(cfg, getenv)
	if err != nil {
		return builtin, st.Warnings, err
	}
	servers, warning := trustedLSP(st, h.lspTrust, host.CanonicalDir(h.ws.Dir()))
	if warning != "" {
		st.Warnings = append(st.Warnings, warning)
	}
	if len(servers) == 0 {
		return builtin, st.Warnings, nil
	}
	h.lsp = lsp.NewManager(h.ws.Dir(), servers, nil, lspConfiner(h.ws, os.Environ()))
	builtin = append(builtin, lsptools.Tools(h.ws, h.lsp, lsptools.Options{})...)
	if st.AfterEdit {
		for i, t := range builtin {
			if editTools[t.Spec().Name] {
				builtin[i] = &diagnosingTool{Tool: t, ws: h.ws, m: h.lsp}
			}
		}
	}
	return builtin, st.Warnings, nil
}

// lspConfiner runs every language server as commands run: in its own
// instance of the workspace's sandbox with the session's network and the
// secrets of environ scrubbed.
func lspConfiner(ws *workspace.Workspace, environ []string) func(lsp.Config) (lsp.Confinement, error) {
	return func(c lsp.Config) (lsp.Confinement, error) {
		pol, err := ws.SandboxPolicy(ws.SandboxNetwork(), "")
		if err != nil {
			return lsp.Confinement{}, err
		}
		// A server installed under /tmp (GOBIN=/tmp/gobin) stays visible:
		// the sandbox's /tmp is otherwise empty. Read-only, like the
		// program of a user's MCP server there.
		// A project's server shows nothing outside the workspace: its
		// command is the repository's choice.
		if path, err := exec.LookPath(c.Command); err == nil && !c.Project {
			pol.Visible = append(pol.Visible, filepath.Dir(path))
		}
		env, err := ws.SandboxEnv(environ, true)
		if err != nil {
			return lsp.Confinement{}, err
		}
		return lsp.Confinement{Policy: pol, Env: env}, nil
	}
}

// diagnosingTool is an edit tool whose successful results end with the
// language servers' errors in the files it changed.
type diagnosingTool struct {
	tool.Tool
	ws *workspace.Workspace
	m  *lsp.Manager
}

// Timeout keeps the wrapped tool's own timeout (tool.Timeouter).
func (d *diagnosingTool) Timeout() time.Duration {
	if t, ok := d.Tool.(tool.Timeouter); ok {
		return t.Timeout()
	}
	return 0
}

func (d *diagnosingTool) Call(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
	paths := d.changed(args)
	// What the running servers reported before the edit: errors still
	// there afterwards were not made by it. A whole-file write rewrote
	// every line, so all of its errors are its own.
	var before map[string][]lsp.Diagnostic
	if d.Spec().Name != "write_file" {
		before = d.published(paths)
	}
	res, err := d.Tool.Call(ctx, args)
	if err != nil || res == nil || res.IsError {
		return res, err
	}
	if text := d.errorsIn(ctx, paths, before); text != "" {
		res.Content += "\n\nThe language server reports errors in the changed files:\n" + text
	}
	return res, nil
}

// published returns what the servers already running reported for paths
// (see lsp.Server.Published); it starts nothing.
func (d *diagnosingTool) published(paths []string) map[string][]lsp.Diagnostic {
	out := map[string][]lsp.Diagnostic{}
	for _, srv := range d.m.Running() {
		var mine []string
		for _, p := range paths {
			if srv.Config().Handles(p) {
				mine = append(mine, p)
			}
		}
		maps.Copy(out, srv.Published(mine))
	}
	return out
}

// introduced drops from files the errors that were there before the edit
// (the same severity, source and message, wherever the line moved to),
// once each; it returns how many it dropped. A file nothing was known of
// keeps all of its errors.
func introduced(files []lsp.FileDiagnostics, before map[string][]lsp.Diagnostic) int {
	dropped := 0
	for i, f := range files {
		prior, ok := before[f.Path]
		if !ok {
			continue
		}
		seen := map[string]int{}
		for _, p := range prior {
			seen[diagKey(p)]++
		}
		kept := f.Diagnostics[:0:0]
		for _, dg := range f.Diagnostics {
			if k := diagKey(dg); seen[k] > 0 {
				seen[k]--
				if dg.Severity == lsp.SeverityError || dg.Severity == 0 {
					dropped++
				}
				continue
			}
			kept = append(kept, dg)
		}
		files[i].Diagnostics = kept
	}
	return dropped
}

func diagKey(d lsp.Diagnostic) string {
	return fmt.Sprintf("%d\x00%s\x00%s", d.Severity, d.Source, d.Message)
}

// changed returns the workspace paths a call named that a server handles.
func (d *diagnosingTool) changed(args json.RawMessage) []string {
	var paths []string
	if f := d.Spec().Effects.Paths; f != nil {
		paths, _ = f(args)
	} else {
		var a struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(args, &a) == nil && a.Path != "" {
			paths = []string{a.Path}
		}
	}
	var out []string
	for _, p := range paths {
		if rel, err := d.ws.Rel(p); err == nil && d.m.Handles(rel) {
			out = append(out, rel)
		}
	}
	return out
}

// errorsIn returns the formatted errors of paths; a server that cannot
// start or answer adds nothing, as the edit itself succeeded.
func (d *diagnosingTool) errorsIn(ctx context.Context, paths []string, before map[string][]lsp.Diagnostic) string {
	if len(paths) == 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, afterEditWait)
	defer cancel()
	byServer := map[*lsp.Server][]string{}
	var order []*lsp.Server
	for _, p := range paths {
		srv, err := d.m.For(ctx, p)
		if err != nil {
			continue
		}
		if _, ok := byServer[srv]; !ok {
			order = append(order, srv)
		}
		byServer[srv] = append(byServer[srv], p)
	}
	var files []lsp.FileDiagnostics
	for _, srv := range order {
		fs, err := srv.Diagnostics(ctx, byServer[srv], afterEditSettle)
		if err != nil {
			continue
		}
		for _, f := range fs {
			for _, p := range byServer[srv] {
				if f.Path == p {
					files = append(files, f)
				}
			}
		}
	}
	// Only what the edit made is news; errors it left as they were are
	// counted, not repeated.
	old := introduced(files, before)
	text := lsp.Format(files, true, afterEditMaxErrors)
	if text != "" && old > 0 {
		text += fmt.Sprintf("(and %s there before this edit, not repeated)\n", plural(old, "error"))
	}
	return text
}
