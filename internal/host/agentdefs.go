package host

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/hooks"
	"github.com/reinharness/rein/internal/frontmatter"
	"github.com/reinharness/rein/internal/termsafe"
)

// Custom agents are markdown files in Claude Code's format:
//
//	---
//	name: reviewer
//	description: Reviews a change for bugs
//	tools: Read, Grep, Glob
//	model: some-model
//	---
//	You are a careful reviewer…
//
// read from the user's ~/.config/rein/agents/, then the workspace's
// .rein/agents/ and .claude/agents/; a later file shadows an earlier one of
// the same name, with one warning. They become the task tool's agent
// definitions. Whatever layer a file comes from, it cannot widen anything:
// its tools are intersected with the running agent's at every call, the
// policy and approver are the parent's, and its model names only the model,
// never the endpoint or the credentials.

// Bounds on what is read: these files come from repositories.
const (
	maxAgentFiles    = 200
	maxAgentFileSize = 256 << 10
)

// agentFile is the front matter of an agent file.
type agentFile struct {
	Name        string                 `yaml:"name"`
	Description string                 `yaml:"description"`
	Tools       frontmatter.StringList `yaml:"tools"`
	Model       string                 `yaml:"model"`
	// Profile names a [profiles.NAME] of the configuration the agent
	// runs under, never wider than the run that starts it
	// (agentprofile.go).
	Profile string `yaml:"profile"`
}

// AgentDef is a loaded definition and where it came from.
type AgentDef struct {
	agent.SubagentDef
	Path  string
	layer string // "user" or "project"
	// Profile is the front matter's profile, "" for none.
	Profile string
}

var agentFileNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// agentDir is one directory of agent files. A project directory has
// confine set to the workspace: it and its files are read through the
// workspace's os.Root, so a symlink leaving the workspace (the directory
// itself, a folder above it, or one file) is refused with a warning. The
// user's directory is the user's own and may link anywhere.
type agentDir struct {
	dir, layer, confine string
}

// agentDirs lists the directories agent files are read from, earliest
// (most easily shadowed) first.
func agentDirs(getenv func(string) string, workspace string) []agentDir {
	return []agentDir{
		{filepath.Join(filepath.Dir(config.UserConfigPath(getenv)), "agents"), "user", ""},
		{filepath.Join(workspace, ".rein", "agents"), "project", workspace},
		{filepath.Join(workspace, ".claude", "agents"), "project", workspace},
	}
}

// LoadAgentDefs reads every agent file, returning the definitions in a
// stable order and one warning per skipped file or shadowed name. toolNames
// are the running agent's tools, for translating Claude Code's tool names.
func LoadAgentDefs(getenv func(string) string, workspace string, toolNames []string) ([]AgentDef, []string) {
	var warnings []string
	byName := map[string]int{}
	var defs []AgentDef
	for _, d := range agentDirs(getenv, workspace) {
		fsys, closeFS, err := d.open()
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warnings = append(warnings, err.Error())
			}
			continue
		}
		files, err := agentFiles(fsys, d.dir)
		if err != nil {
			warnings = append(warnings, err.Error())
		}
		for _, name := range files {
			path := filepath.Join(d.dir, name)
			def, err := readAgentFile(fsys, name, path, toolNames)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("agent file %s skipped: %v", termsafe.Line(path), err))
				continue
			}
			def.layer = d.layer
			if i, dup := byName[def.Name]; dup {
				warnings = append(warnings, fmt.Sprintf("agent %s in %s shadows the one in %s", def.Name, termsafe.Line(path), termsafe.Line(defs[i].Path)))
				defs[i] = def
				continue
			}
			byName[def.Name] = len(defs)
			defs = append(defs, def)
		}
		closeFS()
	}
	return defs, warnings
}

// errLeavesWorkspace is why a project agent file or directory is not read.
var errLeavesWorkspace = errors.New("it is a symbolic link (or lies under one) leading outside the workspace; project agents must live inside it")

// open returns the directory as a file system: the directory itself for
// the user's, the workspace's root below it for a project's, so that
// every open is confined to the workspace. A missing directory is
// fs.ErrNotExist.
func (d agentDir) open() (fs.FS, func(), error) {
	if d.confine == "" {
		if _, err := os.Stat(d.dir); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil, err
			}
			return nil, nil, fmt.Errorf("agent directory %s not read: %v", termsafe.Line(d.dir), err)
		}
		return os.DirFS(d.dir), func() {}, nil
	}
	rel, err := filepath.Rel(d.confine, d.dir)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, nil, fmt.Errorf("agent directory %s is not inside the workspace", termsafe.Line(d.dir))
	}
	ws, err := os.OpenRoot(d.confine)
	if err != nil {
		return nil, nil, fmt.Errorf("agent directory %s not read: %v", termsafe.Line(d.dir), err)
	}
	if _, err := ws.Stat(rel); err != nil {
		ws.Close()
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("agent directory %s not read: %w", termsafe.Line(d.dir), errLeavesWorkspace)
	}
	sub, err := fs.Sub(ws.FS(), filepath.ToSlash(rel))
	if err != nil {
		ws.Close()
		return nil, nil, err
	}
	return sub, func() { ws.Close() }, nil
}

// agentFiles lists the .md files of fsys, sorted; dir names it in errors.
func agentFiles(fsys fs.FS, dir string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("agent directory %s not read: %v", termsafe.Line(dir), unwrapPathErr(err))
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		if len(out) == maxAgentFiles {
			return out, fmt.Errorf("agent directory %s holds more than %d agent files; the rest are ignored", termsafe.Line(dir), maxAgentFiles)
		}
		out = append(out, e.Name())
	}
	return out, nil
}

// readAgentFile reads and checks the agent file name of fsys (path for
// messages). Its errors name the field.
func readAgentFile(fsys fs.FS, name, path string, toolNames []string) (AgentDef, error) {
	f, err := fsys.Open(name) // follows a symlink, inside the workspace for a project's
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return AgentDef{}, unwrapPathErr(err)
		}
		if fi, lerr := fs.Lstat(fsys, name); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return AgentDef{}, errLeavesWorkspace
		}
		return AgentDef{}, unwrapPathErr(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return AgentDef{}, err
	}
	if !fi.Mode().IsRegular() {
		return AgentDef{}, errors.New("not a regular file")
	}
	if fi.Size() > maxAgentFileSize {
		return AgentDef{}, fmt.Errorf("%d bytes is over the limit of %d", fi.Size(), maxAgentFileSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxAgentFileSize+1))
	if err != nil {
		return AgentDef{}, err
	}
	if len(data) > maxAgentFileSize {
		return AgentDef{}, fmt.Errorf("over the limit of %d bytes", maxAgentFileSize)
	}
	return parseAgentFile(data, path, toolNames)
}

// unwrapPathErr drops a *fs.PathError's path, which the message names.
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// parseAgentFile decodes an agent file's content.
func parseAgentFile(data []byte, path string, toolNames []string) (AgentDef, error) {
	var f agentFile
	body, err := frontmatter.Parse(data, &f)
	if err != nil {
		return AgentDef{}, fmt.Errorf("front matter: %w", err)
	}
	f.Name = strings.TrimSpace(f.Name)
	switch {
	case f.Name == "":
		return AgentDef{}, errors.New(`field "name": missing`)
	case !agentFileNameRE.MatchString(f.Name):
		return AgentDef{}, fmt.Errorf(`field "name": %q must be lower-case letters, digits, '-' or '_' (at most 64)`, ClipRunes(f.Name, 80))
	case strings.TrimSpace(f.Description) == "":
		return AgentDef{}, errors.New(`field "description": missing (the model chooses agents by it)`)
	}
	def := AgentDef{Path: path, Profile: strings.TrimSpace(f.Profile), SubagentDef: agent.SubagentDef{
		Name: f.Name, Description: strings.TrimSpace(f.Description), System: strings.TrimSpace(string(body)),
		Model: agentModel(f.Model),
	}}
	if f.Tools != nil && !slices.Contains([]string(f.Tools), "*") {
		def.Tools = make([]string, 0, len(f.Tools))
		for _, n := range f.Tools {
			def.Tools = append(def.Tools, reinToolName(n, toolNames))
		}
	}
	return def, nil
}

// agentModel maps Claude Code's model aliases, which name Anthropic models
// rein cannot resolve on an arbitrary endpoint, to the parent's model.
func agentModel(m string) string {
	switch m = strings.TrimSpace(m); strings.ToLower(m) {
	case "", "inherit", "sonnet", "opus", "haiku":
		return ""
	}
	return m
}

// claudeOnlyNames are Claude Code tool names hooks' vocabulary does not
// translate but that have a rein counterpart.
var claudeOnlyNames = map[string]string{"MultiEdit": "edit_file", "Task": agent.TaskToolName}

// reinToolName translates a tool name of an agent file: a rein name stays,
// a Claude Code name (Read, Bash, …) becomes rein's, through the hooks'
// vocabulary. Names with no counterpart stay as written and are dropped,
// with a note, when the agent starts.
func reinToolName(name string, toolNames []string) string {
	name = strings.TrimSpace(name)
	if slices.Contains(toolNames, name) {
		return name
	}
	for _, n := range toolNames {
		if hooks.ClaudeName(n) == name {
			return n
		}
	}
	if n, ok := claudeOnlyNames[name]; ok {
		return n
	}
	return name
}

// SubagentDefs returns the definitions for the task tool.
func SubagentDefs(defs []AgentDef) []agent.SubagentDef {
	out := make([]agent.SubagentDef, len(defs))
	for i, d := range defs {
		out[i] = d.SubagentDef
	}
	return out
}
