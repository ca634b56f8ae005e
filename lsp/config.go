package lsp

import (
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Config describes one language server, as [lsp.NAME] in rein's
// configuration does.
type Config struct {
	// Name is the table's name: "go", "typescript", …
	Name    string
	Command string
	Args    []string
	// Extensions are the file name endings the server handles, with
	// their dot (".go"); LanguageIDs maps each to the languageId sent in
	// didOpen (the extension without its dot when missing).
	Extensions  []string
	LanguageIDs map[string]string
	Env         map[string]string
	// Project is true for an entry from the project's own configuration:
	// it runs only once the project is trusted.
	Project bool
}

// Handles reports whether the server is for path.
func (c Config) Handles(path string) bool {
	return slices.Contains(c.Extensions, strings.ToLower(filepath.Ext(path)))
}

func (c Config) languageID(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if id, ok := c.LanguageIDs[ext]; ok {
		return id
	}
	return strings.TrimPrefix(ext, ".")
}

// Defaults are the servers rein knows, for use when their command is on
// PATH and the configuration does not name them.
var Defaults = []Config{
	{Name: "go", Command: "gopls", Extensions: []string{".go"}},
	{Name: "typescript", Command: "typescript-language-server", Args: []string{"--stdio"},
		Extensions:  []string{".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs"},
		LanguageIDs: map[string]string{".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact"}},
	{Name: "python", Command: "pyright-langserver", Args: []string{"--stdio"}, Extensions: []string{".py", ".pyi"},
		LanguageIDs: map[string]string{".py": "python", ".pyi": "python"}},
	{Name: "rust", Command: "rust-analyzer", Extensions: []string{".rs"}, LanguageIDs: map[string]string{".rs": "rust"}},
}

// Available returns configured, then each default whose name is not
// configured and whose command lookPath finds (exec.LookPath when nil).
func Available(configured []Config, lookPath func(string) (string, error)) []Config {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	out := append([]Config{}, configured...)
	for _, d := range Defaults {
		if slices.ContainsFunc(configured, func(c Config) bool { return c.Name == d.Name }) {
			continue
		}
		if path, err := lookPath(d.Command); err == nil {
			d.Command = path
			out = append(out, d)
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
