package shell

import (
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// Device writes are decided on where a path leads, not how it is spelled:
// /proc/<pid>/root and /proc/thread-self/root are the root again,
// /dev/char/M:m and /dev/block/M:m are devices by number, a symlink in the
// workspace (or anywhere, for what stat sees) may lead to a disk. Inside
// /dev only a short list of entries is harmless to write; everything else
// there counts as a device, because rein cannot tell a new disk name from
// an old one.

// harmlessDev are the /dev entries (relative to /dev) a command may write.
var harmlessDev = map[string]bool{
	"null": true, "zero": true, "full": true, "random": true, "urandom": true,
	"stdin": true, "stdout": true, "stderr": true, "tty": true, "ptmx": true, "fd": true,
}

// harmlessDevDirs are /dev directories whose entries are files, pipes or
// terminals, not devices.
var harmlessDevDirs = []string{"fd/", "shm/", "pts/", "mqueue/"}

// deviceReaders only read the files they are given, so naming a device is
// not writing it (their redirects are checked on their own). dd and its
// relatives write only of=.
var deviceReaders = map[string]bool{
	"cat": true, "head": true, "tail": true, "less": true, "more": true, "od": true, "xxd": true,
	"hexdump": true, "hd": true, "strings": true, "file": true, "stat": true, "ls": true,
	"blkid": true, "lsblk": true, "md5sum": true, "sha1sum": true, "sha256sum": true,
	"sha512sum": true, "b2sum": true, "cksum": true, "sum": true, "cmp": true, "diff": true,
	"wc": true, "grep": true, "echo": true, "printf": true, "test": true, "[": true,
	"readlink": true, "realpath": true, "basename": true, "dirname": true, "true": true,
	"false": true, ":": true, "udevadm": true, "findmnt": true, "df": true, "du": true,
	"dd": true, "dcfldd": true, "dc3dd": true, "sg_dd": true,
}

// passThrough are wrappers unwrapped outside the wrappers table: their
// arguments are another command's.
var passThrough = map[string]bool{"env": true, "command": true, "xargs": true, "busybox": true, "watch": true, "flock": true, "parallel": true}

// unrootProc strips /proc/<pid>/root (and task and thread-self forms)
// until none is left: /proc/self/root/proc/1/root/dev/sda is /dev/sda.
func unrootProc(p string) string {
	p = path.Clean(p)
	for range 8 {
		q := wspath.ProcAlias(p)
		if q == p {
			break
		}
		p = q
	}
	return p
}

// isRawDevice reports whether p names a disk, partition, memory or other
// device that writing could destroy: any /dev entry but the harmless ones.
func isRawDevice(p string) bool {
	if kernelTarget(unrootProc(p)) {
		return true
	}
	name, ok := strings.CutPrefix(unrootProc(p), "/dev/")
	if !ok || name == "" || harmlessDev[name] {
		return false
	}
	for _, d := range harmlessDevDirs {
		if strings.HasPrefix(name, d) && name != d {
			return false
		}
	}
	return true
}

// kernelTarget reports whether p is a kernel interface whose writes
// crash, reconfigure or read and write the memory of the host or a
// process: /proc/sysrq-trigger, /proc/sys, /proc/<pid>/mem, /proc/kcore,
// /sys.
func kernelTarget(p string) bool {
	switch {
	case p == "/proc/sysrq-trigger" || p == "/proc/kcore" || wspath.Within(p, "/proc/sys") || wspath.Within(p, "/sys"):
		return true
	case strings.HasPrefix(p, "/proc/"):
		if rest, ok := wspath.ProcEntry(p, "mem"); ok && rest == "" {
			return true
		}
	}
	return false
}

// statDevice reports whether p, followed through every symlink, is a
// block device or a memory device (see memoryDevice).
func statDevice(p string) bool {
	fi, err := os.Stat(p)
	if err != nil || fi.Mode()&fs.ModeDevice == 0 {
		return false
	}
	if fi.Mode()&fs.ModeCharDevice == 0 {
		return true
	}
	return memoryDevice(fi)
}

// anyRawDevice reports whether any of paths is a device. Inside the
// workspace no device node can appear (mknod is denied; symlinks are
// resolved by name), so only other paths are stat'ed: a link in /tmp to a
// disk.
func (a *analyzer) anyRawDevice(paths []string) bool {
	for _, p := range paths {
		p = unrootProc(p)
		if isRawDevice(p) || path.IsAbs(p) && !wspath.Within(p, a.ws) && statDevice(p) {
			return true
		}
	}
	return false
}

// deviceTarget returns the device a word may name (itself, the value of
// an option, of=FILE), wherever it resolves, or "".
// A word only known at run time is checked through its static guess
// (x=/dev/sda; … $x).
func (a *analyzer) deviceTarget(w word) string {
	p := w.path
	if !w.pathOK {
		p = w.alt
	}
	if p == "" {
		return ""
	}
	for _, c := range wspath.Candidates(p) {
		if a.anyRawDevice(a.absPaths(c)) || a.anyRawDevice(a.reached(c)) || a.anyRawDevice(a.procCwdPaths(c)) {
			return c
		}
	}
	return ""
}

// procCwdPaths are the paths /proc/<pid>/cwd/REST may name: REST in every
// directory the command may run in (for self) and in / (another
// process, say init, may sit there).
func (a *analyzer) procCwdPaths(p string) []string {
	rest, ok := wspath.ProcEntry(unrootProc(p), "cwd")
	if !ok {
		return nil
	}
	out := []string{path.Join("/", rest)}
	for _, d := range a.cwds {
		out = append(out, path.Join(d, rest))
	}
	return out
}

// checkDeviceWrites denies a command that names a device among its
// arguments, unless it only reads them; dd writes only of= and seek=.
func (a *analyzer) checkDeviceWrites(base string, ws []word) {
	dd := base == "dd" || base == "dcfldd" || base == "dc3dd" || base == "sg_dd"
	if deviceReaders[base] && !dd || partitionTables[base] && onlyListing(texts(ws[1:])) {
		return
	}
	if _, ok := wrappers[base]; ok || passThrough[base] {
		return // the command it runs is checked at its own level
	}
	for _, w := range ws[1:] {
		if dd && !strings.HasPrefix(w.text, "of=") {
			continue
		}
		if dev := a.deviceTarget(w); dev != "" {
			a.hard("raw-device", base+" writing to the device "+wspath.Quote(dev)+" is never allowed")
			return
		}
	}
}
