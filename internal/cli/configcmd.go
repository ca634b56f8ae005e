package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/secret"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/telemetry/redact"
)

// configCommand is `rein config`, whose one subcommand shows the merged
// configuration.
func (a *App) configCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the merged configuration and where each value came from",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.configShowCommand())
	return cmd
}

type configShowFlags struct {
	common commonFlags
	json   bool
}

func (a *App) configShowCommand() *cobra.Command {
	var f configShowFlags
	cmd := &cobra.Command{
		Use:   "show [--profile NAME] [--json]",
		Short: "Print the merged configuration with the layer each value came from",
		Long: `Print the configuration rein would run with in this workspace: every [model]
and [agent] setting (defaults included), then every layer's copy of the other
tables ([policy], [sandbox], [mcp_servers.NAME], ...), lowest precedence first,
each value with its origin: default, user, file (--config), profile:NAME (a
profile of the user's file), project, project-profile:NAME, env or flag, and
the file and line, variable or flag it came from.

Layers merge in this order, each over the one before: defaults, the user
file (or --config), the selected profile of the user file, the project's
.rein/config.toml, the selected profile of the project file, the environment,
the flags. A project's layers may only tighten. The other tables are shown
per layer, as written; their owners combine them (see docs/configuration.md).

API keys, header values, environment values and anything that looks like a
credential are shown as [redacted].`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return a.configShow(&f) },
	}
	f.common.register(cmd.Flags())
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON: {profile, values: [{key, value, origin, source}]}")
	return cmd
}

// shownValue is one line of `rein config show`.
type shownValue struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Origin string `json:"origin"`
	// Source is the file:line, variable or flag; "" for a default.
	Source string `json:"source,omitempty"`
}

func (a *App) configShow(f *configShowFlags) error {
	if err := f.common.validate(); err != nil {
		return err
	}
	cfg, _, err := a.load(&f.common)
	if err != nil {
		return a.fail(err, nil)
	}
	values, err := shownValues(cfg)
	if err != nil {
		return a.fail(err, nil)
	}
	profile, by := cfg.Profile()
	if f.json {
		out := struct {
			Profile   string       `json:"profile,omitempty"`
			ProfileBy string       `json:"profile_by,omitempty"`
			Profiles  []string     `json:"profiles"`
			Values    []shownValue `json:"values"`
		}{profile, sourceText(by), cfg.Profiles(), values}
		if out.Profiles == nil {
			out.Profiles = []string{}
		}
		data, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		_, err = termsafe.NewJSONWriter(a.Stdout).Write(append(data, '\n'))
		return err
	}
	return printValues(termsafe.NewWriter(a.Stdout), profile, by, cfg.Profiles(), values)
}

func printValues(w io.Writer, profile string, by config.Source, profiles []string, values []shownValue) error {
	switch {
	case profile != "":
		fmt.Fprintf(w, "# profile %s (selected by %s)\n", profile, sourceText(by))
	case len(profiles) > 0:
		fmt.Fprintf(w, "# no profile selected; defined: %s (choose one with --profile NAME or $%s)\n", strings.Join(profiles, ", "), config.ProfileEnv)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tORIGIN\tSOURCE")
	for _, v := range values {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Key, host.ClipRunes(v.Value, 80), v.Origin, v.Source)
	}
	return tw.Flush()
}

// shownValues lists the [model] and [agent] settings in force, then every
// layer's copy of the other tables, secrets redacted.
func shownValues(cfg *config.Config) ([]shownValue, error) {
	var out []shownValue
	for _, v := range cfg.Values() {
		// Only model.api_key is a credential among these (Values hides
		// it); a key's name says nothing here (token_budget), but a
		// system prompt may quote a secret.
		val := v.Value
		if secret.Redact(val) != val {
			val = "[redacted]"
		}
		out = append(out, shownValue{Key: v.Key, Value: val, Origin: v.Source.Origin(), Source: sourceText(v.Source)})
	}
	for _, name := range cfg.SectionNames() {
		for _, sec := range cfg.Sections(name) {
			leaves, err := sec.Leaves()
			if err != nil {
				return nil, err
			}
			for _, l := range leaves {
				src := sec.Source
				if len(leaves) <= maxPositionedLeaves {
					src = sec.Position(leafPath(l.Path[1:])...)
				}
				out = append(out, shownValue{Key: config.JoinPath(l.Path), Value: redactValue(l.Path, config.FormatTOML(l.Value)),
					Origin: src.Origin(), Source: sourceText(src)})
			}
		}
	}
	return out, nil
}

// maxPositionedLeaves bounds the per-value line lookups of one table
// (each parses the file again); past it a value shows its table's line.
const maxPositionedLeaves = 200

// leafPath drops the array indexes of a Leaf's path: Position walks
// tables only, and the array's own key has the line.
func leafPath(p []string) []string {
	out := slices.Clone(p)
	for i, s := range out {
		if strings.HasPrefix(s, "[") {
			return out[:i]
		}
	}
	return out
}

// envReference is a value that only names an environment variable
// (mcp_servers' "${GITHUB_TOKEN}"): no secret, and worth seeing.
var envReference = regexp.MustCompile(`^"\$\{[A-Za-z_][A-Za-z0-9_]*\}"$`)

// redactValue hides a value that is or may be a credential: every value
// of a headers or env table (an MCP server's Authorization, its
// GITHUB_TOKEN) unless it only names a variable, a value under a key
// whose name marks a secret, and anything the redactor recognises.
func redactValue(path []string, val string) string {
	const hidden = "[redacted]"
	if len(path) >= 2 && slices.Contains([]string{"headers", "env"}, path[len(path)-2]) && !envReference.MatchString(val) {
		return hidden
	}
	name := path[len(path)-1]
	if probe, _ := json.Marshal(map[string]string{name: "probe-value"}); string(redact.JSON(probe)) != string(probe) && !envReference.MatchString(val) {
		return hidden
	}
	if secret.Redact(val) != val {
		return hidden
	}
	return val
}

// sourceText is where a value came from without the layer (the ORIGIN
// column has it): "file:line", a variable or a flag.
func sourceText(s config.Source) string {
	switch {
	case s.Name == "":
		return ""
	case s.Line > 0:
		return fmt.Sprintf("%s:%d", s.Name, s.Line)
	}
	return s.Name
}
