package workspace

import (
	"path/filepath"
	"strings"

	"github.com/reinharness/rein/workspace/sandbox"
)

// SandboxPolicy returns the sandbox policy under which a process the
// workspace supplies (a hook, a stdio MCP server, a verification check)
// runs: the same instance commands get — the workspace and the private
// temporary directory writable, the protected paths read-only, the hidden
// paths masked, the configured mode and readable set — with the network
// as given (the caller decides it from the trust grant or the config).
// dir is the process's working directory ("" for the workspace). It is
// safe for concurrent use.
func (w *Workspace) SandboxPolicy(network bool, dir string) (sandbox.Policy, error) {
	if err := w.checkOpen(); err != nil {
		return sandbox.Policy{}, err
	}
	tmp, err := w.privateTemp()
	if err != nil {
		return sandbox.Policy{}, err
	}
	if dir == "" {
		dir = w.dir
	}
	return sandbox.Policy{
		Mode:       w.opts.Sandbox,
		Writable:   append([]string{w.dir, tmp}, w.opts.SandboxWritable...),
		Caches:     w.opts.SandboxCaches.Dirs(),
		Readable:   w.opts.SandboxReadable,
		Network:    network,
		Protected:  w.opts.SandboxProtected,
		Hidden:     w.opts.SandboxHidden,
		Dir:        dir,
		Probe:      w.probe,
		Namespaces: w.nsProbe,
		Limits:     w.opts.SandboxLimits,
	}, nil
}

// SandboxNetwork reports whether the workspace's commands may use the
// network (Options.SandboxNetwork): the session's network setting, which
// verification checks share.
func (w *Workspace) SandboxNetwork() bool { return w.opts.SandboxNetwork }

// SandboxEnv returns env for a process started under SandboxPolicy:
// secrets scrubbed as for commands (see ScrubEnv; Options.EnvAllow kept),
// TMPDIR pointing at the private temporary directory, and the build and
// package caches moved there when the sandbox would forbid writing where
// they are. The caller appends what it passes explicitly afterwards. With
// scrub false (the caller already chose every variable, as an MCP
// server's configuration does) only TMPDIR and the caches are added.
func (w *Workspace) SandboxEnv(env []string, scrub bool) ([]string, error) {
	tmp, err := w.privateTemp()
	if err != nil {
		return nil, err
	}
	if scrub {
		env = ScrubEnv(env, w.opts.EnvAllow)
	} else {
		env = append([]string(nil), env...)
	}
	env = append(env, "TMPDIR="+tmp)
	env = append(env, w.sandboxCaches(env, tmp)...)
	if !w.writableForSandbox(lastEnv(env, "npm_config_cache")) {
		// npx writes its package cache under ~/.npm, read-only inside.
		env = append(env, "npm_config_cache="+tmp+"/npm")
	}
	return env, nil
}

// writableForSandbox reports whether p lies in a directory the sandbox
// makes writable ("" is not).
func (w *Workspace) writableForSandbox(p string) bool {
	if p == "" {
		return false
	}
	tmp, _ := w.privateTemp()
	for _, dir := range append([]string{w.dir, tmp}, w.opts.SandboxWritable...) {
		if within(p, dir) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or lies under it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// lastEnv returns the value of the last name= entry of env ("" if none).
func lastEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}
