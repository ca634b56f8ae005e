package cli

import (
	"regexp"
	"strings"
)

// What a scratch copy of the workspace cannot reproduce, and so replay
// masks in both results before comparing them (unless --exact). The copy
// keeps modes, owners, access and modification times, symbolic and hard
// links (see replay.Scratch), so those are compared; these are not:
//   - inode numbers and devices (`ls -i`, stat's "Device: … Inode: …"):
//     every copy gets new ones;
//   - directory sizes and block counts (`ls -l`'s size of a directory and
//     its "total" line, stat's "Blocks:"): they depend on the file system
//     and on the directory's history, not on its entries;
//   - the parent directory, `..` in `ls -la`: it is outside the copy;
//   - column padding of `ls -l`, which follows the widest of those fields.
//
// Change and birth times cannot be set either; stat prints them as
// timestamps, which the volatile-text mask already hides.
var (
	// lsEntry is a line of `ls -l`: an optional inode number, the mode
	// (with an ACL/SELinux mark), the link count.
	lsEntry = regexp.MustCompile(`^\s*(\d+\s+)?([-dlcbpsD][-rwxsStTl]{9}[.+@]?)\s+\d+\s`)
	lsTotal = regexp.MustCompile(`(?m)^total \S+$`)
	// statDevice is stat's default "Device: 803h/2051d\tInode: 1234".
	statDevice = regexp.MustCompile(`(?m)^Device: \S+(\s+)Inode: \d+ *`) // with the padding, which follows the number's width
	statBlocks = regexp.MustCompile(`(?m)^(\s*Size: )(\d+)(\s+Blocks: )\d+(\s+IO Block: )\d+(.*)$`)
)

// maskUnreproducible masks in s what the scratch copy cannot reproduce.
func maskUnreproducible(s string) string {
	if strings.Contains(s, "Inode: ") {
		s = statDevice.ReplaceAllString(s, "Device: <device>${1}Inode: <inode> ")
		s = statBlocks.ReplaceAllStringFunc(s, maskStatBlocks)
	}
	s = lsTotal.ReplaceAllString(s, "total <blocks>")
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		if m := lsEntry.FindStringSubmatch(line); m != nil {
			lines[i] = maskLsEntry(line, m[1] != "", m[2][0] == 'd')
		}
	}
	return strings.Join(lines, "\n")
}

// maskLsEntry masks one `ls -l` line: fields are mode, links, owner,
// group, size, three date fields, then the name.
func maskLsEntry(line string, inode, dir bool) string {
	f := strings.Fields(line)
	prefix := ""
	if inode {
		prefix, f = "<inode> ", f[1:]
	}
	if n := len(f); n > 0 && f[n-1] == ".." && (n < 2 || f[n-2] != "->") {
		return prefix + "<parent directory> .."
	}
	if dir && len(f) > 4 {
		f[4] = "<size>"
	}
	return prefix + strings.Join(f, " ")
}

// maskStatBlocks masks the block counts of every file and the size of a
// directory in stat's default output.
func maskStatBlocks(m string) string {
	g := statBlocks.FindStringSubmatch(m)
	size := g[2]
	if strings.TrimSpace(g[5]) == "directory" {
		size = "<size>"
	}
	// Single spaces: stat pads the size to a width.
	return "  Size: " + size + " Blocks: <blocks> IO Block: <io block> " + strings.TrimSpace(g[5])
}
