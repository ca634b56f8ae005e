package shell

import (
	"slices"
	"strings"
)

// Programs whose job is to create or wipe file systems, partition tables
// or volumes are denied by what they are, whatever device or image they
// are given. The table is maintained by hand; names of the mkfs.* and
// mk*fs families are recognised by rule (isMkfsName).

// volumeTools maps a program to the subcommands (or options) that create
// or wipe; nil means the program does so whatever it is given.
var volumeTools = map[string][]string{
	"mke2fs": nil, "mkswap": nil, "wipefs": nil, "blkdiscard": nil, "mkdosfs": nil,
	"mkntfs": nil, "mkexfatfs": nil, "mkudffs": nil, "mformat": nil, "sgdisk": nil,
	"sfdisk": nil, "fdisk": nil, "gdisk": nil, "cfdisk": nil, "parted": nil,
	"pvcreate": nil, "pvremove": nil, "vgcreate": nil, "vgremove": nil, "vgreduce": nil,
	"lvcreate": nil, "lvremove": nil, "lvconvert": nil, "vgcfgrestore": nil, "make-bcache": nil,
	"zerofree": nil, "sg_format": nil, "ubiformat": nil, "flash_erase": nil, "flash_eraseall": nil,
	"nandwrite": nil, "flashrom": nil,
	"scrub": nil, "mtd_debug": nil,
	"cryptsetup": {"luksFormat", "erase", "luksErase", "reencrypt", "luksKillSlot", "luksRemoveKey", "repair"},
	"zpool":      {"create", "destroy", "labelclear", "add", "attach", "replace", "split", "initialize", "trim"},
	"zfs":        {"create", "destroy", "rollback", "receive", "recv"},
	"mdadm":      {"--create", "-C", "--zero-superblock", "--build", "-B", "--grow", "-G", "--add", "-a"},
	"dmsetup":    {"create", "remove", "remove_all", "wipe_table", "load", "reload"},
	"nvme":       {"format", "sanitize", "write", "write-zeroes", "write-uncor", "ns-delete", "delete-ns", "create-ns"},
	"hdparm":     {"--security-erase", "--security-erase-enhanced", "--trim-sector-ranges", "--write-sector", "--make-bad-sector", "-z"},
	"btrfs":      {"device", "replace", "rescue", "check"},
	"drbdadm":    {"create-md", "wipe-md"},
	"lvm":        {"pvcreate", "pvremove", "vgcreate", "vgremove", "vgreduce", "lvcreate", "lvremove", "lvconvert", "vgcfgrestore"},
	"tune2fs":    {"-O", "-U", "-I", "-j", "-J"},
	"badblocks":  {"-w", "-n"},
	"debugfs":    {"-w"},
}

// isMkfsName reports whether a program name belongs to the mkfs family:
// mkfs, mkfs.ext4, mkfs.xfs, mke2fs, mkexfatfs, mkudffs, mkreiserfs,
// mksquashfs, newfs, newfs_msdos, …
func isMkfsName(base string) bool {
	base = strings.TrimRight(base, "0123456789.")
	switch {
	case strings.HasPrefix(base, "mkfs"), strings.HasPrefix(base, "newfs"):
		return true
	case strings.HasPrefix(base, "mk") && (strings.HasSuffix(base, "fs") || strings.Contains(base, "fs.")):
		return true
	}
	return false
}

// volumeTool returns what a command creates or wipes ("mkfs.ext4",
// "cryptsetup luksFormat"), or "" when it does neither.
func volumeTool(base string, args []string) string {
	if isMkfsName(base) {
		return base
	}
	subs, ok := volumeTools[base]
	if !ok {
		return ""
	}
	if subs == nil {
		if partitionTables[base] && onlyListing(args) {
			return ""
		}
		return base
	}
	for _, t := range args {
		name, _, _ := strings.Cut(t, "=")
		if slices.ContainsFunc(subs, func(s string) bool { return strings.EqualFold(s, name) }) {
			return base + " " + t
		}
		// A short option in a cluster: mdadm -Cv, badblocks -wsv.
		if strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && len(t) > 2 {
			for _, s := range subs {
				if len(s) == 2 && s[0] == '-' && strings.IndexByte(t[1:], s[1]) >= 0 {
					return base + " " + t
				}
			}
		}
	}
	return ""
}

// isMkfs reports whether a name found in code rein cannot parse (inline
// interpreter code, unparsable text) is a program that always creates or
// wipes a file system or volume.
func isMkfs(name string) bool {
	if isMkfsName(name) {
		return true
	}
	subs, ok := volumeTools[name]
	return ok && subs == nil
}

// partitionTables are the partitioners that also list (fdisk -l).
var partitionTables = map[string]bool{"fdisk": true, "sfdisk": true, "gdisk": true, "sgdisk": true, "cfdisk": false, "parted": true}

// onlyListing reports whether partitioner arguments only print tables:
// every option prints and every operand is a device or "print".
func onlyListing(args []string) bool {
	printed := false
	for _, t := range args {
		switch t {
		case "-l", "--list", "-p", "--print", "-d", "--dump", "-s", "--show-size", "print":
			printed = true
		default:
			if !strings.HasPrefix(t, "/dev/") {
				return false
			}
		}
	}
	return printed
}
