//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package child

// The generic numbers (include/uapi/asm-generic and every architecture
// Go supports but MIPS).
const (
	sysLandlockRestrictSelf = 446
	rlimitNProc             = 6
)
