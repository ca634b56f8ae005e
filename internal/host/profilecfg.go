package host

import (
	"fmt"
	"strings"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/policy"
)

// A named profile ([profiles.NAME], selected by --profile or
// REIN_PROFILE) is merged by config.Load over the file that defines it.
// A project's profile comes with the repository like the rest of the
// project file, and its tables reach their owners as project tables, so
// every tightening rule of the project layer applies to it. The one
// difference: what the project file would have ignored with a warning
// (a looser preset, an allow rule, a writable directory) is refused
// outright in a project's profile. The user chose that profile by name,
// and running without what it says would be a surprise.

// tableWarnings are the owners of the tables a project may only tighten,
// each returning the warnings its merge gives: what a project layer
// tried and was not allowed.
func tableWarnings(ws, home string) []func(*config.Config) ([]string, error) {
	return []func(*config.Config) ([]string, error){
		func(c *config.Config) ([]string, error) {
			layers, err := PolicyLayers(c, "")
			if err != nil {
				return nil, err
			}
			e, err := policy.NewEngine(policy.EngineConfig{Workspace: ws, Home: home, Layers: layers})
			if err != nil {
				return nil, err
			}
			return e.Warnings(), nil
		},
		func(c *config.Config) ([]string, error) {
			_, w, err := LoadNetworkRules(c)
			return w, err
		},
		func(c *config.Config) ([]string, error) {
			s, err := LoadSandbox(c, ws, home)
			return s.Warnings, err
		},
		func(c *config.Config) ([]string, error) {
			v, err := LoadVerify(c)
			return v.Warnings, err
		},
		func(c *config.Config) ([]string, error) {
			s, err := LoadSessionSettings(c)
			return s.Warnings, err
		},
		func(c *config.Config) ([]string, error) {
			s, err := LoadTelemetrySettings(c)
			return s.Warnings, err
		},
	}
}

// RefuseProjectProfileWidening merges each owner's tables with and
// without the selected profile's project tables: a warning only the
// profile causes is something it tried to loosen, and an error naming
// it. Errors of the tables themselves are left to the owners, which
// report them when they load.
func RefuseProjectProfileWidening(cfg *config.Config, ws, home string) error {
	name, _ := cfg.Profile()
	if name == "" || !cfg.ProjectProfileSections() {
		return nil
	}
	base := cfg.WithoutProjectProfile()
	for _, load := range tableWarnings(ws, home) {
		with, err := load(cfg)
		if err != nil {
			return nil
		}
		without, err := load(base)
		if err != nil {
			return nil
		}
		if extra := newWarnings(with, without); len(extra) > 0 {
			return fmt.Errorf("config: the project's profile %q may only tighten, and would loosen: %s; lower it, or define the profile in your user config",
				name, strings.Join(extra, "; "))
		}
	}
	return nil
}

// newWarnings returns the warnings of with that without does not have
// (counting repeats).
func newWarnings(with, without []string) []string {
	left := map[string]int{}
	for _, w := range without {
		left[w]++
	}
	var out []string
	for _, w := range with {
		if left[w] > 0 {
			left[w]--
			continue
		}
		out = append(out, w)
	}
	return out
}
