// Command coverage prints the statement coverage of rein's library
// packages from the profile of one `go test -coverprofile` run and fails
// when a package falls under its minimum.
//
// It reads the profile scripts/test writes during its one `go test -race`
// run, so the suite is not run a second time for coverage, and the
// minimums from a checked-in file (scripts/coverage.txt):
//
//	# comment
//	exclude internal/cli      # a package, or a prefix ending in /
//	default 75                # minimum of a package without a line of its own
//	total 80                  # minimum over every package counted
//	agent 93                  # minimum of one package, in percent
//
// Package paths are relative to the module. A minimum names a package the
// profile must hold: a renamed or removed package makes the check fail
// until its line is changed, so no minimum silently stops applying.
//
// Usage: go run ./scripts/coverage -profile bin/cover.out -minimums scripts/coverage.txt
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	profile := flag.String("profile", "bin/cover.out", "coverage profile written by go test -coverprofile")
	minimums := flag.String("minimums", "scripts/coverage.txt", "the minimums file")
	gomod := flag.String("gomod", "go.mod", "go.mod naming the module whose packages are reported")
	flag.Parse()
	if err := run(*profile, *minimums, *gomod, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "coverage:", err)
		os.Exit(1)
	}
}

func run(profilePath, minimumsPath, gomodPath string, out io.Writer) error {
	module, err := readModule(gomodPath)
	if err != nil {
		return err
	}
	lim, err := readFile(minimumsPath, parseMinimums)
	if err != nil {
		return err
	}
	cov, err := readFile(profilePath, func(r io.Reader) (map[string]*counts, error) { return parseProfile(r, module) })
	if err != nil {
		return err
	}
	rep := check(cov, lim)
	rep.print(out)
	if len(rep.failures) > 0 {
		return fmt.Errorf("%d coverage check(s) failed:\n  %s\n(raise the coverage, or — for a deliberate drop — lower the line in %s and say why in the commit)",
			len(rep.failures), strings.Join(rep.failures, "\n  "), minimumsPath)
	}
	return nil
}

func readFile[T any](path string, parse func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	v, err := parse(f)
	if err != nil {
		return v, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// readModule returns the module path of go.mod.
func readModule(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", errors.New(path + ": no module line")
}
