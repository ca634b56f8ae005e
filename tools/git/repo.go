package git

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// errNotARepository is the error of a workspace without a repository.
var errNotARepository = errors.New("the workspace is not inside a git repository")

// maxGitFile bounds the small files read while resolving a repository
// (.git files, commondir, alternates).
const maxGitFile = 64 << 10

// findRepository returns the git directory the tools use for the
// workspace root (canonical, symlinks resolved): the one git would
// discover from root, provided it and everything it draws on lie inside
// root. A repository found above root, a .git file or symlink leading out
// of it, a worktree's common directory or object alternates outside it are
// refused with an error that says where the repository is.
func findRepository(root string) (string, error) {
	var dotgit string
	for dir := root; ; {
		p := filepath.Join(dir, ".git")
		if _, err := os.Lstat(p); err == nil {
			dotgit = p
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errNotARepository
		}
		dir = parent
	}
	if filepath.Dir(dotgit) != root {
		top := filepath.Dir(dotgit)
		return "", fmt.Errorf("the git repository of this workspace is at %s, outside the workspace; the git tools read only a repository inside it: open rein at the repository root (rein -C %s) to use them", dotgit, top)
	}
	gitDir, err := resolveDotGit(root, dotgit)
	if err != nil {
		return "", err
	}
	if err := checkGitDir(root, gitDir); err != nil {
		return "", err
	}
	return gitDir, nil
}

// resolveDotGit follows the workspace's .git entry (a directory, a
// symlink, or a file naming the gitdir, as worktrees and submodules use)
// to the git directory, which must lie inside root.
func resolveDotGit(root, dotgit string) (string, error) {
	real, err := filepath.EvalSymlinks(dotgit)
	if err != nil {
		return "", fmt.Errorf("the workspace's .git cannot be resolved: %v", pathErr(err))
	}
	if !inside(root, real) {
		return "", outsideErr(".git leads to", real)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("the workspace's .git cannot be read: %v", pathErr(err))
	}
	if fi.IsDir() {
		return real, nil
	}
	if !fi.Mode().IsRegular() {
		return "", errors.New("the workspace's .git is neither a directory nor a gitdir file")
	}
	data, err := readSmall(real)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir: ")
	if !ok || strings.TrimSpace(target) == "" {
		return "", errors.New(`the workspace's .git file does not name a git directory ("gitdir: PATH")`)
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(real), target)
	}
	gitDir, err := resolveInside(root, target, ".git names the git directory")
	if err != nil {
		return "", err
	}
	return gitDir, nil
}

// checkGitDir checks that what git reads through gitDir stays inside root:
// a worktree's common directory, the object store and its alternates, the
// index, refs and configuration, with symlinks followed.
func checkGitDir(root, gitDir string) error {
	common := gitDir
	if data, err := readSmall(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		if common, err = resolveInside(root, c, "the worktree's common git directory is"); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, p := range []string{
		filepath.Join(gitDir, "HEAD"), filepath.Join(gitDir, "index"),
		filepath.Join(common, "objects"), filepath.Join(common, "refs"),
		filepath.Join(common, "packed-refs"), filepath.Join(common, "config"),
	} {
		if _, err := resolveInside(root, p, "the repository's "+filepath.Base(p)+" is"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	objects := filepath.Join(common, "objects")
	data, err := readSmall(filepath.Join(objects, "info", "alternates"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		alt := strings.TrimSpace(sc.Text())
		if alt == "" || strings.HasPrefix(alt, "#") {
			continue
		}
		alt = strings.Trim(alt, `"`)
		if !filepath.IsAbs(alt) {
			alt = filepath.Join(objects, alt)
		}
		if _, err := resolveInside(root, alt, "the repository borrows objects from"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		} else if errors.Is(err, fs.ErrNotExist) && !inside(root, filepath.Clean(alt)) {
			return outsideErr("the repository borrows objects from", filepath.Clean(alt))
		}
	}
	return nil
}

// resolveInside resolves p's symlinks and returns the result if it lies
// inside root; a p that does not exist returns an error wrapping
// fs.ErrNotExist.
func resolveInside(root, p, what string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return "", fmt.Errorf("%s %s, which cannot be resolved: %v", what, p, pathErr(err))
	}
	if !inside(root, real) {
		return "", outsideErr(what, real)
	}
	return real, nil
}

func outsideErr(what, where string) error {
	return fmt.Errorf("refusing to run git: %s %s, outside the workspace; the git tools read only a repository inside the workspace", what, where)
}

// inside reports whether p (clean, absolute) is root or below it.
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// readSmall reads a small regular file of the repository.
func readSmall(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxGitFile {
		return nil, fmt.Errorf("refusing to run git: %s is not a small regular file", p)
	}
	var buf bytes.Buffer
	_, err = buf.ReadFrom(f)
	return buf.Bytes(), err
}

// pathErr drops the operation from a *fs.PathError, keeping path and cause.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}
