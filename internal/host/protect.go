package host

import (
	"path/filepath"
	"strings"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/policy"
)

// homeControlFiles are files and directories under the home directory
// whose contents run code or configure tools outside any sandbox: shell
// start-up files, git's and npm's configuration, the user's own binaries.
// They matter when the workspace is the home directory or contains it.
var homeControlFiles = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
	".zprofile", ".zlogin", ".config/fish", ".gitconfig", ".config/git", ".ssh", ".npmrc",
	".pypirc", ".netrc", ".git-credentials", ".config/systemd", ".config/autostart",
	".local/bin", "bin", ".cargo/bin", "go/bin", ".config/environment.d", ".pam_environment",
	".xprofile", ".xinitrc", ".inputrc", ".vimrc", ".config/nvim", ".emacs", ".emacs.d",
}

// ProtectedInWorkspace lists what the policy must protect (writes ask
// under every preset) beyond its built-in list, when it lies inside the
// workspace: rein's own configuration and state (a model that rewrote
// ~/.config/rein/config.toml with the workspace at $HOME would choose its
// own policy next time) and the home directory's control files.
func (e Env) ProtectedInWorkspace(ws, home, stateDirFlag, configFile string) []policy.ProtectedPath {
	var out []policy.ProtectedPath
	add := func(p, why string) {
		if p == "" {
			return
		}
		if rel, err := filepath.Rel(ws, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && rel != "." {
			out = append(out, policy.ProtectedPath{Path: filepath.Clean(p), Why: why})
		}
	}
	if cfg := config.UserConfigPath(e.Getenv); cfg != "" {
		add(filepath.Dir(cfg), "it is rein's own configuration")
	}
	add(StateDir(stateDirFlag, e.Getenv), "it is rein's state (sessions, approvals, trust)")
	if configFile != "" {
		if abs, err := filepath.Abs(configFile); err == nil {
			add(abs, "it is the configuration rein was started with (--config)")
		}
	}
	if home != "" {
		for _, f := range homeControlFiles {
			add(filepath.Join(home, f), "the shell and your tools run or obey it outside the sandbox")
		}
	}
	return out
}

// ProtectedAs gives paths one reason.
func ProtectedAs(paths []string, why string) []policy.ProtectedPath {
	out := make([]policy.ProtectedPath, 0, len(paths))
	for _, p := range paths {
		out = append(out, policy.ProtectedPath{Path: p, Why: why})
	}
	return out
}

// CanonicalDir makes a directory absolute with its symlinks resolved, the
// form the workspace and the policy engine use; on error it keeps what it
// had.
func CanonicalDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
}
