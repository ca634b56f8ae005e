package host

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/workspace/sandbox"
)

// sandboxSection is the [sandbox] table of a configuration file:
//
//	[sandbox]
//	mode = "auto"                  # auto | required | off
//	readable = ["/usr", "/etc"]    # default: the whole filesystem
//	writable = ["~/.cache/go-build"]
//	network = false                # default: off, on with the full preset
//	limits = { processes = 1024, memory = "4GiB" }   # see limitsSection
//	caches = ["go", "npm", "pip", "cargo", "xdg"]    # default: all; [] for none
//	cache_size = "10GiB"           # trim the workspace's caches above it; "off"
//
// The workspace and the run's private temporary directory are always
// readable and writable. Paths may start with ~/; relative paths are taken
// from the workspace.
type sandboxSection struct {
	Mode     string         `toml:"mode"`
	Readable *[]string      `toml:"readable"`
	Writable *[]string      `toml:"writable"`
	Network  *bool          `toml:"network"`
	Limits   *limitsSection `toml:"limits"`
	// Caches and CacheSize: see cachesSection.
	Caches    *[]string   `toml:"caches"`
	CacheSize *limitValue `toml:"cache_size"`
}

// SandboxSettings is the merged sandbox configuration.
type SandboxSettings struct {
	Mode sandbox.Mode
	// Readable is nil for the whole filesystem.
	Readable []string
	Writable []string
	// network is the user's [sandbox] network, nil when unset; a
	// project's network = false sets noNetwork. See allowNetwork.
	network   *bool
	noNetwork bool
	// Limits are the merged [sandbox] limits (zero fields: defaults).
	Limits sandbox.Limits
	// Caches are the persistent cache kinds and cacheSize their cap in
	// bytes (0: none); see mergeCaches.
	Caches    []string
	CacheSize int64
	// Warnings are project settings that were ignored because they
	// would loosen the sandbox.
	Warnings []string
}

// sandboxRank orders modes by strictness.
func sandboxRank(m sandbox.Mode) int {
	switch m {
	case sandbox.Off:
		return 0
	case sandbox.Required:
		return 2
	}
	return 1
}

// LoadSandbox merges the [sandbox] tables of every layer. The user's
// layers set the mode and the lists; a project layer comes with the
// repository, so it may only tighten: a stricter mode, a narrower
// readable list, network = false. Its writable list and any loosening
// are ignored with a warning.
func LoadSandbox(cfg *config.Config, ws, home string) (SandboxSettings, error) {
	s := SandboxSettings{Mode: sandbox.Auto, Caches: sandbox.CacheKinds, CacheSize: sandbox.DefaultCacheSize}
	for _, sec := range cfg.Sections("sandbox") {
		var t sandboxSection
		if err := sec.Decode(&t); err != nil {
			return SandboxSettings{}, err
		}
		mode := s.Mode
		if t.Mode != "" {
			m, err := sandbox.ParseMode(t.Mode)
			if err != nil {
				return SandboxSettings{}, sec.Errorf([]string{"mode"}, "sandbox.mode %q is not auto, required or off", t.Mode)
			}
			mode = m
		}
		readable, err := expandDirs(sec, "readable", t.Readable, ws, home)
		if err != nil {
			return SandboxSettings{}, err
		}
		writable, err := expandDirs(sec, "writable", t.Writable, ws, home)
		if err != nil {
			return SandboxSettings{}, err
		}
		if err := s.mergeLimits(sec, t.Limits); err != nil {
			return SandboxSettings{}, err
		}
		if err := s.mergeCaches(sec, t.Caches, t.CacheSize); err != nil {
			return SandboxSettings{}, err
		}
		if sec.Source.Layer != config.LayerProject {
			s.Mode = mode
			if t.Network != nil {
				s.network = t.Network
			}
			if t.Readable != nil {
				s.Readable = readable
			}
			for _, d := range writable {
				if !slices.Contains(s.Writable, d) {
					s.Writable = append(s.Writable, d)
				}
			}
			continue
		}
		s.applyProject(sec, mode, t, readable)
	}
	return s, nil
}

// applyProject merges a project layer, keeping only what tightens.
func (s *SandboxSettings) applyProject(sec config.RawSection, mode sandbox.Mode, t sandboxSection, readable []string) {
	where := sec.Source.Name
	if sandboxRank(mode) >= sandboxRank(s.Mode) {
		s.Mode = mode
	} else {
		s.warnf("%s: sandbox.mode %q ignored: a project can only tighten the sandbox (it is %q)", where, mode, s.Mode)
	}
	if t.Writable != nil && len(*t.Writable) > 0 {
		s.warnf("%s: sandbox.writable ignored: a project cannot widen what commands may write; add it to your user configuration", where)
	}
	if t.Network != nil {
		if *t.Network {
			s.warnf("%s: sandbox.network = true ignored: a project cannot give commands the network; set it in your user configuration", where)
		} else {
			s.noNetwork = true
		}
	}
	if t.Readable == nil {
		return
	}
	for _, d := range readable {
		if s.Readable != nil && !slices.ContainsFunc(s.Readable, func(r string) bool { return within(d, r) }) {
			s.warnf("%s: sandbox.readable ignored: %s is outside the readable directories of your configuration", where, d)
			return
		}
	}
	s.Readable = readable
	if s.Readable == nil {
		s.Readable = []string{}
	}
}

// AllowNetwork reports whether commands get the network under the
// effective policy preset: the user's [sandbox] network when set, else on
// for the full preset only; a project's network = false always wins.
func (s *SandboxSettings) AllowNetwork(preset string) bool {
	if s.noNetwork {
		return false
	}
	if s.network != nil {
		return *s.network
	}
	return preset == "full"
}

func (s *SandboxSettings) warnf(format string, args ...any) {
	s.Warnings = append(s.Warnings, fmt.Sprintf(format, args...))
}

// expandDirs makes a list's entries absolute: ~/ is the home directory,
// relative paths are inside the workspace.
func expandDirs(sec config.RawSection, key string, dirs *[]string, ws, home string) ([]string, error) {
	if dirs == nil {
		return nil, nil
	}
	out := make([]string, 0, len(*dirs))
	for _, d := range *dirs {
		switch {
		case d == "":
			return nil, sec.Errorf([]string{key}, "sandbox.%s has an empty entry; give a directory", key)
		case d == "~" || strings.HasPrefix(d, "~/"):
			if home == "" {
				return nil, sec.Errorf([]string{key}, "sandbox.%s entry %q: the home directory is unknown; give an absolute path", key, d)
			}
			d = filepath.Join(home, d[1:])
		case !filepath.IsAbs(d):
			d = filepath.Join(ws, d)
		}
		out = append(out, filepath.Clean(d))
	}
	return out, nil
}

// within reports whether dir is parent or inside it.
func within(dir, parent string) bool {
	rel, err := filepath.Rel(parent, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
