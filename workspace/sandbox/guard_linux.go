//go:build linux

package sandbox

import (
	"encoding/json"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/reinharness/rein/workspace/sandbox/internal/child"
	"golang.org/x/sys/unix"
)

// The guard is what makes "nothing outlives rein" hold in every sandbox
// mode. A parent-death signal reaches only the direct child: with the
// sandbox off or Landlock alone, `bash -c 'sleep 1; touch x' &` leaves a
// grandchild that lives on after rein is killed, and bubblewrap's own
// --die-with-parent is set a moment after its clone. So Apply starts every
// launch through a small supervisor: rein re-executed with envGuard. It
//
//   - is started with a catchable parent-death signal (guardDeathSignal),
//     set by Go's fork before exec with the parent re-checked, so it exists
//     only while rein does;
//   - becomes a child subreaper, so every descendant that loses its parent
//     (a double fork, a daemon, bubblewrap's PID 1) is re-parented to it
//     and stays findable;
//   - checks that rein is still its parent, then starts the real launch in
//     its own process group with SIGKILL as the parent-death signal;
//   - when rein dies (the signal, or getppid polled as a backstop) kills
//     every descendant, again and again until none is left, then exits;
//   - when the launch's leader exits on its own, kills what it left behind
//     the same way and exits with the leader's status (a signal is passed
//     on as that signal), so rein sees what it would have seen without it.
//
// The command stays in the guard's process group, so rein's group signals
// (SIGTERM on timeout, an MCP server's stop) reach it as before; the guard
// ignores them while rein lives.

// envGuard carries the JSON guardConfig to the supervisor.
const envGuard = child.EnvGuard

// guardDeathSignal is the supervisor's parent-death signal. It must be
// catchable; a group SIGTERM from a living rein (a timeout) is told apart
// by getppid.
const guardDeathSignal = syscall.SIGTERM

// guardPoll is how often the supervisor checks getppid, the backstop for
// a parent-death signal that does not come (it follows the thread that
// forked, not the process).
const guardPoll = 100 * time.Millisecond

// guardKillBound caps the supervisor's final sweep: processes in
// uninterruptible sleep may take a while to die, the supervisor does not
// wait for them forever.
const guardKillBound = 2 * time.Second

// guardConfig is what the supervisor needs to know.
type guardConfig struct {
	// Parent is rein's pid: the supervisor starts nothing, and cleans up,
	// once its parent is another process.
	Parent int `json:"parent"`
	// Files is the number of extra descriptors (3, 4, …) to pass on.
	Files int `json:"files,omitempty"`
}

// noGuard turns the supervisor off (benchmarks compare with and without).
var noGuard bool

// guarded returns l started through the supervisor, which passes on
// files extra descriptors (the command's ExtraFiles).
func (l Launch) guarded(files int) Launch {
	if noGuard || l.Path == "" {
		return l
	}
	b, err := json.Marshal(guardConfig{Parent: os.Getpid(), Files: files})
	if err != nil {
		return l
	}
	g := l
	// Args[0] names the role in ps output; the supervisor starts Args[1]
	// with argv Args[2:].
	g.Args = append([]string{"rein-guard", l.Path}, l.Args...)
	g.Path = selfExe
	g.Env = append(l.Env[:len(l.Env):len(l.Env)], envGuard+"="+string(b))
	g.guard = true
	return g
}

// runGuard is the supervisor; it never returns.
func runGuard(raw string) {
	os.Unsetenv(envGuard) // the command must not see it (a nested rein)
	var cfg guardConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil || cfg.Parent <= 0 {
		guardFail("bad %s: %q", envGuard, raw)
	}
	if len(os.Args) < 3 {
		guardFail("no command to run")
	}
	// Before anything starts: from here on the death signal is caught, and
	// a death before this point has already been checked for below.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		guardFail("become a child subreaper: %v", err)
	}
	if os.Getppid() != cfg.Parent {
		os.Exit(childExitCode) // rein is gone: start nothing
	}
	fds := []uintptr{0, 1, 2}
	for i := range cfg.Files {
		fds = append(fds, uintptr(3+i))
	}
	pid, err := syscall.ForkExec(os.Args[1], os.Args[2:], &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: fds,
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		guardFail("exec %s: %v", os.Args[1], err)
	}
	// Close what was only passed on: the command holds its copies.
	for i := range cfg.Files {
		syscall.Close(3 + i)
	}
	g := &supervisor{}
	// Rein's death, seen by the watcher, ends the guard from there; the
	// leader's end is waited for here, with no hand-over between
	// goroutines on the common path (a loaded machine makes each one
	// cost a scheduling delay).
	go func() {
		tick := time.NewTicker(guardPoll)
		for {
			select {
			case <-sigs:
			case <-tick.C:
			}
			if os.Getppid() != cfg.Parent {
				g.killAll()
				os.Exit(childExitCode)
			}
		}
	}()
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil || got == pid { // ECHILD cannot come before the leader's end
			g.killAll()
			exitLike(ws)
		}
	}
}

// supervisor kills what the launch left.
type supervisor struct {
	mu sync.Mutex // one sweep at a time
}

// killAll SIGKILLs every descendant of the guard and reaps them until the
// guard has no child left (or guardKillBound passes). Each round finds
// what the previous one missed: a child forked while its parent was
// being killed is re-parented to the guard and found by the next walk.
// The children files are fast but not a consistent snapshot; from the
// third round on /proc is scanned whole.
func (g *supervisor) killAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	deadline := time.Now().Add(guardKillBound)
	self := os.Getpid()
	for round := 0; ; round++ {
		pids := descendantsOf(self)
		if round >= 2 {
			pids = append(pids, Descendants(self)...)
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		for {
			var ws unix.WaitStatus
			got, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if err == unix.EINTR {
				continue
			}
			if err != nil { // ECHILD: none left
				return
			}
			if got == 0 {
				break // some are still dying
			}
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// descendantsOf lists the living descendants of pid through the
// /proc/PID/task/TID/children files, falling back to a scan of /proc.
func descendantsOf(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 && len(out) < 1<<16 {
		p := queue[0]
		queue = queue[1:]
		kids, ok := childrenOf(p)
		if !ok {
			return Descendants(pid)
		}
		out = append(out, kids...)
		queue = append(queue, kids...)
	}
	return out
}

// childrenOf reads the children of every thread of pid; ok is false when
// the kernel has no children files (CONFIG_PROC_CHILDREN).
func childrenOf(pid int) (kids []int, ok bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, true // gone already
	}
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if err != nil {
			if os.IsNotExist(err) {
				if _, serr := os.Stat(dir + "/" + t.Name()); serr == nil {
					return nil, false // the task exists, the file does not
				}
			}
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				kids = append(kids, c)
			}
		}
	}
	return kids, true
}

// exitLike ends the guard the way the leader ended: with its exit status,
// or killed by the same signal.
func exitLike(ws unix.WaitStatus) {
	switch {
	case ws.Exited():
		os.Exit(ws.ExitStatus())
	case ws.Signaled():
		dieBySignal(ws.Signal())
	}
	os.Exit(childExitCode)
}

// dieBySignal kills the guard with sig, bypassing Go's own handlers (which
// would print a stack dump for SIGQUIT or SIGABRT into the command's
// output): the default disposition is restored, the signal unblocked on
// this thread and sent to it.
func dieBySignal(sig syscall.Signal) {
	if sig == syscall.SIGKILL || sig == syscall.SIGSTOP {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	runtime.LockOSThread()
	signal.Reset(sig)
	// struct kernel_sigaction: handler (SIG_DFL = 0), flags, restorer,
	// mask — all zero.
	var act [4]uint64
	_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	set := uint64(1) << (uint(sig) - 1)
	_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_UNBLOCK, uintptr(unsafe.Pointer(&set)), 0, 8, 0, 0)
	_ = unix.Tgkill(os.Getpid(), unix.Gettid(), sig)
	time.Sleep(100 * time.Millisecond) // delivery is asynchronous
	// A signal whose default is to be ignored: the shell's convention.
	os.Exit(128 + int(sig))
}

// guardFail reports a failure of the supervisor and exits.
func guardFail(format string, args ...any) {
	childFail(format, args...)
}
