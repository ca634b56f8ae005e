package skill

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Source is one directory of skills: each folder in it is a skill.
type Source struct {
	// Dir holds the skill folders.
	Dir string
	// Layer says who controls Dir.
	Layer Layer
	// Confine, when set, is a directory that every path of this source
	// must resolve inside, symbolic links included: the workspace, for
	// project sources, so that a repository's .claude/skills/x -> /home
	// link is refused. Dir must lie inside it. User sources leave it empty
	// and may link skill folders from anywhere.
	Confine string
}

// DefaultSources returns the layers rein reads, in shadowing order:
// <configDir>/skills (the user's, with configDir usually ~/.config/rein;
// skipped when configDir is ""), then the workspace's .agents/skills,
// .claude/skills and .rein/skills (skipped when workspace is "").
func DefaultSources(configDir, workspace string) []Source {
	var out []Source
	if configDir != "" {
		out = append(out, Source{Dir: filepath.Join(configDir, "skills"), Layer: LayerUser})
	}
	if workspace != "" {
		for _, d := range []string{".agents", ".claude", ".rein"} {
			out = append(out, Source{Dir: filepath.Join(workspace, d, "skills"), Layer: LayerProject, Confine: workspace})
		}
	}
	return out
}

// Catalog is the result of discovery: the skills by name and what was
// wrong on the way. It is not modified after Discover returns and is safe
// for concurrent use.
type Catalog struct {
	skills   []*Skill // sorted by name
	byName   map[string]*Skill
	problems []Problem
}

// Skills returns the skills sorted by name, as a new slice.
func (c *Catalog) Skills() []*Skill {
	if c == nil {
		return nil
	}
	return slices.Clone(c.skills)
}

// Get returns the skill called name.
func (c *Catalog) Get(name string) (*Skill, bool) {
	if c == nil {
		return nil, false
	}
	s, ok := c.byName[name]
	return s, ok
}

// Names returns the skill names, sorted.
func (c *Catalog) Names() []string {
	if c == nil {
		return nil
	}
	out := make([]string, len(c.skills))
	for i, s := range c.skills {
		out[i] = s.Name
	}
	return out
}

// Problems returns every problem and warning, in discovery order.
func (c *Catalog) Problems() []Problem {
	if c == nil {
		return nil
	}
	return slices.Clone(c.problems)
}

// NewCatalog returns a catalog of the given skills (later ones shadow
// earlier ones of the same name, with a warning), for programs that
// define skills in code; Discover builds one from folders.
func NewCatalog(skills ...*Skill) *Catalog {
	c := &Catalog{byName: map[string]*Skill{}}
	for _, s := range skills {
		c.add(s)
	}
	c.finish()
	return c
}

// Discover loads the skills of every source, in order; a skill shadows an
// earlier one of the same name, with one warning. A missing source
// directory is not a problem (most workspaces have none). Discover never
// fails: everything wrong is a Problem, and a malformed skill is skipped
// with exactly one.
func Discover(sources ...Source) *Catalog {
	c := &Catalog{byName: map[string]*Skill{}}
	for _, src := range sources {
		c.discover(src)
	}
	c.finish()
	return c
}

func (c *Catalog) finish() {
	c.skills = c.skills[:0]
	for _, s := range c.byName {
		c.skills = append(c.skills, s)
	}
	slices.SortFunc(c.skills, func(a, b *Skill) int { return strings.Compare(a.Name, b.Name) })
}

func (c *Catalog) add(s *Skill) {
	if old, ok := c.byName[s.Name]; ok {
		where := old.Dir
		if where == "" {
			where = "the program"
		}
		c.problems = append(c.problems, Problem{Path: s.File, Field: "name",
			Message: fmt.Sprintf("shadows the %s skill %q from %s", old.Layer, s.Name, clipLine(where, 200))})
	}
	c.byName[s.Name] = s
}

// sourceRoot opens src.Dir, through src.Confine when set. It returns the
// confining root (or nil) for opening skill folders, and Dir relative to it.
func sourceRoot(src Source) (dirRoot, confine *os.Root, rel string, err error) {
	if src.Confine == "" {
		dirRoot, err = os.OpenRoot(src.Dir)
		return dirRoot, nil, "", err
	}
	rel, err = filepath.Rel(src.Confine, src.Dir)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, nil, "", fmt.Errorf("%s is not inside %s", src.Dir, src.Confine)
	}
	confine, err = os.OpenRoot(src.Confine)
	if err != nil {
		return nil, nil, "", err
	}
	dirRoot, err = confine.OpenRoot(rel)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && escapes(confine, rel) {
			err = errSourceOutside
		}
		confine.Close()
		return nil, nil, "", err
	}
	return dirRoot, confine, rel, nil
}

func (c *Catalog) discover(src Source) {
	dirRoot, confine, rel, err := sourceRoot(src)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if errors.Is(err, errSourceOutside) {
		c.problems = append(c.problems, Problem{Path: src.Dir, Skipped: true, Message: "is a symbolic link (or lies under one) leading outside the workspace; project skills must live inside it"})
		return
	}
	if err != nil {
		c.problems = append(c.problems, Problem{Path: src.Dir, Message: "cannot open the skills folder: " + clipLine(unwrapPath(err).Error(), 200)})
		return
	}
	defer dirRoot.Close()
	if confine != nil {
		defer confine.Close()
	}
	entries, err := fs.ReadDir(dirRoot.FS(), ".")
	if err != nil {
		c.problems = append(c.problems, Problem{Path: src.Dir, Message: "cannot list the skills folder: " + clipLine(unwrapPath(err).Error(), 200)})
		return
	}
	if len(entries) > MaxSkillsPerSource {
		c.problems = append(c.problems, Problem{Path: src.Dir, Message: fmt.Sprintf("holds %d entries; only the first %d are read", len(entries), MaxSkillsPerSource)})
		entries = entries[:MaxSkillsPerSource]
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		if !e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
			if name == SkillFile || name == ManifestFile {
				c.problems = append(c.problems, Problem{Path: filepath.Join(src.Dir, name), Skipped: true,
					Message: "a skill file directly in the skills folder is not read; put it in a folder named after the skill"})
			}
			continue // README.md and the like
		}
		c.loadEntry(src, dirRoot, confine, rel, name)
	}
}

// loadEntry loads one folder of a source. Symbolic links to folders are
// followed for user sources and, for confined ones, only inside Confine.
func (c *Catalog) loadEntry(src Source, dirRoot, confine *os.Root, rel, name string) {
	dir := filepath.Join(src.Dir, name)
	var root *os.Root
	var err error
	switch {
	case confine != nil:
		root, err = confine.OpenRoot(filepath.Join(rel, name))
	default:
		root, err = os.OpenRoot(dir)
	}
	if err != nil {
		fi, statErr := dirRoot.Lstat(name)
		switch {
		case statErr == nil && fi.Mode()&fs.ModeSymlink != 0 && confine != nil:
			c.problems = append(c.problems, Problem{Path: dir, Skipped: true, Message: "is a symbolic link leading outside the workspace (or to nothing); project skills must live inside it"})
		case errors.Is(unwrapPath(err), fs.ErrNotExist) || isNotDir(err):
			if fi != nil && fi.Mode()&fs.ModeSymlink != 0 {
				c.problems = append(c.problems, Problem{Path: dir, Skipped: true, Message: "is a symbolic link that does not lead to a folder"})
			}
		default:
			c.problems = append(c.problems, Problem{Path: dir, Skipped: true, Message: "cannot open the skill folder: " + clipLine(unwrapPath(err).Error(), 200)})
		}
		return
	}
	defer root.Close()
	s, problems := loadRoot(root, dir, src.Layer)
	c.problems = append(c.problems, problems...)
	if s == nil {
		return
	}
	if confine != nil {
		s.confine, s.dirInConfine = src.Confine, filepath.Join(rel, name)
	}
	c.add(s)
}

// errSourceOutside is a project skills folder that leads out of the
// workspace.
var errSourceOutside = errors.New("the skills folder leads outside the workspace")

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
