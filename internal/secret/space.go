package secret

// Whitespace, for the matcher, is the ASCII space, tab, newline, carriage
// return, vertical tab and form feed, and the escapes \n, \r and \t that
// JSON and Go strings write for them (a wrapped base64 text inside a
// JSON document): a secret's encoding that a tool wrapped over lines, or
// split with spaces, reads whole without it.

// spaceStart marks the bytes that may start whitespace (see spaceAt).
var spaceStart = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\v': true, '\f': true, '\\': true}

// spaceAt returns how many bytes of whitespace start at s[i]: 1 for a
// whitespace byte, 2 for an escape such as \n, 0 otherwise.
func spaceAt(s string, i int) int {
	switch s[i] {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return 1
	case '\\':
		if i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r' || s[i+1] == 't') {
			return 2
		}
	}
	return 0
}

// hasSpace reports whether s holds whitespace the matcher skips.
func hasSpace(s string) bool {
	for i := range len(s) {
		if spaceAt(s, i) > 0 {
			return true
		}
	}
	return false
}
