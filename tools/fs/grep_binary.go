package fs

import (
	"bytes"
	"unicode/utf8"
)

// binarySniff is how much of a file isBinary looks at: workspace's
// window, checked against workspace.IsBinary by TestIsBinaryAgrees.
const binarySniff = 8 << 10

// isBinary is workspace.IsBinary — a NUL byte or invalid UTF-8 in the
// first 8 KiB, a multi-byte character cut by the window not counting —
// with the NUL scan done by bytes.IndexByte rather than byte by byte: it
// runs on every file grep opens.
func isBinary(b []byte) bool {
	if len(b) > binarySniff {
		b = b[:binarySniff]
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0; i++ {
			r, size := utf8.DecodeLastRune(b)
			if r != utf8.RuneError || size != 1 {
				break
			}
			b = b[:len(b)-1]
		}
	}
	return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)
}
