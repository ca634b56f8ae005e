package fs

import (
	"bytes"
	"errors"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// fileResult is one file's share of grep's output, rendered by a search
// worker and merged in walk order by grepState.merge.
type fileResult struct {
	skipped bool   // over the read limit
	out     []byte // one block per matching line: separator, context, the line
	marks   []int  // where each block starts in out
	// more: a further matching line follows the last block; rendering
	// stopped because the merge can take no more (see render).
	more bool
}

// grepSearch is one grep call's settings, shared by its workers.
type grepSearch struct {
	ws       *workspace.Workspace
	opts     Options
	m        *lineMatcher
	ctxLines int
}

// grepWorker searches files for one grep call. Each search goroutine has
// its own: the read buffer and the matcher's state are reused from file
// to file.
type grepWorker struct {
	*grepSearch
	ms   *matchScratch
	buf  []byte // the file read
	out  []byte // the file's blocks being rendered
	slab []byte // where the rendered blocks are kept (see keep)
}

// readBufs keeps read buffers from one grep call to the next: each worker
// grows its own to the largest file it reads, megabytes on a large tree.
var readBufs sync.Pool

func (s *grepSearch) worker() *grepWorker {
	g := &grepWorker{grepSearch: s, ms: s.m.scratch()}
	if b, ok := readBufs.Get().(*[]byte); ok {
		g.buf = *b
	}
	return g
}

// release gives the worker's read buffer back for the next call.
func (g *grepWorker) release() {
	if cap(g.buf) > 0 {
		b := g.buf[:0]
		g.buf = nil
		readBufs.Put(&b)
	}
}

// slabSize is the size of the slabs rendered blocks are kept in.
const slabSize = 64 << 10

// keep copies a file's rendered blocks, which the next file's rendering
// overwrites, into the worker's current slab: many files' results share
// one allocation instead of each growing its own.
func (g *grepWorker) keep(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	if cap(g.slab)-len(g.slab) < len(b) {
		g.slab = make([]byte, 0, max(slabSize, len(b)))
	}
	n := len(g.slab)
	g.slab = append(g.slab, b...)
	return g.slab[n:len(g.slab):len(g.slab)]
}

// searchFile reads rel whole, as workspace.ReadFile would, skips it if it
// looks binary, and renders its matching lines.
func (g *grepWorker) searchFile(rel string) fileResult {
	f, err := g.ws.OpenFile(rel)
	if err != nil {
		return fileResult{}
	}
	return g.search(f, rel)
}

// searchIn is searchFile for a file of the walk, opened in its directory
// (nil if that could not be opened).
func (g *grepWorker) searchIn(dir *dirHandle, rel string) fileResult {
	if dir == nil {
		return fileResult{}
	}
	b, err := dir.readFile(path.Base(rel), g.buf[:0], g.ws.MaxReadBytes())
	g.buf = b[:0]
	return g.result(rel, b, err)
}

// search reads f (which it closes) and searches it.
func (g *grepWorker) search(f *os.File, rel string) fileResult {
	defer f.Close()
	b, err := readOpenFile(f, rel, g.buf[:0], g.ws.MaxReadBytes())
	g.buf = b[:0]
	return g.result(rel, b, err)
}

// result skips a file that could not be read or looks binary, and renders
// the matching lines of the others.
func (g *grepWorker) result(rel string, b []byte, err error) fileResult {
	if err != nil {
		return fileResult{skipped: errors.Is(err, workspace.ErrTooLarge)}
	}
	if isBinary(b) {
		return fileResult{}
	}
	r := g.render(rel, b, g.out[:0])
	g.out = r.out[:0]
	r.out = g.keep(r.out)
	return r
}

// render writes the blocks the old grep wrote for text's matching lines:
// each with up to ctxLines of context before and after, a "--" where a
// gap separates it from the previous block, trailing context stopping
// short of the next match. It stops once the merge could take no more —
// as many blocks as the match cap, or output past the byte cap — noting
// whether a further match exists, which is all the merge needs to know.
// The blocks are appended to out.
func (g *grepWorker) render(rel string, content, out []byte) fileResult {
	r := fileResult{out: out}
	// Lines as the old grep split them: a final '\n' ends the last line
	// rather than starting an empty one.
	text := bytes.TrimSuffix(content, []byte("\n"))
	ms := g.ms
	ms.start()
	ls, le, ok := ms.nextLine(text, 0)
	if !ok || g.m.textAnchored && !g.m.re.Match(content) {
		return r
	}
	lines := lineCounter{text: text}
	ctx := g.ctxLines
	lastPrinted := -1
	for ok {
		i := lines.index(ls)
		nls, nle, nok := 0, 0, false
		if le < len(text) {
			nls, nle, nok = ms.nextLine(text, le+1)
		}
		r.marks = append(r.marks, len(r.out))
		from := max(i-ctx, lastPrinted+1)
		if ctx > 0 && lastPrinted >= 0 && from > lastPrinted+1 {
			r.out = append(r.out, "--\n"...)
		}
		r.out = appendLeading(r.out, rel, text, ls, i, from)
		r.out = appendGrepLine(r.out, rel, i, ':', text[ls:le])
		lastPrinted = i
		next := -1
		if nok {
			next = lines.index(nls)
		}
		for j, end := i+1, le; j <= i+ctx && end < len(text) && j != next; j++ {
			start := end + 1
			end = lineEnd(text, start)
			r.out = appendGrepLine(r.out, rel, j, '-', text[start:end])
			lastPrinted = j
		}
		if len(r.marks) >= g.opts.GrepMatches || len(r.out) >= g.opts.OutputBytes {
			r.more = nok
			return r
		}
		ls, le, ok = nls, nle, nok
	}
	return r
}

// appendLeading appends lines from..i-1, the context before line i (which
// starts at ls).
func appendLeading(out []byte, rel string, text []byte, ls, i, from int) []byte {
	if from >= i {
		return out
	}
	var starts [maxGrepContext + 1]int
	n := i - from
	starts[n] = ls
	for k := n - 1; k >= 0; k-- {
		starts[k] = bytes.LastIndexByte(text[:starts[k+1]-1], '\n') + 1
	}
	for k := 0; k < n; k++ {
		out = appendGrepLine(out, rel, from+k, '-', text[starts[k]:starts[k+1]-1])
	}
	return out
}

// appendGrepLine is writeGrepLine on bytes.
func appendGrepLine(out []byte, rel string, i int, sep byte, line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\r"))
	out = append(out, rel...)
	out = append(out, sep)
	out = strconv.AppendInt(out, int64(i+1), 10)
	out = append(out, sep)
	if len(line) > grepLineLength {
		s, _ := tool.Truncate(string(line), grepLineLength)
		out = append(out, strings.ReplaceAll(s, "\n", " ")...)
	} else {
		out = append(out, line...)
	}
	return append(out, '\n')
}

// lineCounter turns offsets into line indexes, counting newlines only
// between the offsets asked for, which must not decrease.
type lineCounter struct {
	text  []byte
	pos   int
	count int
}

func (c *lineCounter) index(pos int) int {
	c.count += bytes.Count(c.text[c.pos:pos], []byte("\n"))
	c.pos = pos
	return c.count
}
