package cli

import (
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reinharness/rein/internal/termsafe"
)

// parse validates a non-empty answer to the field and returns the value
// to send: string, float64, int64, bool or []any of strings. Its errors
// are shown to the user, who is asked again.
func (f *formField) parse(in string) (any, error) {
	switch f.kind {
	case kindBool:
		switch strings.ToLower(in) {
		case "y", "yes", "true", "1":
			return true, nil
		case "n", "no", "false", "0":
			return false, nil
		}
		return nil, errors.New("answer y or n")
	case kindNumber:
		x, err := strconv.ParseFloat(in, 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, errors.New("enter a number, like 3.5")
		}
		return x, f.inRange(x)
	case kindInteger:
		n, err := strconv.ParseInt(in, 10, 64)
		if err != nil || n > 1<<53 || n < -(1<<53) {
			return nil, errors.New("enter a whole number, like 42")
		}
		return n, f.inRange(float64(n))
	case kindChoice:
		i, err := f.pick(in)
		if err != nil {
			return nil, err
		}
		return f.options[i].value, nil
	case kindMulti:
		return f.parseMulti(in)
	}
	return in, f.checkText(in)
}

// inRange checks a number against the field's bounds.
func (f *formField) inRange(x float64) error {
	if (f.min != nil && x < *f.min) || (f.max != nil && x > *f.max) {
		return fmt.Errorf("enter a number %s", boundsText(f.min, f.max))
	}
	return nil
}

// checkText checks free text against the field's length and format.
func (f *formField) checkText(s string) error {
	n := utf8.RuneCountInString(s)
	if (f.minLen != nil && n < *f.minLen) || (f.maxLen != nil && n > *f.maxLen) {
		return fmt.Errorf("enter %s characters (this is %d)", lengthText(f.minLen, f.maxLen), n)
	}
	switch f.format {
	case "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return errors.New("enter an email address, like ann@example.com")
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" || strings.ContainsAny(s, " \t") {
			return errors.New("enter an absolute URI, like https://example.com/")
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return errors.New("enter a date as YYYY-MM-DD, like 2026-03-31")
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return errors.New("enter a date and time in RFC 3339 form, like 2026-03-31T14:30:00Z")
		}
	}
	return nil
}

// pick resolves a choice by its number in the list, its value, its label,
// or either case-insensitively, trying each in turn; a match that is
// ambiguous at its step is an error.
func (f *formField) pick(in string) (int, error) {
	if n, err := strconv.Atoi(in); err == nil && n >= 1 && n <= len(f.options) {
		return n - 1, nil
	}
	if i := f.option(in); i >= 0 {
		return i, nil
	}
	steps := []func(c choice) bool{
		func(c choice) bool { return c.label == in },
		func(c choice) bool { return strings.EqualFold(c.value, in) || strings.EqualFold(c.label, in) },
	}
	for _, match := range steps {
		found := -1
		for i, c := range f.options {
			if !match(c) {
				continue
			}
			if found >= 0 && f.options[found].value != c.value {
				return 0, fmt.Errorf("%q matches more than one option; enter its number", clipText(in, 40))
			}
			found = i
		}
		if found >= 0 {
			return found, nil
		}
	}
	return 0, fmt.Errorf("%q is not an option; enter a number from 1 to %d or a value", clipText(in, 40), len(f.options))
}

// parseMulti resolves a comma-separated list of choices.
func (f *formField) parseMulti(in string) (any, error) {
	var (
		out  []any
		seen = map[string]bool{}
	)
	for _, part := range strings.Split(in, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		i, err := f.pick(part)
		if err != nil {
			return nil, err
		}
		if v := f.options[i].value; !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	n := len(out)
	if (f.minItems != nil && n < *f.minItems) || (f.maxItems != nil && n > *f.maxItems) || n == 0 {
		least := f.minItems
		if least == nil || *least < 1 {
			one := 1
			least = &one
		}
		return nil, fmt.Errorf("choose %s", countText(least, f.maxItems, "option"))
	}
	return out, nil
}

// label is how the field is named to the user: its title, else its name.
func (f *formField) label() string {
	if f.title != "" {
		return termText(f.title, 80)
	}
	return termText(f.name, 80)
}

// fullName is the label with the field's key when they differ: titles
// alone may not tell fields apart.
func (f *formField) fullName() string {
	if f.title != "" && f.title != f.name {
		return f.label() + " (" + termText(f.name, 60) + ")"
	}
	return f.label()
}

// header is the line that introduces a field.
func (f *formField) header() string {
	var b strings.Builder
	b.WriteString("• ")
	b.WriteString(f.fullName())
	if f.required {
		b.WriteString(", required")
	}
	if f.description != "" {
		b.WriteString(" — ")
		b.WriteString(termText(f.description, 300))
	}
	return b.String()
}

// maxShownOptions bounds the options listed for one field; the others can
// still be typed by value.
const maxShownOptions = 50

// optionLines lists the options of an enum field, numbered from 1.
func (f *formField) optionLines() []string {
	var out []string
	for i, c := range f.options {
		if i == maxShownOptions {
			out = append(out, fmt.Sprintf("    … and %d more (type a value)", len(f.options)-i))
			break
		}
		line := fmt.Sprintf("    %d) %s", i+1, termText(c.label, 100))
		if c.label != c.value {
			line += " [" + termText(c.value, 60) + "]"
		}
		out = append(out, line)
	}
	return out
}

// hint is the prompt for the field's answer: what to type and what Enter
// does.
func (f *formField) hint() string {
	var what string
	switch f.kind {
	case kindBool:
		what = "y/n"
	case kindNumber:
		what = "number " + boundsText(f.min, f.max)
	case kindInteger:
		what = "whole number " + boundsText(f.min, f.max)
	case kindChoice:
		what = "number or value"
	case kindMulti:
		what = "numbers or values separated by commas, " + countText(f.minItems, f.maxItems, "item")
	default:
		what = map[string]string{"": "text", "email": "email address", "uri": "URI",
			"date": "date YYYY-MM-DD", "date-time": "date-time RFC 3339"}[f.format]
		if f.minLen != nil || f.maxLen != nil {
			what += ", " + lengthText(f.minLen, f.maxLen) + " characters"
		}
	}
	what = strings.TrimSpace(what)
	switch {
	case f.def != nil:
		what += ", Enter for " + termText(f.defaultText(), 60)
	case !f.required:
		what += ", Enter to skip"
	}
	return "  " + what + ": "
}

// defaultText shows the default as the user would type it.
func (f *formField) defaultText() string {
	if f.def == nil {
		return ""
	}
	return f.answerText(f.defaultAnswer())
}

// answerText shows an answer the way the user chose it: options by their
// labels, booleans as yes or no.
func (f *formField) answerText(v any) string {
	switch v := v.(type) {
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = f.optionLabel(fmt.Sprint(x))
		}
		return strings.Join(parts, ", ")
	case string:
		if f.kind == kindChoice {
			return f.optionLabel(v)
		}
		return v
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// optionLabel returns the label of the option with value v (v itself if
// there is none).
func (f *formField) optionLabel(v string) string {
	if i := f.option(v); i >= 0 {
		return f.options[i].label
	}
	return v
}

// defaultAnswer is the default as the value to send.
func (f *formField) defaultAnswer() any {
	if ss, ok := f.def.([]string); ok {
		out := make([]any, len(ss))
		for i, s := range ss {
			out[i] = s
		}
		return out
	}
	return f.def
}

// boundsText describes a numeric range: "1–100", "≥ 0", "≤ 9" or "".
func boundsText(lo, hi *float64) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch {
	case lo != nil && hi != nil:
		return f(*lo) + "–" + f(*hi)
	case lo != nil:
		return "≥ " + f(*lo)
	case hi != nil:
		return "≤ " + f(*hi)
	}
	return ""
}

// lengthText describes a length range: "3–20", "at least 3", "at most 20".
func lengthText(lo, hi *int) string {
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf("%d–%d", *lo, *hi)
	case lo != nil:
		return fmt.Sprintf("at least %d", *lo)
	case hi != nil:
		return fmt.Sprintf("at most %d", *hi)
	}
	return "any number of"
}

// countText describes how many of something to choose.
func countText(lo, hi *int, noun string) string {
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		return plural(*lo, noun)
	case lo != nil && hi != nil:
		return fmt.Sprintf("%d–%d %ss", *lo, *hi, noun)
	case lo != nil:
		return fmt.Sprintf("at least %s", plural(*lo, noun))
	case hi != nil:
		return fmt.Sprintf("at most %s", plural(*hi, noun))
	}
	return "one or more " + noun + "s"
}

// termText makes text from a server or the model safe to show on a
// terminal, on one line: line breaks and tabs become spaces, every other
// control character (C0 and C1, which include the escape that starts
// terminal sequences), invisible and bidirectional formatting character
// and invalid byte is shown as an escape (termsafe.Line), and the text is
// cut to limit runes.
func termText(s string, limit int) string {
	s = layoutSpaces.Replace(s)
	return termsafe.Line(clipText(strings.TrimSpace(s), limit))
}

// layoutSpaces turns the layout characters of a one-line text into
// spaces (byte-wise: invalid UTF-8 stays, for termsafe to show).
var layoutSpaces = strings.NewReplacer("\n", " ", "\t", " ")

// termBlock is termText for a block of text that keeps its line breaks
// (a server's message), indented by indent.
func termBlock(s string, limit int, indent string) string {
	lines := strings.Split(clipText(s, limit), "\n")
	for i, l := range lines {
		lines[i] = indent + termText(l, limit)
	}
	return strings.Join(lines, "\n")
}

// clipText cuts s to limit runes, marking the cut with an ellipsis.
func clipText(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return string([]rune(s)[:limit]) + "…"
}

// urlHost returns the host an http(s) URL leads to, or "" for anything
// else (no host, another scheme, or characters a URL cannot hold).
func urlHost(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return ""
	}
	return u.Hostname()
}
