//go:build linux

package fs

import (
	"encoding/binary"
	"fmt"
	iofs "io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/reinharness/rein/workspace"
)

// dirHandle is an open directory of a search walk. On Linux it is a bare
// descriptor: the start directory is opened through an os.Root of the
// workspace (so its path is confined like every workspace access), and
// everything below it with openat on a single name with O_NOFOLLOW,
// which cannot leave the directory. Listing reads the entries' types
// straight from getdents64, where os.File.ReadDir on a Root-opened
// directory would lstat every entry, and files are read without an
// os.File, whose set-up (poller registration, finalizer) costs as much
// as the read of a small file.
type dirHandle struct {
	fd  int
	ws  *workspace.Workspace
	rel string
}

func openStartDir(ws *workspace.Workspace, rel string) (*dirHandle, error) {
	base, err := os.OpenRoot(ws.Dir())
	if err != nil {
		return nil, err
	}
	defer base.Close()
	f, err := base.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return nil, errno
	}
	return &dirHandle{fd: int(fd), ws: ws, rel: rel}, nil
}

func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := syscall.Openat(dirfd, name, flags|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// openDir opens the subdirectory name.
func (h *dirHandle) openDir(name string) (*dirHandle, error) {
	fd, err := openat(h.fd, name, syscall.O_RDONLY|syscall.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	return &dirHandle{fd: fd, ws: h.ws, rel: joinRel(h.rel, name)}, nil
}

func (h *dirHandle) close() { syscall.Close(h.fd) }

var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// readDir lists the directory sorted by name, as workspace.ReadDir does.
func (h *dirHandle) readDir() ([]iofs.DirEntry, error) {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	// One allocation per directory for the entries and one per read for
	// their names, rather than several per entry.
	var dirents []rawDirent
	for {
		n, err := syscall.ReadDirent(h.fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		names := string(buf[:n])
		for off := 0; off+19 <= n; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(binary.NativeEndian.Uint16(buf[off+16 : off+18]))
			if reclen < 19 || off+reclen > n {
				return nil, fmt.Errorf("list %s: malformed directory entry", h.rel)
			}
			ino := binary.NativeEndian.Uint64(buf[off : off+8])
			typ := buf[off+18]
			name := names[off+19 : off+reclen]
			if i := strings.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off += reclen
			if ino == 0 || name == "." || name == ".." {
				continue
			}
			mode, err := h.direntType(typ, name)
			if err != nil {
				continue // vanished since it was listed
			}
			dirents = append(dirents, rawDirent{name: name, typ: mode, dir: h})
		}
	}
	entries := make([]iofs.DirEntry, len(dirents))
	for i := range dirents {
		entries[i] = &dirents[i]
	}
	slices.SortFunc(entries, func(a, b iofs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

func (h *dirHandle) direntType(t uint8, name string) (iofs.FileMode, error) {
	switch t {
	case syscall.DT_REG:
		return 0, nil
	case syscall.DT_DIR:
		return iofs.ModeDir, nil
	case syscall.DT_LNK:
		return iofs.ModeSymlink, nil
	case syscall.DT_FIFO:
		return iofs.ModeNamedPipe, nil
	case syscall.DT_SOCK:
		return iofs.ModeSocket, nil
	case syscall.DT_CHR:
		return iofs.ModeDevice | iofs.ModeCharDevice, nil
	case syscall.DT_BLK:
		return iofs.ModeDevice, nil
	}
	// DT_UNKNOWN: some file systems leave the type to a stat.
	fi, err := h.ws.Lstat(joinRel(h.rel, name))
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}

// readFile reads the regular file name whole into buf (grown as needed),
// refusing anything else and, with workspace.ErrTooLarge, files over
// limit, as workspace.ReadFile does.
func (h *dirHandle) readFile(name string, buf []byte, limit int64) ([]byte, error) {
	// O_NONBLOCK: a FIFO swapped in since the listing cannot block the open.
	fd, err := openat(h.fd, name, syscall.O_RDONLY|syscall.O_NONBLOCK)
	if err != nil {
		return buf, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return buf, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return buf, fmt.Errorf("%s is not a regular file", name)
	}
	if st.Size > limit {
		return buf, fmt.Errorf("%w: %s is %d bytes", workspace.ErrTooLarge, name, st.Size)
	}
	return readAll(func(p []byte) (int, error) {
		for {
			n, err := syscall.Read(fd, p)
			if err != syscall.EINTR {
				return max(n, 0), err
			}
		}
	}, buf, st.Size, limit, name)
}

// rawDirent is an os.DirEntry from getdents64.
type rawDirent struct {
	name string
	typ  iofs.FileMode
	dir  *dirHandle // for Info; only its names are used, never its descriptor
}

func (e *rawDirent) Name() string                 { return e.name }
func (e *rawDirent) IsDir() bool                  { return e.typ.IsDir() }
func (e *rawDirent) Type() iofs.FileMode          { return e.typ }
func (e *rawDirent) Info() (iofs.FileInfo, error) { return e.dir.ws.Lstat(joinRel(e.dir.rel, e.name)) }
func (e *rawDirent) String() string               { return iofs.FormatDirEntry(e) }
