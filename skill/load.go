package skill

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Load loads the skill in folder dir (a SKILL.md or skill.json in it) as a
// skill of the given layer. It never panics on what the folder holds:
// a malformed skill yields nil and one Problem with Skipped set; a skill
// that loads may come with warnings (files left out of its listing).
//
// Load follows symbolic links in dir itself; Discover confines project
// skills further (see Source.Confine).
func Load(dir string, layer Layer) (*Skill, []Problem) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, []Problem{{Path: dir, Message: "cannot open the skill folder: " + clipLine(unwrapPath(err).Error(), 200), Skipped: true}}
	}
	defer root.Close()
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return loadRoot(root, abs, layer)
}

// loadRoot loads the skill whose folder is open as root; dir is its path
// for messages and Skill.Dir.
func loadRoot(root *os.Root, dir string, layer Layer) (*Skill, []Problem) {
	folder := filepath.Base(dir)
	skipped := func(file, field, msg string) (*Skill, []Problem) {
		return nil, []Problem{{Path: filepath.Join(dir, file), Field: field, Message: msg, Skipped: true}}
	}
	hasMD, hasJSON := exists(root, SkillFile), exists(root, ManifestFile)
	var s *Skill
	var warnings []Problem
	var p *fieldProblem
	file := SkillFile
	switch {
	case hasMD && hasJSON:
		return skipped(ManifestFile, "", "the folder holds both SKILL.md and skill.json; keep one of them")
	case hasMD:
		s, warnings, p = loadSkillMD(root, dir)
	case hasJSON:
		file = ManifestFile
		s, p = loadManifest(root, dir)
	default:
		msg := "the folder holds neither SKILL.md nor skill.json"
		if exists(root, "skill.md") || exists(root, "Skill.md") {
			msg += "; rename the skill file to SKILL.md (upper case)"
		}
		return nil, []Problem{{Path: dir, Message: msg, Skipped: true}}
	}
	if p != nil {
		return skipped(file, p.field, p.msg)
	}
	if s.Name != folder {
		return skipped(file, "name", fmt.Sprintf("%q does not match the folder name %q; rename one so they match", clipLine(s.Name, MaxNameLen), clipLine(folder, 80)))
	}
	s.Format, s.Layer, s.Dir, s.File = formatOf(file), layer, dir, filepath.Join(dir, file)
	var more []Problem
	s.Files, s.FilesTruncated, more = listFiles(root, dir)
	warnings = append(warnings, more...)
	if len(s.Context) > 0 {
		if n := len(contextSection(s.Name, s.Context)); n > MaxContextSectionBytes {
			warnings = append(warnings, Problem{Path: s.File, Field: "context_file", Message: fmt.Sprintf("the context section would be %d bytes, over the %d KiB limit; activating this skill will fail", n, MaxContextSectionBytes>>10)})
		}
	}
	return s, warnings
}

func formatOf(file string) Format {
	if file == ManifestFile {
		return FormatManifest
	}
	return FormatAgentSkill
}

// exists reports whether name is present in root (as anything, links not
// followed).
func exists(root *os.Root, name string) bool {
	_, err := root.Lstat(name)
	return err == nil
}

// readText reads a file of the skill whole, bounded, as UTF-8 text.
func readText(root *os.Root, name string, limit int64) ([]byte, *fieldProblem) {
	f, err := openRegular(root, name, name)
	if err != nil {
		return nil, &fieldProblem{"", fileProblem(err)}
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, &fieldProblem{"", fmt.Sprintf("is %d bytes, over the %d KiB limit; move detail into other files of the skill", fi.Size(), limit>>10)}
	}
	b, err := readAllBounded(f, name, limit)
	if err != nil {
		return nil, &fieldProblem{"", fileProblem(err)}
	}
	if !isText(b) {
		return nil, &fieldProblem{"", "is not UTF-8 text (it holds NUL bytes or invalid UTF-8)"}
	}
	return b, nil
}

// fileProblem words an open or read error for a Problem message.
func fileProblem(err error) string {
	switch {
	case errors.Is(err, ErrOutside):
		return "is a symbolic link pointing outside the skill folder; skill files must live inside it"
	case errors.Is(err, ErrTooLarge):
		return clipLine(err.Error(), 200)
	case errors.Is(err, ErrNotRegular):
		return "is not a regular file"
	}
	return "cannot be read: " + clipLine(err.Error(), 200)
}

// loadSkillMD reads and parses SKILL.md.
func loadSkillMD(root *os.Root, dir string) (*Skill, []Problem, *fieldProblem) {
	data, p := readText(root, SkillFile, MaxSkillFileBytes)
	if p != nil {
		return nil, nil, p
	}
	front, body, err := SplitFrontMatter(data)
	if err != nil {
		return nil, nil, &fieldProblem{"front matter", err.Error()}
	}
	fm, fw, p := parseFrontMatter(front)
	if p != nil {
		return nil, nil, p
	}
	var warnings []Problem
	for _, w := range fw {
		warnings = append(warnings, Problem{Path: filepath.Join(dir, SkillFile), Field: w.field, Message: w.msg})
	}
	rest := strings.TrimLeft(string(body), "\r\n")
	start := len(data) - len(rest)
	return &Skill{
		bodyFile:      SkillFile,
		bodyLine:      1 + bytes.Count(data[:start], []byte("\n")),
		Name:          fm.Name,
		Description:   fm.Description,
		License:       fm.License,
		Compatibility: fm.Compatibility,
		Metadata:      fm.Metadata,
		AllowedTools:  allowedOrNil(fm.AllowedTools),
		Body:          rest,
	}, warnings, nil
}

// allowedOrNil treats an empty allowed-tools list as none declared: an
// empty value is far more often a template left unfilled than a request
// for no tools at all.
func allowedOrNil(t []string) []string {
	if len(t) == 0 {
		return nil
	}
	return t
}

// loadManifest reads and parses skill.json and the files it names.
func loadManifest(root *os.Root, dir string) (*Skill, *fieldProblem) {
	data, p := readText(root, ManifestFile, MaxManifestBytes)
	if p != nil {
		return nil, p
	}
	m, p := parseManifest(data)
	if p != nil {
		return nil, p
	}
	prompt, p := readText(root, filepath.FromSlash(m.SystemPromptFile), MaxSkillFileBytes)
	if p != nil {
		return nil, &fieldProblem{"system_prompt_file", fmt.Sprintf("%s %s", clipLine(m.SystemPromptFile, 120), p.msg)}
	}
	s := &Skill{
		Name:         m.Name,
		Description:  m.Description,
		License:      m.License,
		Metadata:     m.Metadata,
		AllowedTools: allowedOrNil(m.AllowedTools),
		Body:         string(prompt),
		bodyFile:     m.SystemPromptFile,
		bodyLine:     1,
		MCPServers:   m.MCPServers,
	}
	if m.ContextFile != "" {
		ctx, p := readText(root, filepath.FromSlash(m.ContextFile), MaxContextFileBytes)
		if p != nil {
			return nil, &fieldProblem{"context_file", fmt.Sprintf("%s %s", clipLine(m.ContextFile, 120), p.msg)}
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, ctx); err != nil {
			return nil, &fieldProblem{"context_file", fmt.Sprintf("%s is not valid JSON: %s", clipLine(m.ContextFile, 120), clipLine(err.Error(), 160))}
		}
		s.Context = buf.Bytes()
	}
	return s, nil
}

// listFiles walks the skill folder without following symbolic links,
// bounded by MaxFiles and MaxDepth. Hidden entries (".git", ".DS_Store")
// are not listed. A link that resolves to a regular file inside the folder
// is listed with the target's size; any other link, and anything that is
// not a regular file, is left out with a warning.
func listFiles(root *os.Root, dir string) ([]File, bool, []Problem) {
	var files []File
	var warnings []Problem
	truncated, visited := false, 0
	warn := func(p, msg string) {
		warnings = append(warnings, Problem{Path: filepath.Join(dir, filepath.FromSlash(p)), Message: msg})
	}
	err := fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			warn(p, "cannot be listed: "+clipLine(unwrapPath(err).Error(), 160))
			return nil
		}
		if p == "." {
			return nil
		}
		if visited++; visited > 10*MaxFiles || len(files) >= MaxFiles {
			truncated = true
			return fs.SkipAll
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		depth := strings.Count(p, "/") + 1
		switch t := d.Type(); {
		case t.IsDir():
			if depth >= MaxDepth {
				truncated = true
				return fs.SkipDir
			}
		case t.IsRegular():
			fi, err := d.Info()
			if err != nil {
				warn(p, "cannot be listed: "+clipLine(unwrapPath(err).Error(), 160))
				return nil
			}
			files = append(files, File{Path: p, Size: fi.Size()})
		case t&fs.ModeSymlink != 0:
			fi, err := root.Stat(filepath.FromSlash(p))
			switch {
			case err != nil:
				warn(p, "is a symbolic link pointing outside the skill folder (or to nothing); it is left out")
			case fi.Mode().IsRegular():
				files = append(files, File{Path: p, Size: fi.Size()})
			default:
				warn(p, "is a symbolic link to "+typeWord(fi.Mode())+", which is not followed; it is left out")
			}
		default:
			warn(p, "is "+typeWord(t)+", not a regular file; it is left out")
		}
		return nil
	})
	if err != nil {
		warn(".", "cannot be listed: "+clipLine(unwrapPath(err).Error(), 160))
	}
	if truncated {
		warn(".", fmt.Sprintf("holds more than the listing shows (at most %d files, %d folders deep)", MaxFiles, MaxDepth))
	}
	return files, truncated, warnings
}
