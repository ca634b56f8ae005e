package sandbox

import (
	"bytes"
	"os"
	"strconv"
)

// Descendants returns the pids of all living descendants of pid, found by
// walking /proc by parent pid. It catches children that moved to another
// process group or session (setsid), which a group kill misses; the guard
// and workspace's timeout kill both use it. At most 65,536 are returned.
func Descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentPID(child); ok {
			children[ppid] = append(children[ppid], child)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 && len(out) < 1<<16 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, children[p]...)
		queue = append(queue, children[p]...)
	}
	return out
}

// parentPID reads the ppid field of /proc/PID/stat. The command name in
// field 2 may contain spaces and parentheses, so parsing starts after the
// last ')'.
func parentPID(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	fields := bytes.Fields(b[i+1:])
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(fields[1]))
	return ppid, err == nil
}
