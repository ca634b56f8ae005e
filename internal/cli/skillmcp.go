package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/skill"
	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// skillServersFunc starts the MCP servers a skill binds and returns their
// tools and how to stop them (skill.RegistryOptions.Servers).
type skillServersFunc = func(ctx context.Context, s *skill.Skill) ([]tool.Tool, func(), error)

// skillServerRef is how `rein mcp trust` names a skill's server: the
// skill and the server, which neither name can hold a '/' in.
func skillServerRef(skillName, server string) string { return skillName + "/" + server }

// skillServerConfigs parses the servers s binds (its skill.json's
// mcp_servers, in the .mcp.json shape). A server without a cwd runs in
// the skill's folder, and a relative cwd is taken from it, so a manifest
// can name its own scripts. A project skill's servers are project input
// (ServerConfig.Project): they start only once trusted.
func (a *App) skillServerConfigs(s *skill.Skill) ([]mcp.ServerConfig, error) {
	servers, err := mcp.ParseMCPJSON(s.MCPJSON(), s.File, a.Getenv)
	if err != nil {
		return nil, fmt.Errorf("skill %s: mcp_servers: %w", s.Name, err)
	}
	for i := range servers {
		sc := &servers[i]
		sc.Project = s.Layer == skill.LayerProject
		if sc.Project {
			sc.Unconfined, sc.Network = false, nil // from the trust grant only
		}
		if sc.Command != "" && s.Dir != "" && !filepath.IsAbs(sc.Cwd) {
			sc.Cwd = filepath.Join(s.Dir, sc.Cwd)
		}
	}
	return servers, nil
}

// skillServers returns the function that starts a skill's MCP servers
// when the skill is activated (--skill, /NAME) the way the configured
// servers start (mcptools.go), in workspace. A project skill's servers
// need the same trust as the workspace's .mcp.json servers: an untrusted
// one is left out with one warning naming `rein mcp trust SKILL/SERVER`,
// and the skill is activated without it. The servers' questions
// (elicitation, sampling) are declined: they start for one run, after
// the console was set up.
func (a *App) skillServers(ws *workspace.Workspace, workspace, stateDirFlag string) skillServersFunc {
	return func(ctx context.Context, s *skill.Skill) ([]tool.Tool, func(), error) {
		servers, err := a.skillServerConfigs(s)
		if err != nil {
			return nil, nil, err
		}
		trusted, untrusted, _ := a.trustStore(stateDirFlag).SplitTrusted(servers, workspace)
		for i := range untrusted {
			untrusted[i].Server.Name = skillServerRef(s.Name, untrusted[i].Server.Name)
		}
		a.warnUntrusted(untrusted)
		if len(trusted) == 0 {
			return nil, nil, nil
		}
		if err := checkUnconfinedServers(trusted, workspace); err != nil {
			return nil, nil, err
		}
		mc := a.mcpConfig(trusted, workspace, mcp.Decline{})
		mc.Confine = mcpConfiner(ws, a.nestingDepth())
		mc.OnProblem = func(p mcp.Problem) {
			fmt.Fprintf(a.Stderr, "rein: warning: skill %s: MCP server %s: %s\n", s.Name, p.Server, textclip.FirstLine(p.Err.Error()))
		}
		m, err := mcp.New(mc)
		if err != nil {
			return nil, nil, err
		}
		m.Start()
		ts, err := m.Tools(ctx)
		if err != nil {
			m.Close()
			return nil, nil, err
		}
		return ts, func() { m.Close() }, nil
	}
}

// projectSkillServers returns the servers the workspace's skills bind,
// named SKILL/SERVER, for `rein mcp trust`. A skill whose servers do not
// parse is reported on stderr and left out.
func (a *App) projectSkillServers(workspace string) map[string]mcp.ServerConfig {
	out := map[string]mcp.ServerConfig{}
	for _, s := range a.discoverSkills(workspace).Skills() {
		if s.Layer != skill.LayerProject || len(s.MCPServers) == 0 {
			continue
		}
		servers, err := a.skillServerConfigs(s)
		if err != nil {
			fmt.Fprintf(a.Stderr, "rein: warning: %s\n", textclip.FirstLine(err.Error()))
			continue
		}
		for _, sc := range servers {
			out[skillServerRef(s.Name, sc.Name)] = sc
		}
	}
	return out
}
