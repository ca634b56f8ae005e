package memory

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/reinharness/rein/internal/secret"
)

// Limits are the caps a store enforces.
type Limits struct {
	// MaxEntryBytes caps one entry's text (default DefaultMaxEntryBytes).
	MaxEntryBytes int
	// MaxTotalBytes caps the store (default DefaultMaxTotalBytes).
	MaxTotalBytes int64
}

// WithDefaults fills zero fields.
func (l Limits) WithDefaults() Limits {
	if l.MaxEntryBytes <= 0 {
		l.MaxEntryBytes = DefaultMaxEntryBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = DefaultMaxTotalBytes
	}
	return l
}

// Prepare validates e and returns it as a store must keep it: secrets in
// text and tags redacted (the redactor the session store and logs use),
// text trimmed, tags trimmed, lower-cased, deduplicated and sorted, a
// user-scoped entry's workspace cleared. Every Store calls it first, so a
// secret never reaches storage whatever the caller forgot.
func Prepare(e Entry, l Limits) (Entry, error) {
	l = l.WithDefaults()
	e.Text = strings.TrimSpace(secret.Redact(e.Text))
	if e.Text == "" {
		return e, fmt.Errorf("%w: the text is empty", ErrInvalid)
	}
	if !utf8.ValidString(e.Text) {
		return e, fmt.Errorf("%w: the text is not valid UTF-8", ErrInvalid)
	}
	if len(e.Text) > l.MaxEntryBytes {
		return e, fmt.Errorf("%w: %d bytes, the limit is %d; keep a memory to a short note", ErrTooLarge, len(e.Text), l.MaxEntryBytes)
	}
	switch e.Scope {
	case ScopeUser:
		e.Workspace = ""
	case ScopeWorkspace:
		if e.Workspace == "" || !filepath.IsAbs(e.Workspace) {
			return e, fmt.Errorf("%w: a workspace entry needs the canonical workspace path, got %q", ErrInvalid, e.Workspace)
		}
		e.Workspace = filepath.Clean(e.Workspace)
	default:
		return e, fmt.Errorf("%w: scope %q must be %q or %q", ErrInvalid, e.Scope, ScopeUser, ScopeWorkspace)
	}
	switch e.Source.Kind {
	case SourceUser, SourceAgent, SourceTool:
	case "":
		e.Source.Kind = SourceUser
	default:
		return e, fmt.Errorf("%w: source %q must be user, agent or tool-derived", ErrInvalid, e.Source.Kind)
	}
	tags, err := cleanTags(e.Tags)
	if err != nil {
		return e, err
	}
	e.Tags = tags
	return e, nil
}

func cleanTags(in []string) ([]string, error) {
	var out []string
	for _, t := range in {
		t = strings.ToLower(strings.TrimSpace(secret.Redact(t)))
		if t == "" {
			continue
		}
		if len(t) > MaxTagBytes || !utf8.ValidString(t) || strings.ContainsFunc(t, func(r rune) bool { return r < ' ' || r == tagSep }) {
			return nil, fmt.Errorf("%w: tag %q must be at most %d bytes of printable text", ErrInvalid, clip(t, 80), MaxTagBytes)
		}
		out = append(out, t)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > MaxTags {
		return nil, fmt.Errorf("%w: %d tags, the limit is %d", ErrInvalid, len(out), MaxTags)
	}
	return out, nil
}

// tagSep separates tags where a store keeps them in one string.
const tagSep = '\x1f'

// JoinTags and SplitTags are the one-string form of tags a store may use:
// "\x1fa\x1fb\x1f", so a tag is found with a plain substring search for
// "\x1ftag\x1f".
func JoinTags(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	s := string(tagSep)
	return s + strings.Join(tags, s) + s
}

// SplitTags inverts JoinTags.
func SplitTags(s string) []string {
	s = strings.Trim(s, string(tagSep))
	if s == "" {
		return nil
	}
	return strings.Split(s, string(tagSep))
}

// NewID returns a fresh entry id: "m" and 16 hex digits.
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return "m" + hex.EncodeToString(b[:])
}

// ValidID reports whether id has NewID's form, so a hostile id never
// reaches a query or a message unchecked.
func ValidID(id string) bool {
	if len(id) != 17 || id[0] != 'm' {
		return false
	}
	_, err := hex.DecodeString(id[1:])
	return err == nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
