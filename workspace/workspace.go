// Package workspace confines file access and process execution to one
// directory tree: every path goes through an [os.Root], writes are atomic and
// journaled so a run's changes can be shown as a diff and undone, reads are
// size-capped with binary detection, and commands run in their own process
// group with a timeout, capped output, a scrubbed environment and, on Linux,
// a sandbox (namespaces and Landlock, see package sandbox).
package workspace

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reinharness/rein/workspace/sandbox"
)

// Defaults used when the corresponding Options field is zero.
const (
	DefaultMaxReadBytes      = 10 << 20 // 10 MiB
	DefaultJournalFileBytes  = 1 << 20  // 1 MiB per stored before/after
	DefaultJournalTotalBytes = 64 << 20 // 64 MiB across the journal
	DefaultExecTimeout       = 2 * time.Minute
	DefaultExecMaxOutput     = 64 << 10 // 64 KiB kept (head + tail)
	DefaultExecKillGrace     = 500 * time.Millisecond
	binarySniffBytes         = 8 << 10
	maxSymlinkHops           = 40
	defaultNewFileMode       = 0o644
	defaultNewDirMode        = 0o755
	tempPrefix               = ".rein-tmp-"
	callIDPrefixForGenerated = "ws-"
)

// Sentinel errors. Errors returned by this package wrap them, so callers can
// test with errors.Is and still show the one-line message to the model.
var (
	// ErrEscape reports a path that leads outside the workspace: "..",
	// an absolute path elsewhere, or a symlink pointing out.
	ErrEscape = errors.New("path escapes the workspace")
	// ErrTooLarge reports a file over the read cap.
	ErrTooLarge = errors.New("file too large")
	// ErrBinary reports a file that looks binary where text was required.
	ErrBinary = errors.New("file is binary")
	// ErrNotUndoable reports a journal entry whose contents were too large
	// to keep, so only their hashes were recorded.
	ErrNotUndoable = errors.New("change cannot be undone")
	// ErrConflict reports an undo refused because the file changed after
	// the journaled change (for example by a command).
	ErrConflict = errors.New("file changed since")
	// ErrClosed reports use of a closed workspace.
	ErrClosed = errors.New("workspace is closed")
	// ErrSandboxUnavailable reports that the sandbox mode is "required"
	// but the kernel cannot enforce it.
	ErrSandboxUnavailable = sandbox.ErrUnavailable
)

// Options configures a Workspace. The zero value is usable.
type Options struct {
	// MaxReadBytes caps a single file read (default DefaultMaxReadBytes).
	MaxReadBytes int64
	// JournalFileBytes caps the bytes kept for one before or after state;
	// larger contents are recorded as a SHA-256 hash and cannot be undone
	// (default DefaultJournalFileBytes).
	JournalFileBytes int64
	// JournalTotalBytes caps the bytes kept by the whole journal; when it
	// is exceeded the oldest stored contents are dropped to hashes first
	// (default DefaultJournalTotalBytes).
	JournalTotalBytes int64

	// Sandbox is the sandbox mode for Exec (default sandbox.Auto).
	Sandbox sandbox.Mode
	// SandboxReadable lists the directories commands may read; nil means
	// the whole filesystem. The workspace and the private temporary
	// directory are always readable and writable.
	SandboxReadable []string
	// SandboxWritable lists extra directories commands may write (a build
	// cache, say). Each one widens the sandbox: keep it short.
	SandboxWritable []string
	// SandboxNetwork lets commands use the network. Off by default:
	// commands get their own empty network namespace and Landlock denies
	// TCP.
	SandboxNetwork bool
	// SandboxProtected lists absolute paths inside the workspace that
	// commands may not change (bound read-only); nil means
	// sandbox.DefaultProtected(workspace), an empty non-nil slice
	// protects nothing. See sandbox.Policy.Protected.
	SandboxProtected []string
	// SandboxHidden lists absolute paths commands may not read (masked
	// by an empty directory or file), typically sandbox.DefaultHidden.
	// See sandbox.Policy.Hidden.
	SandboxHidden []string
	// SandboxLimits bounds each command's processes, memory, CPU time,
	// file sizes and open files (zero fields: sandbox.DefaultLimits;
	// sandbox.Unlimited turns one off). See sandbox.Limits.
	SandboxLimits sandbox.Limits
	// SandboxCaches are the workspace's persistent tool caches (Go, npm,
	// pip, cargo, XDG_CACHE_HOME) that sandboxed commands get instead of
	// a cache in the private temporary directory, which dies with the
	// session. The zero value: none. Their directories must exist (see
	// sandbox.Caches.Ensure).
	SandboxCaches sandbox.Caches

	// EnvAllow names environment variables kept even though their names
	// look secret (see ScrubEnv).
	EnvAllow []string
	// ExecTimeout, ExecMaxOutput and ExecKillGrace are the defaults for
	// Exec (DefaultExecTimeout, DefaultExecMaxOutput, DefaultExecKillGrace).
	ExecTimeout   time.Duration
	ExecMaxOutput int
	ExecKillGrace time.Duration

	// Now is the clock for journal timestamps (default time.Now).
	Now func() time.Time
	// Logger receives the one-time sandbox warning (default slog.Default()).
	Logger *slog.Logger
}

// Workspace is a directory tree the tools may touch. All methods are safe
// for concurrent use; mutations are serialised so that the journal records
// each change against the state it replaced.
type Workspace struct {
	dir     string   // absolute, symlinks resolved
	aliases []string // other absolute spellings of dir accepted from models
	root    *os.Root
	opts    Options
	escape  error // the os.Root escape error value, for errors.Is

	mu      sync.Mutex // serialises mutations and the journal
	journal journal
	closed  bool
	// snap is the last scan for a command's own writes (snapshot.go).
	snap snapCache

	tmpOnce sync.Once
	tmpDir  string
	tmpErr  error

	warnOnce sync.Once
	// probe overrides the Landlock probe (tests of the no-Landlock path).
	probe func() (int, error)
	// nsProbe overrides the namespace probe (tests of the fallback).
	nsProbe func() (string, error)
	// tracker records running commands (TrackProcesses).
	tracker atomic.Pointer[ProcessTracker]
}

// Open opens dir as a workspace. dir must exist and be a directory.
func Open(dir string, opts Options) (*Workspace, error) {
	if dir == "" {
		return nil, errors.New("workspace: empty directory name; pass the project directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: resolve %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace: open %s: %w", dir, err)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("workspace: open %s: %w", dir, err)
	}
	if opts.Sandbox == "" {
		opts.Sandbox = sandbox.Auto
	}
	if _, err := sandbox.ParseMode(string(opts.Sandbox)); err != nil {
		root.Close()
		return nil, fmt.Errorf("workspace: %w", err)
	}
	fillDefaults(&opts)
	w := &Workspace{dir: real, root: root, opts: opts}
	if abs != real {
		w.aliases = append(w.aliases, abs)
	}
	// os.Root reports escapes with an unexported error value; capture it
	// from a lexical check (no filesystem access) so errors.Is can find it.
	if _, err := root.Lstat("../rein-escape-probe"); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			w.escape = pe.Err
		}
	}
	if opts.SandboxProtected == nil {
		w.opts.SandboxProtected = sandbox.DefaultProtected(real)
	}
	w.journal.init(opts)
	return w, nil
}

func fillDefaults(o *Options) {
	if o.MaxReadBytes <= 0 {
		o.MaxReadBytes = DefaultMaxReadBytes
	}
	if o.JournalFileBytes <= 0 {
		o.JournalFileBytes = DefaultJournalFileBytes
	}
	if o.JournalTotalBytes <= 0 {
		o.JournalTotalBytes = DefaultJournalTotalBytes
	}
	if o.ExecTimeout <= 0 {
		o.ExecTimeout = DefaultExecTimeout
	}
	if o.ExecMaxOutput <= 0 {
		o.ExecMaxOutput = DefaultExecMaxOutput
	}
	if o.ExecKillGrace <= 0 {
		o.ExecKillGrace = DefaultExecKillGrace
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Dir returns the workspace's absolute directory with symlinks resolved.
func (w *Workspace) Dir() string { return w.dir }

// FS returns a read-only file system rooted at the workspace. It follows
// the same confinement as every other method.
func (w *Workspace) FS() fs.FS { return w.root.FS() }

// MaxReadBytes returns the effective read cap.
func (w *Workspace) MaxReadBytes() int64 { return w.opts.MaxReadBytes }

// Close releases the root and removes the private temporary directory.
// The journal stays readable after Close.
func (w *Workspace) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.root.Close()
	if w.tmpDir != "" {
		if rerr := os.RemoveAll(w.tmpDir); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// Rel normalises a model-given path to a clean workspace-relative,
// slash-separated path ("." for the root). Absolute paths are accepted only
// when they lie inside the workspace directory. Rel is lexical: symlinks are
// checked when the path is used.
func (w *Workspace) Rel(name string) (string, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return "", fmt.Errorf("%w: path contains a NUL byte", ErrEscape)
	}
	if name == "" {
		return ".", nil
	}
	if filepath.IsAbs(name) {
		clean := filepath.Clean(name)
		for _, base := range append([]string{w.dir}, w.aliases...) {
			if clean == base {
				return ".", nil
			}
			if rest, ok := strings.CutPrefix(clean, base+string(filepath.Separator)); ok {
				return filepath.ToSlash(rest), nil
			}
		}
		return "", escapeError(name)
	}
	clean := filepath.Clean(name)
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", escapeError(name)
	}
	return filepath.ToSlash(clean), nil
}

// Abs returns the absolute host path of a workspace path, after the same
// checks as Rel. Use it only to hand a directory to a process; file access
// goes through the workspace methods.
func (w *Workspace) Abs(name string) (string, error) {
	rel, err := w.Rel(name)
	if err != nil {
		return "", err
	}
	return filepath.Join(w.dir, filepath.FromSlash(rel)), nil
}

func escapeError(name string) error {
	return fmt.Errorf("%w: %s (paths must stay inside the workspace; use a workspace-relative path)", ErrEscape, name)
}

// wrap turns os.Root errors into this package's: escapes become ErrEscape
// with the model's path in the message; other errors keep their cause.
func (w *Workspace) wrap(op, name string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrEscape) {
		return err
	}
	if w.escape != nil && errors.Is(err, w.escape) {
		return fmt.Errorf("%w: %s (it resolves outside the workspace, e.g. through a symlink)", ErrEscape, name)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %w", op, name, pe.Err)
	}
	return fmt.Errorf("%s %s: %w", op, name, err)
}

// checkOpen reports ErrClosed after Close. Callers hold no lock: closed is
// only ever set once, and a stale read just yields os.Root's own error.
func (w *Workspace) checkOpen() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	return nil
}

type callIDKey struct{}

// WithCallID returns a context carrying the id of the tool call on whose
// behalf the workspace is changed; the journal records it with each change.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallID returns the call id carried by ctx, or "" when there is none.
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

func callIDOrNew(ctx context.Context) string {
	if id := CallID(ctx); id != "" {
		return id
	}
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux
	return callIDPrefixForGenerated + hex.EncodeToString(b[:])
}
