package main

import (
	"fmt"
	"io"
	"math"
	"slices"
)

// row is one package of the report.
type row struct {
	pkg     string
	c       counts
	minimum float64
	listed  bool // the minimum is the package's own line, not the default
	ok      bool
}

type report struct {
	rows     []row
	total    counts
	minTotal float64
	hasTotal bool
	failures []string
}

// floor1 truncates to one decimal, as the table prints it, so that a
// package shown at its minimum passes.
func floor1(p float64) float64 { return math.Floor(p*10) / 10 }

// check compares the coverage of every counted package with its minimum.
func check(cov map[string]*counts, m *minimums) *report {
	r := &report{minTotal: m.total, hasTotal: m.hasTotal}
	for pkg, c := range cov {
		if m.excluded(pkg) {
			continue
		}
		min, listed := m.byPackage[pkg]
		if !listed {
			min = m.fallback
		}
		ok := floor1(c.percent()) >= min
		r.rows = append(r.rows, row{pkg: pkg, c: *c, minimum: min, listed: listed, ok: ok})
		r.total.statements += c.statements
		r.total.covered += c.covered
		if !ok {
			r.failures = append(r.failures, fmt.Sprintf("%s: %.1f%% of statements, under its minimum of %.1f%%", pkg, c.percent(), min))
		}
	}
	slices.SortFunc(r.rows, func(a, b row) int {
		switch {
		case a.pkg < b.pkg:
			return -1
		case a.pkg > b.pkg:
			return 1
		}
		return 0
	})
	slices.Sort(r.failures)
	var stale []string
	for pkg := range m.byPackage {
		if _, seen := cov[pkg]; !seen {
			stale = append(stale, fmt.Sprintf("%s: listed with a minimum but not in the profile (renamed or removed? fix its line)", pkg))
		} else if m.excluded(pkg) {
			stale = append(stale, fmt.Sprintf("%s: both excluded and given a minimum", pkg))
		}
	}
	slices.Sort(stale)
	r.failures = append(r.failures, stale...)
	if r.hasTotal && floor1(r.total.percent()) < r.minTotal {
		r.failures = append(r.failures, fmt.Sprintf("total: %.1f%% of statements, under the minimum of %.1f%%", r.total.percent(), r.minTotal))
	}
	return r
}

func (r *report) print(out io.Writer) {
	width := len("package")
	for _, x := range r.rows {
		width = max(width, len(x.pkg))
	}
	line := func(pkg string, statements any, covered, minimum, status string) {
		fmt.Fprintf(out, "%-*s  %10v  %7s  %7s  %s\n", width, pkg, statements, covered, minimum, status)
	}
	pct := func(p float64) string { return fmt.Sprintf("%.1f%%", p) }
	line("package", "statements", "covered", "minimum", "")
	for _, x := range r.rows {
		status := "ok"
		if !x.ok {
			status = "FAIL"
		}
		if !x.listed {
			status += " (default minimum)"
		}
		line(x.pkg, x.c.statements, pct(x.c.percent()), pct(x.minimum), status)
	}
	status := "ok"
	if r.hasTotal && floor1(r.total.percent()) < r.minTotal {
		status = "FAIL"
	}
	line("total", r.total.statements, pct(r.total.percent()), pct(r.minTotal), status)
}
