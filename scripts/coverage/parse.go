package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
)

// counts are a package's statements and those the tests ran.
type counts struct{ statements, covered int }

func (c counts) percent() float64 {
	if c.statements == 0 {
		return 100
	}
	return 100 * float64(c.covered) / float64(c.statements)
}

// maxLine bounds one line of either file: profile lines are a path and
// five numbers, so a longer line is not a profile.
const maxLine = 64 << 10

// maxBlock bounds the statements of one block, so that sums cannot
// overflow: Go's blocks hold a handful.
const maxBlock = 1 << 20

// parseProfile sums a coverage profile ("mode: set" then lines
// "path/file.go:l.c,l.c statements count") by package, for the packages
// of module only. A block listed more than once (profiles merged from
// several test binaries) counts once, covered if any run covered it.
func parseProfile(r io.Reader, module string) (map[string]*counts, error) {
	type block struct {
		pkg        string
		statements int
		covered    bool
	}
	blocks := map[string]*block{}
	var order []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxLine)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if line == 1 {
			if !strings.HasPrefix(text, "mode: ") {
				return nil, errors.New("not a coverage profile: the first line is not \"mode: …\"")
			}
			continue
		}
		if text == "" {
			continue
		}
		key, pkg, stmts, count, err := profileLine(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		rel, ok := relPackage(pkg, module)
		if !ok {
			continue
		}
		b := blocks[key]
		if b == nil {
			b = &block{pkg: rel, statements: stmts}
			blocks[key] = b
			order = append(order, key)
		}
		b.covered = b.covered || count > 0
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if line == 0 {
		return nil, errors.New("empty profile")
	}
	out := map[string]*counts{}
	for _, key := range order {
		b := blocks[key]
		c := out[b.pkg]
		if c == nil {
			c = &counts{}
			out[b.pkg] = c
		}
		c.statements += b.statements
		if b.covered {
			c.covered += b.statements
		}
	}
	return out, nil
}

// profileLine splits "path/file.go:1.2,3.4 5 6" into the block's key, its
// package, statement count and execution count.
func profileLine(text string) (key, pkg string, stmts, count int, err error) {
	fields := strings.Fields(text)
	if len(fields) != 3 {
		return "", "", 0, 0, fmt.Errorf("want \"file:range statements count\", got %.80q", text)
	}
	file, span, ok := strings.Cut(fields[0], ":")
	if !ok || !strings.HasSuffix(file, ".go") || !strings.Contains(span, ",") {
		return "", "", 0, 0, fmt.Errorf("bad block %.80q", fields[0])
	}
	stmts, err1 := strconv.Atoi(fields[1])
	count, err2 := strconv.Atoi(fields[2])
	if err1 != nil || err2 != nil || stmts < 0 || stmts > maxBlock || count < 0 {
		return "", "", 0, 0, fmt.Errorf("bad counts in %.80q", text)
	}
	return fields[0], path.Dir(file), stmts, count, nil
}

// relPackage returns pkg relative to module ("." for the module's root).
func relPackage(pkg, module string) (string, bool) {
	if pkg == module {
		return ".", true
	}
	rel, ok := strings.CutPrefix(pkg, module+"/")
	return rel, ok && rel != ""
}

// minimums is the parsed minimums file.
type minimums struct {
	// exclude holds packages and prefixes ending in "/".
	exclude []string
	// byPackage holds each listed package's minimum, in percent.
	byPackage map[string]float64
	// fallback applies to packages without a line; total to the sum.
	fallback, total float64
	hasTotal        bool
}

func (m *minimums) excluded(pkg string) bool {
	for _, e := range m.exclude {
		if pkg == strings.TrimSuffix(e, "/") || strings.HasSuffix(e, "/") && strings.HasPrefix(pkg, e) {
			return true
		}
	}
	return false
}

// parseMinimums reads the minimums file (see the package documentation).
func parseMinimums(r io.Reader) (*minimums, error) {
	m := &minimums{byPackage: map[string]float64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxLine)
	line := 0
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			return nil, fmt.Errorf("line %d: want \"NAME VALUE\", got %.80q", line, strings.TrimSpace(text))
		}
		name, value := fields[0], fields[1]
		if name == "exclude" {
			m.exclude = append(m.exclude, value)
			continue
		}
		pct, err := strconv.ParseFloat(value, 64)
		if err != nil || !(pct >= 0 && pct <= 100) { // NaN is neither
			return nil, fmt.Errorf("line %d: %.80q is not a percentage from 0 to 100", line, value)
		}
		switch name {
		case "default":
			m.fallback = pct
		case "total":
			m.total, m.hasTotal = pct, true
		default:
			if _, dup := m.byPackage[name]; dup {
				return nil, fmt.Errorf("line %d: %s is listed twice", line, name)
			}
			m.byPackage[name] = pct
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return m, nil
}
