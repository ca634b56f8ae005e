package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Finding the worker whose process tree runs a command, through /proc:
// the command's ancestors, walked up by their parent ids.

// parentPID reads the parent id from /proc/PID/stat. The command name
// (field 2) is parenthesised and may hold spaces or parentheses, so the
// fields are counted from the last ')'.
func parentPID(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat: truncated", pid)
	}
	return strconv.Atoi(fields[1])
}

// ancestorIn returns the first of candidates that is pid or one of its
// ancestors, and whether there is one.
func ancestorIn(pid int, candidates map[int]bool) (int, bool) {
	for hops := 0; pid > 1 && hops < 64; hops++ {
		if candidates[pid] {
			return pid, true
		}
		ppid, err := parentPID(pid)
		if err != nil {
			return 0, false
		}
		pid = ppid
	}
	return 0, false
}

// processesNamed lists the processes whose /proc/PID/comm is comm.
func processesNamed(comm string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err == nil && strings.TrimSpace(string(b)) == comm {
			out = append(out, pid)
		}
	}
	return out
}

// cmdline is the process's command line, arguments joined by spaces.
func cmdline(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// runningUnder finds a process named comm whose command line contains
// arg and that descends from one of the workers: the worker and the
// process. ok is false when there is none (yet).
func runningUnder(workers []*worker, comm, arg string) (w *worker, pid int, ok bool) {
	byPID := map[int]*worker{}
	candidates := map[int]bool{}
	for _, w := range workers {
		if !w.exited() {
			byPID[w.pid()] = w
			candidates[w.pid()] = true
		}
	}
	for _, p := range processesNamed(comm) {
		if !strings.Contains(cmdline(p), arg) {
			continue
		}
		if a, found := ancestorIn(p, candidates); found {
			return byPID[a], p, true
		}
	}
	return nil, 0, false
}
