package cli

import (
	"context"
	"sync"
	"testing"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// recordingSteering keeps the points it was consulted at.
type recordingSteering struct {
	mu     sync.Mutex
	points []agent.SteerPoint
}

func (s *recordingSteering) Steer(_ context.Context, p agent.SteerPoint) agent.SteerVerdict {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.points = append(s.points, p)
	return agent.SteerVerdict{}
}

func TestNotifyingApproverTellsHooksBeforeAsking(t *testing.T) {
	steer := &recordingSteering{}
	n := &notifyingApprover{inner: policy.Auto(), steer: steer, session: func() string { return "s9" }}
	call := policy.Call{ID: "c", Spec: tool.Spec{Name: "run_command"}}
	if _, err := n.Approve(context.Background(), call, policy.Decision{Action: policy.Allow}); err != nil {
		t.Fatal(err)
	}
	if len(steer.points) != 0 {
		t.Fatalf("an allowed call notified: %+v", steer.points)
	}
	d, err := n.Approve(context.Background(), call, policy.Decision{Action: policy.Ask, Reason: "r"})
	if err != nil || d.Action != policy.Allow {
		t.Fatalf("the inner approver's answer was lost: %+v, %v", d, err)
	}
	if len(steer.points) != 1 {
		t.Fatalf("points = %+v, want one Notification", steer.points)
	}
	p := steer.points[0]
	if p.Event != agent.SteerNotification || p.SessionID != "s9" || p.Text != "rein needs your permission to use Bash" {
		t.Errorf("notification = %+v", p)
	}
	if asksUser(policy.Never()) || asksUser(policy.Auto()) || asksUser(nil) || !asksUser(n) {
		t.Error("asksUser misjudges the headless approvers")
	}
}
