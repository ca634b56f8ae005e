package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at link time by release builds:
//
//	go build -ldflags "-X github.com/reinharness/rein/internal/cli.version=v1.2.3" ./cmd/rein
//
// When empty, the module version and VCS revision recorded by the Go
// toolchain are used instead.
var version string

func (a *App) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print rein's version",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(a.Stdout, versionString(version, readBuildInfo()))
			return nil
		},
	}
}

func readBuildInfo() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
}

// versionString renders "rein v1.2.3 (go1.26.8 linux/amd64)". Without a
// link-time version it falls back to the module version ("(devel)" for a
// source build) and the VCS revision, marked "+dirty" when modified.
func versionString(linked string, bi *debug.BuildInfo) string {
	v := linked
	if v == "" && bi != nil {
		v = bi.Main.Version
		var rev, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if v == "" || v == "(devel)" {
			v = "devel"
			if rev != "" {
				v += "-" + rev + dirty
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	return fmt.Sprintf("rein %s (%s %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
