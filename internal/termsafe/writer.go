package termsafe

import "io"

// Writer escapes everything written through it as Text does: control
// characters (C0 but newline and tab, DEL, C1), escape sequences (their
// ESC), bidi and invisible characters and invalid UTF-8 become visible
// escapes; backslashes are left alone, so text that was escaped already
// passes unchanged. It is for a command's whole human-readable output
// (its stderr, a listing on stdout), so no field a printer forgot can
// reach the terminal raw. It must not carry intended styling, JSON or a
// protocol. Writes are escaped one by one (each is whole text: a
// character split across two writes shows as \xNN escapes); Write is safe
// for concurrent use when the underlying writer is.
type Writer struct{ w io.Writer }

// NewWriter returns w escaped; a Writer is returned as it is.
func NewWriter(w io.Writer) io.Writer {
	if _, ok := w.(*Writer); ok {
		return w
	}
	return &Writer{w: w}
}

// Write implements io.Writer. It reports len(p) written when the escaped
// text was written whole.
func (e *Writer) Write(p []byte) (int, error) {
	s := string(p)
	out := Text(s)
	if _, err := io.WriteString(e.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// JSONWriter applies JSON to every write: each must be whole JSON text
// (one json.Encoder.Encode writes one value in one call). The output
// stays valid JSON that decodes to the same values, with no character a
// terminal obeys written raw. Write is safe for concurrent use when the
// underlying writer is.
type JSONWriter struct{ w io.Writer }

// NewJSONWriter returns w with JSON applied to each write.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

// Write implements io.Writer.
func (j *JSONWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(j.w, JSON(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
