//go:build linux && (mips || mipsle)

package child

// MIPS o32 numbers its system calls from 4000 and its rlimits apart.
const (
	sysLandlockRestrictSelf = 4446
	rlimitNProc             = 8
)
