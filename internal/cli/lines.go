package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// maxChatLine bounds one line of chat input; a longer line is skipped with
// an error rather than buffered without limit.
const maxChatLine = 1 << 20

// inputLine is one line read from the chat's input, or an error about it.
type inputLine struct {
	text string
	err  error
}

// readLines reads r line by line in a goroutine, so the session can wait
// for input and for interrupts at the same time. The channel is unbuffered:
// the reader runs at most one line ahead of the session. It is closed at
// EOF or on a read error (reported first). The goroutine ends at the end of
// the input or, once the session stops listening (ctx done), at its next
// line; a read blocked on a terminal ends when the process exits.
func readLines(ctx context.Context, r io.Reader) <-chan inputLine {
	ch := make(chan inputLine)
	send := func(in inputLine) bool {
		select {
		case ch <- in:
			return true
		case <-ctx.Done():
			return false
		}
	}
	go func() {
		defer close(ch)
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, tooLong, err := readLine(br)
			ok := true
			switch {
			case tooLong:
				ok = send(inputLine{err: fmt.Errorf("input line longer than %d KiB ignored", maxChatLine>>10)})
			case line != "" || err == nil:
				ok = send(inputLine{text: line})
			}
			if !ok {
				return
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					send(inputLine{err: fmt.Errorf("reading input: %w", err)})
				}
				return
			}
		}
	}()
	return ch
}

// readLine returns the next line without its line ending. A line over
// maxChatLine is consumed and reported as tooLong. err is io.EOF at the end
// of the input (line may still hold a final unterminated line).
func readLine(br *bufio.Reader) (line string, tooLong bool, err error) {
	var buf bytes.Buffer
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if buf.Len()+len(chunk) > maxChatLine+2 { // room for "\r\n"
				tooLong = true
				buf.Reset()
			} else {
				buf.Write(chunk)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return "", true, err
		}
		return strings.TrimRight(buf.String(), "\r\n"), false, err
	}
}

// lineSource is the terminal's input shared by the chat loop and the
// console approver: both take whole lines from one reader goroutine, so
// an answer to an approval prompt is never read as the next chat message
// and a chat message is never taken as an answer. The reader starts on
// first use (a headless run with a prompt argument never reads stdin).
type lineSource struct {
	ctx  context.Context
	r    io.Reader
	once sync.Once
	ch   <-chan inputLine
}

// newLineSource reads r until ctx is done (see readLines).
func newLineSource(ctx context.Context, r io.Reader) *lineSource {
	return &lineSource{ctx: ctx, r: r}
}

// lines returns the channel of lines, starting the reader.
func (s *lineSource) lines() <-chan inputLine {
	s.once.Do(func() { s.ch = readLines(s.ctx, s.r) })
	return s.ch
}

// errInputEnded reports that the input ended while a line was wanted.
var errInputEnded = errors.New("the input ended")

// readLine returns the next line, or an error when the input ends, a line
// cannot be read, or ctx is done. It is the console approver's ReadLine.
func (s *lineSource) readLine(ctx context.Context) (string, error) {
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case in, ok := <-s.lines():
		switch {
		case !ok:
			return "", errInputEnded
		case in.err != nil:
			return "", in.err
		}
		return in.text, nil
	}
}
