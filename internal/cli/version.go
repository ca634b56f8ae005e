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

// versionString renders "rein v1.2.3 (commit 0123456789ab, go1.26.8
// linux/amd64)": the link-time version, else the module version the Go
// toolchain recorded ("devel" for a source build, suffixed with the
// revision so two source builds can be told apart), and the VCS revision
// whenever the toolchain stamped one, marked "+dirty" when the tree was
// modified. Builds without VCS stamping (-buildvcs=false) show no commit.
func versionString(linked string, bi *debug.BuildInfo) string {
	v := linked
	rev := ""
	if bi != nil {
		rev = vcsRevision(bi)
		if v == "" {
			v = bi.Main.Version
		}
	}
	if v == "" || v == "(devel)" {
		v = "devel"
		if rev != "" {
			v += "-" + rev
			rev = "" // already shown
		}
	}
	extra := ""
	if rev != "" {
		extra = "commit " + rev + ", "
	}
	return fmt.Sprintf("rein %s (%s%s %s/%s)", v, extra, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// vcsRevision returns the stamped revision, cut to 12 hex digits and
// marked "+dirty" for a modified tree; "" when none was stamped.
func vcsRevision(bi *debug.BuildInfo) string {
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
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return rev + dirty
}
