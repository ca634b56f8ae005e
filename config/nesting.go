package config

import "fmt"

// Nesting limits. The TOML decoder's cost grows with the square of key and
// table depth (a 25 KB file of nested inline tables takes seconds), and a
// project file comes from an untrusted repository, so depth is bounded
// before parsing. Real configurations nest a handful of levels.
const (
	maxBracketDepth = 32 // nested [ and { outside strings
	maxKeyParts     = 32 // pieces of one dotted key or table name
)

// checkNesting scans data without parsing it and rejects pathological
// nesting. It tracks just enough TOML lexing (strings, comments) to not
// count brackets and dots inside them. A "run" is the text between
// separators (newline, '=', ',', brackets), so the dots of one dotted key
// are counted together whatever whitespace surrounds them, while a float
// like 1.5 counts one.
func checkNesting(path string, data []byte) error {
	const (
		normal = iota
		comment
		basic     // "…"
		literal   // '…'
		mlBasic   // """…"""
		mlLiteral // '''…'''
	)
	state, depth, dots, line := normal, 0, 0, 1
	fail := func(what string, limit int) error {
		return fmt.Errorf("config: %s:%d: %s nested deeper than %d levels; is this really a rein config file?", path, line, what, limit)
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '\n' {
			line++
			dots = 0
			if state == comment || state == basic || state == literal {
				// Single-line constructs end at the newline; a string left
				// open is the parser's error to report.
				state = normal
			}
			continue
		}
		switch state {
		case comment:
		case basic:
			switch c {
			case '\\':
				i++
			case '"':
				state = normal
			}
		case literal:
			if c == '\'' {
				state = normal
			}
		case mlBasic:
			switch {
			case c == '\\' && i+1 < len(data) && data[i+1] != '\n':
				i++
			case hasAt(data, i, `"""`):
				state, i = normal, i+2
			}
		case mlLiteral:
			if hasAt(data, i, `'''`) {
				state, i = normal, i+2
			}
		default:
			switch c {
			case '#':
				state = comment
			case '"':
				state = basic
				if hasAt(data, i, `"""`) {
					state, i = mlBasic, i+2
				}
			case '\'':
				state = literal
				if hasAt(data, i, `'''`) {
					state, i = mlLiteral, i+2
				}
			case '[', '{':
				dots = 0
				if depth++; depth > maxBracketDepth {
					return fail("tables or arrays", maxBracketDepth)
				}
			case ']', '}':
				dots = 0
				depth = max(0, depth-1)
			case '=', ',':
				dots = 0
			case '.':
				if dots++; dots >= maxKeyParts {
					return fail("dotted keys", maxKeyParts)
				}
			}
		}
	}
	return nil
}

func hasAt(data []byte, i int, s string) bool {
	return len(data)-i >= len(s) && string(data[i:i+len(s)]) == s
}
