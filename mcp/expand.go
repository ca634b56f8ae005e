package mcp

import (
	"fmt"
	"strings"
)

// expand replaces ${NAME} and ${NAME:-default} in s with values from
// getenv, the syntax .mcp.json files use (Claude Code). An empty variable
// counts as unset, as with the shell's ":-". A reference to an unset
// variable without a default is an error naming the variable (never its
// value); a '$' not followed by '{' is kept as is.
func expand(s string, getenv func(string) string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		rest := s[i+2:]
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return "", fmt.Errorf("unterminated ${ in %q", clip(s[i:], 40))
		}
		ref := rest[:end]
		name, def, hasDef := strings.Cut(ref, ":-")
		if !envNameRE.MatchString(name) {
			return "", fmt.Errorf("${%s} does not name an environment variable", clip(ref, 40))
		}
		v := ""
		if getenv != nil {
			v = getenv(name)
		}
		switch {
		case v != "":
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		default:
			return "", fmt.Errorf("${%s} is not set: set it, or give a default with ${%s:-value}", name, name)
		}
		s = rest[end+1:]
	}
}

// expandAll expands every string a server's configuration may hold
// references in: command, args, env values, cwd, url and header values.
// The returned error names the key.
func (c *ServerConfig) expandAll(getenv func(string) string) *fieldError {
	one := func(key string, p *string) *fieldError {
		v, err := expand(*p, getenv)
		if err != nil {
			return ferr(key, "%v", err)
		}
		*p = v
		return nil
	}
	if fe := one("command", &c.Command); fe != nil {
		return fe
	}
	for i := range c.Args {
		if fe := one("args", &c.Args[i]); fe != nil {
			return fe
		}
	}
	if fe := one("cwd", &c.Cwd); fe != nil {
		return fe
	}
	if fe := one("url", &c.URL); fe != nil {
		return fe
	}
	for _, m := range []struct {
		key string
		s   Secrets
	}{{"env", c.Env}, {"headers", c.Headers}} {
		for k, v := range m.s {
			if fe := one(m.key+"."+k, &v); fe != nil {
				return fe
			}
			m.s[k] = v
		}
	}
	return nil
}
