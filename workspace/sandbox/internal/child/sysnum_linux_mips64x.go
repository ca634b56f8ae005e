//go:build linux && (mips64 || mips64le)

package child

// MIPS n64 numbers its system calls from 5000 and its rlimits apart.
const (
	sysLandlockRestrictSelf = 5446
	rlimitNProc             = 8
)
