//go:build !linux

package policy

import "io/fs"

// memoryDevice is decided by name alone outside Linux (isRawDevice).
func memoryDevice(fs.FileInfo) bool { return false }
