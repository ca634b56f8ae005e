package cli

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/history"
)

// maxAppendPrompt caps --append-system-prompt, file or text: it is sent
// on every model call, like the instructions, and has their cap.
const maxAppendPrompt = history.DefaultInstructionsBytes

// appendPromptHeader labels the appended text in the system prompt.
const appendPromptHeader = "# Appended with --append-system-prompt"

// readAppendPrompt resolves --append-system-prompt: a value naming an
// existing file (relative to the current directory) is that file's text,
// anything else is the text itself. Over the cap, a directory, or a file
// that is not UTF-8 text is a usage error: the user asked for exactly this
// text, so cutting it silently would be wrong.
func (a *App) readAppendPrompt(f *commonFlags) (string, error) {
	if f == nil || !f.fs.Changed("append-system-prompt") {
		return "", nil
	}
	v := f.loop.appendPrompt
	text, isFile, err := a.appendPromptFile(v)
	if err != nil {
		return "", err
	}
	what := "the text"
	if isFile {
		what = "the file " + v
	} else {
		text = v
	}
	if len(text) > maxAppendPrompt {
		return "", usagef("--append-system-prompt: %s is more than %d bytes; shorten it", what, maxAppendPrompt)
	}
	if !utf8.ValidString(text) {
		return "", usagef("--append-system-prompt: %s is not UTF-8 text", what)
	}
	return strings.TrimSpace(text), nil
}

// appendPromptFile reads v when it names a file; isFile is false when no
// such path exists (v is then literal text).
func (a *App) appendPromptFile(v string) (text string, isFile bool, err error) {
	if v == "" || strings.ContainsRune(v, '\n') || len(v) > 4096 {
		return "", false, nil
	}
	p := v
	if !filepath.IsAbs(p) {
		wd, err := a.Getwd()
		if err != nil {
			return "", false, nil
		}
		p = filepath.Join(wd, p)
	}
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrInvalid), err != nil && strings.Contains(err.Error(), "name too long"):
		return "", false, nil
	case err != nil:
		return "", false, usagef("--append-system-prompt: %v", err)
	case !fi.Mode().IsRegular():
		return "", false, usagef("--append-system-prompt: %s is not a regular file", v)
	}
	fh, err := os.Open(p)
	if err != nil {
		return "", false, usagef("--append-system-prompt: %v", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxAppendPrompt+1))
	if err != nil {
		return "", false, usagef("--append-system-prompt: reading %s: %v", v, err)
	}
	return strings.TrimPrefix(string(data), "\uFEFF"), true, nil
}

// instructionsSection is the [instructions] table:
//
//	[instructions]
//	others = true   # also read GEMINI.md, .github/copilot-instructions.md, .cursorrules, .cursor/rules/*.mdc
//
// Any layer may set it; the last one wins (the files are the project's
// own, under the same confinement as AGENTS.md).
type instructionsSection struct {
	Others *bool `toml:"others"`
}

// loadOtherInstructions returns [instructions] others (default true).
func loadOtherInstructions(cfg *config.Config) (bool, error) {
	others := true
	for _, sec := range cfg.Sections("instructions") {
		var t instructionsSection
		if err := sec.Decode(&t); err != nil {
			return false, err
		}
		if t.Others != nil {
			others = *t.Others
		}
	}
	return others, nil
}

// runInstructions loads the run's instructions and adds the
// --append-system-prompt text after them, listed as a file so /status
// shows it.
func (a *App) runInstructions(cfg *config.Config, h *harness) (*history.Instructions, error) {
	others, err := loadOtherInstructions(cfg)
	if err != nil {
		return nil, err
	}
	in := a.Env().LoadInstructions(h.ws.Dir(), others)
	if h.appendPrompt == "" {
		return in, nil
	}
	if in.Text != "" {
		in.Text += "\n\n"
	}
	in.Text += appendPromptHeader + "\n\n" + h.appendPrompt
	in.Files = append(in.Files, history.LoadedFile{Path: "--append-system-prompt"})
	return in, nil
}
