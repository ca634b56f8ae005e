// Package child is the sandbox's re-executed child: the copy of the
// running binary that bubblewrap (or, without namespaces, rein's
// supervisor) starts with EnvMarker set, and that applies the limits and
// the Landlock ruleset rein prepared to itself before it replaces itself
// with the command.
//
// It is a package of its own, importing the standard library alone, so
// that its init function runs early: a package's init runs only once
// every package it imports has run its own, and among the packages ready
// the one with the smallest import path goes first, so the sandbox
// package (which imports go-landlock, whose libpsx sorts after
// golang.org/x/… and google.golang.org/…) ran after nearly every package
// of the binary. Here the child skips the initialisation of the rest of
// rein (protobuf descriptors, HTML entity tables, …), which it never
// uses. Rein builds the ruleset (sandbox.Prepare) and passes it as a
// descriptor, so the child needs no Landlock library.
package child

import (
	"fmt"
	"os"
)

// EnvMarker carries the JSON Config to the child.
const EnvMarker = "REIN_SANDBOX_EXEC"

// EnvGuard marks rein's supervisor, which the sandbox package runs; the
// child steps aside when it is set.
const EnvGuard = "REIN_GUARD_EXEC"

// ExitCode is the child's exit status when it cannot apply the sandbox or
// start the command (126: "command cannot execute").
const ExitCode = 126

// Config is what the child applies to itself, in order: it enters the
// cgroups, closes the descriptors the command must not hold, drops
// CAP_SYS_PTRACE, sets no-new-privileges, enforces the ruleset, sets the
// rlimits (dropping CAP_SYS_RESOURCE) and execs os.Args[1] with argv
// os.Args[2:].
type Config struct {
	// ExeFD is the descriptor through which bubblewrap started the child
	// (0: none); the child closes it before running the command.
	ExeFD int `json:"exe_fd,omitempty"`
	// RulesetFD is the Landlock ruleset rein built (0: none, Landlock is
	// missing or has nothing to enforce), enforced with RulesetFlags.
	RulesetFD    int    `json:"ruleset_fd,omitempty"`
	RulesetFlags uint32 `json:"ruleset_flags,omitempty"`
	// Limits are the rlimits the child sets before exec.
	Limits Limits `json:"limits"`
	// CgroupFDs are the command's cgroup descriptors, which the child
	// closes; with CgroupJoin (cgroup v1) they are its cgroup.procs, open
	// for writing, and it first writes "0" to each to enter the cgroup.
	CgroupFDs  []int `json:"cgroup_fds,omitempty"`
	CgroupJoin bool  `json:"cgroup_join,omitempty"`
}

// Limits are the rlimits the child sets on itself just before it execs
// the command (0: leave the inherited value).
type Limits struct {
	CPU    uint64 `json:"cpu,omitempty"` // seconds
	FSize  uint64 `json:"fsize,omitempty"`
	NoFile uint64 `json:"nofile,omitempty"`
	// NProc is set only inside the sandbox's own user namespace, where
	// the kernel counts the processes of that namespace alone; outside
	// one it would count every process of the user on the host.
	NProc uint64 `json:"nproc,omitempty"`
	// Data caps each process's data segment and private writable
	// mappings: the memory fallback when no cgroup bounds the whole
	// command. RLIMIT_AS is not used: it counts address space that is
	// only reserved (V8's and wasm's guard regions, the race detector),
	// which breaks ordinary tools long before memory runs out.
	Data uint64 `json:"data,omitempty"`
}

// Fail reports a failure of the child (or of the supervisor) and exits;
// it never returns.
func Fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "rein sandbox: "+format+"\n", args...)
	os.Exit(ExitCode)
}
