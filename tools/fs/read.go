package fs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"strings"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// ReadFileArgs are read_file's arguments.
type ReadFileArgs struct {
	Path   string `json:"path" jsonschema:"file to read, relative to the workspace root"`
	Offset int    `json:"offset,omitempty" jsonschema:"1-based line number to start at (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"maximum number of lines to return (default 2000)"`
}

// ReadFile returns the read_file tool: a text file's lines, numbered like
// cat -n, from offset for limit lines, with a notice when more remain.
func ReadFile(ws *workspace.Workspace, opts Options) tool.Tool {
	opts = opts.withDefaults()
	desc := fmt.Sprintf("Read a text file from the workspace. Returns numbered lines (\"     1\\tfirst line\"), at most %d "+
		"by default; pass offset and limit to read other parts of long files. Lines longer than %d characters are cut. "+
		"Binary files are refused.", opts.ReadLines, opts.LineLength)
	return tool.Func("read_file", desc, func(ctx context.Context, a ReadFileArgs) (string, error) {
		return readFile(ws, opts, a)
	},
		tool.WithAnnotations(readOnly("Read file")),
		tool.WithEffects(tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}),
	)
}

func readFile(ws *workspace.Workspace, opts Options, a ReadFileArgs) (string, error) {
	if a.Path == "" {
		return "", errors.New("path is required")
	}
	if a.Offset < 0 || a.Limit < 0 {
		return "", errors.New("offset and limit must not be negative")
	}
	first := max(a.Offset, 1)
	limit := a.Limit
	if limit == 0 {
		limit = opts.ReadLines
	}
	var f *os.File
	var err error
	if m := opts.mountOf(a.Path); m != nil {
		f, err = m.Open(a.Path)
	} else {
		f, err = ws.OpenFile(a.Path)
	}
	if err != nil {
		if errors.Is(err, iofs.ErrNotExist) {
			return "", fmt.Errorf("%s does not exist; use list_dir or glob to find the right path", a.Path)
		}
		return "", err
	}
	defer f.Close()
	// Stream the file: a log far over the workspace's whole-file read
	// cap can still be read a page at a time.
	r := bufio.NewReaderSize(f, 64<<10)
	if head, _ := r.Peek(8 << 10); workspace.IsBinary(head) {
		return "", fmt.Errorf("%w: %s; only text files can be read", workspace.ErrBinary, a.Path)
	}
	var sb strings.Builder
	total, last, cutLines := 0, 0, 0
	full := false
	for {
		line, err := readLine(r, 4*opts.LineLength)
		if line != "" {
			total++
			if total >= first && total < first+limit && !full {
				line = strings.TrimRight(line, "\r\n")
				if len(line) > opts.LineLength {
					line, _ = tool.Truncate(line, opts.LineLength)
					line = strings.ReplaceAll(line, "\n", " ")
					cutLines++
				}
				fmt.Fprintf(&sb, "%6d\t%s\n", total, line)
				last = total
				full = sb.Len() > opts.OutputBytes
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("read %s: %w", a.Path, err)
		}
	}
	if total == 0 {
		return fmt.Sprintf("(%s is empty)", a.Path), nil
	}
	if first > total {
		return "", fmt.Errorf("offset %d is past the end of %s, which has %d lines", a.Offset, a.Path, total)
	}
	if cutLines > 0 {
		fmt.Fprintf(&sb, "[%d long line(s) were cut to %d characters]\n", cutLines, opts.LineLength)
	}
	if first > 1 || last < total {
		next := ""
		if last < total {
			next = fmt.Sprintf("; pass offset %d to read more", last+1)
		}
		fmt.Fprintf(&sb, "… [showing lines %d-%d of %d%s]\n", first, last, total, next)
	}
	return sb.String(), nil
}

// readLine reads one line (with its newline) keeping at most keep bytes of
// it: a 1 GB single-line file costs keep bytes, not a gigabyte.
func readLine(r *bufio.Reader, keep int) (string, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if room := keep - len(buf); room > 0 {
			buf = append(buf, chunk[:min(room, len(chunk))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return string(buf), err
	}
}
