// Package search compares rein's grep and glob tools (package tools/fs,
// called through the tool interface with the JSON arguments a model
// sends) with ripgrep on the Go source tree, $(go env GOROOT)/src.
//
// rg runs with the flags that give it rein's semantics: hidden files are
// searched (rein skips only .git), .gitignore files are honoured even
// outside a git repository, and no ignore file beyond .gitignore is read
// (.ignore, .rgignore, the global excludes and parent directories'
// files, which rein does not read). rg is timed as a user pays for it:
// one process per search.
package search
