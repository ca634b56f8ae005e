package config

import (
	"fmt"
	"regexp"
	"slices"
	"sort"

	"github.com/BurntSushi/toml"
)

// ProfileEnv is the environment variable that selects a profile when no
// --profile flag is given.
const ProfileEnv = "REIN_PROFILE"

// keyProfiles is the top-level table holding the named profiles.
const keyProfiles = "profiles"

// profileNameRE is what a profile may be called: a bare TOML key that
// reads well in a flag (--profile ci) and in messages.
var profileNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// parseProfiles reads [profiles.NAME] tables. Each profile holds the
// sections a file may hold at its top (model, agent and the sections other
// packages own) and is parsed with the same rules, its errors naming the
// file and line; profiles do not nest.
func (f *fileLayer) parseProfiles(md *toml.MetaData, prim toml.Primitive, data []byte) error {
	line := keyLine(md, prim, toml.Key{keyProfiles})
	if !isTable(md, prim) {
		return f.errorAt(line, "profiles must be a table of profiles ([profiles.NAME])")
	}
	var byName map[string]toml.Primitive
	if err := md.PrimitiveDecode(prim, &byName); err != nil {
		return f.errorAt(line, "profiles: %v", err)
	}
	f.profiles = map[string]*fileLayer{}
	for _, name := range keysUnder(md, toml.Key{keyProfiles}) {
		p := byName[name]
		at := toml.Key{keyProfiles, name}
		pline := keyLine(md, p, at)
		if !profileNameRE.MatchString(name) {
			return f.errorAt(pline, "profile name %q must be letters, digits, '-' or '_' (at most 64)", clipName(name))
		}
		if !isTable(md, p) {
			return f.errorAt(pline, "profiles.%s must be a table ([profiles.%s])", name, name)
		}
		var top map[string]toml.Primitive
		if err := md.PrimitiveDecode(p, &top); err != nil {
			return f.errorAt(pline, "profiles.%s: %v", name, err)
		}
		pl := &fileLayer{kind: f.kind, path: f.path, profile: name, lines: map[string]int{}}
		if err := pl.parseTop(md, top, at, data); err != nil {
			return err
		}
		pl.profileLine = pline
		f.profiles[name] = pl
	}
	return nil
}

// clipName shortens a hostile name for an error message.
func clipName(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// profileNames lists the profiles every layer defines, sorted.
func profileNames(layers []*fileLayer) []string {
	seen := map[string]bool{}
	for _, l := range layers {
		for n := range l.profiles {
			seen[n] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// selectProfile returns the profile asked for (the flag, else
// REIN_PROFILE) and where the request came from; "" selects none. A name
// no layer defines is an error naming the profiles there are.
func selectProfile(flag string, getenv func(string) string, layers []*fileLayer) (string, Source, error) {
	name, src := flag, Source{Layer: LayerFlag, Name: "--profile"}
	if name == "" {
		name, src = getenv(ProfileEnv), Source{Layer: LayerEnv, Name: ProfileEnv}
	}
	if name == "" {
		return "", Source{}, nil
	}
	known := profileNames(layers)
	if slices.Contains(known, name) {
		return name, src, nil
	}
	what := fmt.Sprintf("%s %s", src.Name, clipName(name))
	if src.Layer == LayerEnv {
		what = fmt.Sprintf("%s=%s", src.Name, clipName(name))
	}
	list := "no profile is defined; add a [profiles." + clipName(name) + "] table to your config"
	if len(known) > 0 {
		list = fmt.Sprintf("the profiles are %s", joinQuoted(known))
	}
	if src.Layer == LayerFlag {
		return "", Source{}, fmt.Errorf("%w: %s: no such profile%s; %s", ErrInvalidFlag, what, suggest(name, known), list)
	}
	return "", Source{}, fmt.Errorf("config: %s: no such profile%s; %s", what, suggest(name, known), list)
}

func joinQuoted(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%q", n)
	}
	return out
}

// Profile returns the profile the configuration was loaded with and what
// selected it (the --profile flag or REIN_PROFILE); "" when none.
func (c *Config) Profile() (string, Source) { return c.profile, c.profileSrc }

// Profiles lists the profiles the configuration files define, sorted.
func (c *Config) Profiles() []string { return slices.Clone(c.profileNames) }

// ProjectProfileSections reports whether the selected profile has
// tables in the project file.
func (c *Config) ProjectProfileSections() bool {
	for _, secs := range c.sections {
		for _, s := range secs {
			if s.Source.Layer == LayerProject && s.Source.Profile != "" {
				return true
			}
		}
	}
	return false
}

// WithoutProjectProfile returns a copy of c without the tables the
// selected profile has in the project file, so that a caller can tell
// what those tables changed (a project's profile may only tighten). The
// [model] and [agent] values are c's: Load already checked those.
func (c *Config) WithoutProjectProfile() *Config {
	out := *c
	out.sections = make(map[string][]RawSection, len(c.sections))
	for name, secs := range c.sections {
		for _, s := range secs {
			if s.Source.Layer == LayerProject && s.Source.Profile != "" {
				continue
			}
			out.sections[name] = append(out.sections[name], s)
		}
	}
	return &out
}
