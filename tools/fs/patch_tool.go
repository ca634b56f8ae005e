package fs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"strings"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// ApplyPatchArgs are apply_patch's arguments.
type ApplyPatchArgs struct {
	Patch string `json:"patch" jsonschema:"a unified diff as git diff writes it; may change several files, and create, delete or rename them"`
}

// ApplyPatch returns the apply_patch tool: apply a unified diff across
// several files, all or nothing.
func ApplyPatch(ws *workspace.Workspace, opts Options) tool.Tool {
	desc := "Apply a unified diff (the format git diff writes) to the workspace. It may touch several files and " +
		"create (--- /dev/null), delete (+++ /dev/null) or rename (rename from/rename to) them. Every hunk of every " +
		"file is checked before anything is written: if any hunk does not apply, no file changes. Hunks that moved " +
		"a few lines are found by their content. Paths are relative to the workspace (a/ and b/ prefixes are fine)."
	return tool.Func("apply_patch", desc, func(ctx context.Context, a ApplyPatchArgs) (string, error) {
		return applyPatch(ctx, ws, a.Patch)
	},
		tool.WithAnnotations(mutating("Apply patch", false)),
		tool.WithEffects(tool.Effects{ReadsFiles: true, WritesFiles: true, Paths: PatchPaths}),
	)
}

// PatchPaths returns the workspace paths an apply_patch call touches (the
// old and new name of every file in its patch, each once, in patch order),
// so that path rules apply to a patch as they do to write_file's path. It
// implements tool.Effects.Paths; an error means the arguments or the patch
// cannot be parsed.
func PatchPaths(args json.RawMessage) ([]string, error) {
	var a ApplyPatchArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, fmt.Errorf("the arguments are not an apply_patch object: %w", err)
	}
	files, err := ParsePatch(a.Patch)
	if err != nil {
		return nil, err
	}
	var paths []string
	seen := map[string]bool{}
	for _, fp := range files {
		for _, p := range []string{fp.OldPath, fp.NewPath} {
			if p != "" && !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
	}
	return paths, nil
}

func applyPatch(ctx context.Context, ws *workspace.Workspace, patch string) (string, error) {
	files, err := ParsePatch(patch)
	if err != nil {
		return "", err
	}
	var summary, notes []string
	_, err = ws.Transact(changeCtx(ctx), func(tx *workspace.Tx) error {
		// Check every file before reporting: the model fixes all its
		// mistakes in one retry instead of one per call.
		var errs []error
		for _, fp := range files {
			s, n, err := applyFilePatch(tx, fp)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			summary = append(summary, s)
			notes = append(notes, n...)
		}
		if len(errs) > 0 {
			return fmt.Errorf("the patch was not applied; no file was changed:\n%w", errors.Join(errs...))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Applied the patch to %d file(s):\n", len(files))
	for _, s := range summary {
		sb.WriteString("  " + s + "\n")
	}
	for _, n := range notes {
		sb.WriteString("note: " + n + "\n")
	}
	return sb.String(), nil
}

// applyFilePatch stages one file's change and returns its summary line
// ("M path (+3 -1)") and notes.
func applyFilePatch(tx *workspace.Tx, fp FilePatch) (string, []string, error) {
	if fp.Binary {
		return "", nil, fmt.Errorf("%s: binary patches are not supported; use write_file or run_command", fpName(fp))
	}
	added, removed := 0, 0
	for _, h := range fp.Hunks {
		for _, l := range h.Lines {
			switch l.Op {
			case '+':
				added++
			case '-':
				removed++
			}
		}
	}
	counts := fmt.Sprintf("(+%d -%d)", added, removed)
	switch {
	case fp.IsNew:
		if ok, err := tx.Exists(fp.NewPath); err != nil {
			return "", nil, err
		} else if ok {
			return "", nil, fmt.Errorf("%s: the patch creates it, but it already exists", fp.NewPath)
		}
		content, notes, err := applyHunks(fp.NewPath, "", fp.Hunks)
		if err != nil {
			return "", nil, err
		}
		return "A " + fp.NewPath + " " + counts, notes, tx.WriteFile(fp.NewPath, []byte(content), fp.NewMode)
	case fp.IsDelete:
		content, err := readForPatch(tx, fp.OldPath)
		if err != nil {
			return "", nil, err
		}
		if len(fp.Hunks) > 0 {
			rest, _, err := applyHunks(fp.OldPath, content, fp.Hunks)
			if err != nil {
				return "", nil, err
			}
			if rest != "" {
				return "", nil, fmt.Errorf("%s: the patch deletes it, but its content differs from the patch's (read it again)", fp.OldPath)
			}
		}
		return "D " + fp.OldPath, nil, tx.Remove(fp.OldPath)
	}
	content, err := readForPatch(tx, fp.OldPath)
	if err != nil {
		return "", nil, err
	}
	updated, notes, err := applyHunks(fp.OldPath, content, fp.Hunks)
	if err != nil {
		return "", nil, err
	}
	mode := fp.NewMode
	switch {
	case fp.IsRename:
		if err := tx.Rename(fp.OldPath, fp.NewPath); err != nil {
			return "", nil, err
		}
		return "R " + fp.OldPath + " -> " + fp.NewPath + " " + counts, notes, tx.WriteFile(fp.NewPath, []byte(updated), mode)
	case fp.IsCopy:
		if ok, err := tx.Exists(fp.NewPath); err != nil {
			return "", nil, err
		} else if ok {
			return "", nil, fmt.Errorf("%s: the patch copies to it, but it already exists", fp.NewPath)
		}
		if mode == 0 {
			if mode, err = tx.Mode(fp.OldPath); err != nil {
				return "", nil, err
			}
		}
		return "C " + fp.OldPath + " -> " + fp.NewPath + " " + counts, notes, tx.WriteFile(fp.NewPath, []byte(updated), mode)
	}
	target := fp.NewPath
	if target != fp.OldPath {
		// "--- a/x +++ b/y" without rename lines: patch(1) edits the old
		// name; treat it as the rename it evidently is.
		if err := tx.Rename(fp.OldPath, target); err != nil {
			return "", nil, err
		}
		return "R " + fp.OldPath + " -> " + target + " " + counts, notes, tx.WriteFile(target, []byte(updated), mode)
	}
	return "M " + target + " " + counts, notes, tx.WriteFile(target, []byte(updated), mode)
}

func readForPatch(tx *workspace.Tx, name string) (string, error) {
	b, err := tx.ReadFile(name)
	if errors.Is(err, iofs.ErrNotExist) {
		return "", fmt.Errorf("%s: the patch changes it, but it does not exist", name)
	}
	if err != nil {
		return "", err
	}
	if workspace.IsBinary(b) {
		return "", fmt.Errorf("%w: %s; apply_patch only patches text", workspace.ErrBinary, name)
	}
	return string(b), nil
}

func fpName(fp FilePatch) string {
	if fp.NewPath != "" {
		return fp.NewPath
	}
	return fp.OldPath
}
