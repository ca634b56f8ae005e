package host

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/telemetry"
)

// toolsSection is the [tools] table:
//
//	[tools]
//	disabled = ["run_command", "web_fetch"]   # built-in tools the model does not get
//
// Every layer may disable more tools (a project disabling one only
// tightens); none can enable a tool another layer disabled.
type toolsSection struct {
	Disabled []string `toml:"disabled"`
}

// LoadDisabledTools returns the union of every layer's tools.disabled,
// each name checked against known, the built-in tools.
func LoadDisabledTools(cfg *config.Config, known []string) ([]string, error) {
	var out []string
	for _, sec := range cfg.Sections("tools") {
		var t toolsSection
		if err := sec.Decode(&t); err != nil {
			return nil, err
		}
		for _, name := range t.Disabled {
			if !slices.Contains(known, name) {
				return nil, sec.Errorf([]string{"disabled"}, "tools.disabled: no built-in tool is called %q%s; the tools are %s",
					name, config.Suggest(name, known), strings.Join(known, ", "))
			}
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out, nil
}

// sessionSection is the [session] table:
//
//	[session]
//	store_deltas = false   # keep every streamed text delta in the store (default false)
//
// The session store is the user's: a project layer's [session] is
// ignored with a warning.
type sessionSection struct {
	StoreDeltas *bool `toml:"store_deltas"`
}

// sessionSettings is the merged [session] configuration.
type sessionSettings struct {
	StoreDeltas bool
	Warnings    []string
}

func LoadSessionSettings(cfg *config.Config) (sessionSettings, error) {
	var out sessionSettings
	for _, sec := range cfg.Sections("session") {
		var t sessionSection
		if err := sec.Decode(&t); err != nil {
			return sessionSettings{}, err
		}
		if sec.Source.Layer == config.LayerProject {
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: [session] ignored: the session store is yours, a project cannot configure it", sec.Source.Name))
			continue
		}
		if t.StoreDeltas != nil {
			out.StoreDeltas = *t.StoreDeltas
		}
	}
	return out, nil
}

// telemetrySection is the [telemetry] table:
//
//	[telemetry]
//	event_log = true                           # the JSONL event log per session (default true)
//	otlp_endpoint = "http://127.0.0.1:4318"    # export traces (OTEL_EXPORTER_OTLP_ENDPOINT wins)
//
// Where a run's events and traces go is the user's choice: a project
// layer's [telemetry] is ignored with a warning (a repository must not
// send your traces somewhere).
type telemetrySection struct {
	EventLog     *bool  `toml:"event_log"`
	OTLPEndpoint string `toml:"otlp_endpoint"`
}

// telemetrySettings is the merged [telemetry] configuration.
type telemetrySettings struct {
	EventLog     bool
	otlpEndpoint string
	Warnings     []string
}

func LoadTelemetrySettings(cfg *config.Config) (telemetrySettings, error) {
	out := telemetrySettings{EventLog: true}
	for _, sec := range cfg.Sections("telemetry") {
		var t telemetrySection
		if err := sec.Decode(&t); err != nil {
			return telemetrySettings{}, err
		}
		if sec.Source.Layer == config.LayerProject {
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: [telemetry] ignored: where events and traces go is yours to choose, not a project's", sec.Source.Name))
			continue
		}
		if t.EventLog != nil {
			out.EventLog = *t.EventLog
		}
		if t.OTLPEndpoint != "" {
			u, err := url.Parse(t.OTLPEndpoint)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return telemetrySettings{}, sec.Errorf([]string{"otlp_endpoint"}, "telemetry.otlp_endpoint must be an http:// or https:// URL such as \"http://127.0.0.1:4318\"")
			}
			out.otlpEndpoint = t.OTLPEndpoint
		}
	}
	return out, nil
}

// OtlpGetenv is getenv with the configured OTLP endpoint as
// OTEL_EXPORTER_OTLP_ENDPOINT when the environment sets neither endpoint
// variable: the environment, set for one run, wins over the file.
func (t telemetrySettings) OtlpGetenv(getenv func(string) string) func(string) string {
	if t.otlpEndpoint == "" || getenv(telemetry.EnvEndpoint) != "" || getenv(telemetry.EnvTracesEndpoint) != "" {
		return getenv
	}
	return func(k string) string {
		if k == telemetry.EnvEndpoint {
			return t.otlpEndpoint
		}
		return getenv(k)
	}
}
