package shell

import "strings"

// Publishing sends work where others see it and where it cannot be taken
// back: it asks under every preset, full included, and only an explicit
// allow rule of the user's (say ["git", "push"]) lifts that, as for code
// rein cannot see (Command.RunsCode).

// publishers maps a program to the subcommand paths that publish; an
// entry is the words after the program, matched against its operands in
// order (options skipped).
var publishers = map[string][][]string{
	"git":     {{"push"}, {"send-pack"}, {"send-email"}, {"request-pull"}},
	"hub":     {{"push"}, {"release", "create"}},
	"npm":     {{"publish"}, {"unpublish"}, {"deprecate"}, {"dist-tag"}},
	"pnpm":    {{"publish"}},
	"yarn":    {{"publish"}, {"npm", "publish"}},
	"bun":     {{"publish"}},
	"cargo":   {{"publish"}, {"yank"}, {"owner"}},
	"twine":   {{"upload"}, {"register"}},
	"poetry":  {{"publish"}},
	"uv":      {{"publish"}},
	"flit":    {{"publish"}},
	"hatch":   {{"publish"}},
	"pdm":     {{"publish"}},
	"gem":     {{"push"}, {"yank"}, {"owner"}},
	"gh":      {{"release", "create"}, {"release", "upload"}, {"release", "edit"}, {"release", "delete"}, {"repo", "create"}, {"repo", "sync"}, {"repo", "edit"}, {"repo", "delete"}, {"pr", "create"}, {"pr", "merge"}, {"gist", "create"}, {"api"}},
	"glab":    {{"release", "create"}, {"mr", "create"}, {"mr", "merge"}},
	"docker":  {{"push"}, {"image", "push"}, {"buildx", "build", "--push"}},
	"podman":  {{"push"}, {"image", "push"}},
	"buildah": {{"push"}},
	"skopeo":  {{"copy"}},
	"helm":    {{"push"}},
	"mvn":     {{"deploy"}},
	"gradle":  {{"publish"}},
	"dotnet":  {{"nuget", "push"}},
	"nuget":   {{"push"}},
	"vsce":    {{"publish"}},
	"ovsx":    {{"publish"}},
	"dart":    {{"pub", "publish"}},
	"flutter": {{"pub", "publish"}},
	"mix":     {{"hex.publish"}},
	"cabal":   {{"upload"}},
	"conan":   {{"upload"}},
	"jf":      {{"rt", "upload"}},
	"deno":    {{"publish"}},
	"jsr":     {{"publish"}},
	"pod":     {{"trunk", "push"}},
}

// publishes returns what a command publishes ("git push"), or "".
func publishes(base string, argv []string) string {
	paths, ok := publishers[base]
	if !ok {
		return ""
	}
	args := argv[1:]
	if base == "git" || base == "hub" {
		args = argv[gitSub(argv):]
	}
	var ops []string
	for _, t := range args {
		if !strings.HasPrefix(t, "-") || t == "--push" {
			ops = append(ops, t)
		}
	}
	for _, p := range paths {
		if len(ops) >= len(p) && equalFold(ops[:len(p)], p) {
			return base + " " + strings.Join(p, " ")
		}
	}
	return ""
}

func equalFold(a, b []string) bool {
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}
