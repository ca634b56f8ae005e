package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecideSampling: a server's sampling request asks by default, a
// server's "never" is a hard denial no rule lifts, its "allow" allows
// unless a rule or the project says otherwise (and only for the user's
// own servers), and a rule by pattern never allows a workspace's server.
func TestDecideSampling(t *testing.T) {
	tools := func(rs ...ToolRule) *Config { return &Config{Tools: rs} }
	allowAll := ToolRule{Name: "mcp_sampling:*", Action: "allow"}
	type want struct {
		Action Action
		Rule   string
		Hard   bool
	}
	for _, tc := range []struct {
		name          string
		user, project *Config
		s             Sampling
		want          want
	}{
		{"default asks", nil, nil, Sampling{Server: "gh"}, want{Ask, "default:sampling", false}},
		{"setting ask asks", nil, nil, Sampling{Server: "gh", Setting: "ask"}, want{Ask, "default:sampling", false}},
		{"setting allow", nil, nil, Sampling{Server: "gh", Setting: "allow"}, want{Allow, "setting:sampling=allow", false}},
		{"workspace server's allow asks", nil, nil, Sampling{Server: "gh", Setting: "allow", Project: true}, want{Ask, "default:sampling", false}},
		{"never is hard", tools(ToolRule{Name: "mcp_sampling:gh", Action: "allow"}), nil, Sampling{Server: "gh", Setting: "never"}, want{Deny, "setting:sampling=never", true}},
		{"rule allows", tools(allowAll), nil, Sampling{Server: "gh"}, want{Allow, "rule:user:allow tool mcp_sampling:*", false}},
		{"exact rule beats glob", tools(allowAll, ToolRule{Name: "mcp_sampling:gh", Action: "deny"}), nil, Sampling{Server: "gh"}, want{Deny, "rule:user:deny tool mcp_sampling:gh", false}},
		{"rule deny beats setting allow", tools(ToolRule{Name: "mcp_sampling:*", Action: "deny"}), nil, Sampling{Server: "gh", Setting: "allow"}, want{Deny, "rule:user:deny tool mcp_sampling:*", false}},
		{"rule ask beats setting allow", tools(ToolRule{Name: "mcp_sampling:gh", Action: "ask"}), nil, Sampling{Server: "gh", Setting: "allow"}, want{Ask, "rule:user:ask tool mcp_sampling:gh", false}},
		{"glob does not allow a workspace server", tools(allowAll), nil, Sampling{Server: "gh", Project: true}, want{Ask, "default:sampling", false}},
		{"exact rule allows a workspace server", tools(ToolRule{Name: "mcp_sampling:gh", Action: "allow"}), nil, Sampling{Server: "gh", Project: true}, want{Allow, "rule:user:allow tool mcp_sampling:gh", false}},
		{"project denies", tools(allowAll), tools(ToolRule{Name: "mcp_sampling:gh", Action: "deny"}), Sampling{Server: "gh", Setting: "allow"}, want{Deny, "rule:project:deny tool mcp_sampling:gh", false}},
		{"project allow ignored", nil, tools(ToolRule{Name: "mcp_sampling:gh", Action: "allow"}), Sampling{Server: "gh"}, want{Ask, "default:sampling", false}},
		{"other server's rule", tools(ToolRule{Name: "mcp_sampling:linear", Action: "allow"}), nil, Sampling{Server: "gh"}, want{Ask, "default:sampling", false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, PresetEditor, tc.user, tc.project, nil)
			d := e.DecideSampling(tc.s)
			if diff := cmp.Diff(tc.want, want{d.Action, d.Rule, d.Hard}); diff != "" {
				t.Errorf("decision %+v (-want +got):\n%s", d, diff)
			}
			if d.Reason == "" {
				t.Error("no reason given")
			}
		})
	}
	if d := (*Engine)(nil).DecideSampling(Sampling{Server: "gh", Setting: "allow"}); d.Action != Allow {
		t.Errorf("a nil engine decided %+v for an allowed server", d)
	}
}
