package lsp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Limits on what a server may send, so that a broken or hostile server
// cannot make rein buffer without end.
const (
	// maxFrame is the largest message body accepted. Workspace symbol and
	// reference results of a large repository fit well below it.
	maxFrame = 16 << 20
	// maxHeaderLine and maxHeaders bound the header block of one frame.
	maxHeaderLine = 1024
	maxHeaders    = 16
)

// errFrameTooLarge reports a body over maxFrame.
var errFrameTooLarge = errors.New("lsp: message larger than 16 MiB")

// readFrame reads one base-protocol message: header lines ended by CRLF
// (a bare LF is tolerated, as several servers' loggers emit it), an empty
// line, then Content-Length bytes of body.
func readFrame(r *bufio.Reader) ([]byte, error) {
	length := -1
	for n := 0; ; n++ {
		if n > maxHeaders {
			return nil, errors.New("lsp: too many header lines")
		}
		line, err := readLine(r)
		if err != nil {
			if n == 0 && errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			return nil, err
		}
		if line == "" {
			if n == 0 {
				n-- // blank lines between frames are harmless
				continue
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("lsp: malformed header line %q", clip(line, 80))
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			v, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || v < 0 {
				return nil, fmt.Errorf("lsp: bad Content-Length %q", clip(value, 40))
			}
			length = v
		}
	}
	if length < 0 {
		return nil, errors.New("lsp: frame without Content-Length")
	}
	if length > maxFrame {
		return nil, errFrameTooLarge
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("lsp: truncated message: %w", err)
	}
	return body, nil
}

// readLine reads one header line without its line ending.
func readLine(r *bufio.Reader) (string, error) {
	var b []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			if len(b) > 0 && errors.Is(err, io.EOF) {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
		b = append(b, chunk...)
		if len(b) > maxHeaderLine {
			return "", errors.New("lsp: header line too long")
		}
		if !isPrefix {
			return strings.TrimSuffix(string(b), "\r"), nil
		}
	}
}

// writeFrame writes body as one message in a single Write, so that
// concurrent writers serialized by the caller never interleave.
func writeFrame(w io.Writer, body []byte) error {
	buf := make([]byte, 0, len(body)+32)
	buf = append(buf, "Content-Length: "...)
	buf = strconv.AppendInt(buf, int64(len(body)), 10)
	buf = append(buf, "\r\n\r\n"...)
	buf = append(buf, body...)
	_, err := w.Write(buf)
	return err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
