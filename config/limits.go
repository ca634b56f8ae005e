package config

import "fmt"

// checkCommandTimeouts refuses a run_command default longer than the
// longest a call may ask for: the tool would silently shorten it, and the
// user asked for something else in one of the two places.
func (c *Config) checkCommandTimeouts() error {
	a := c.Agent
	if a.CommandTimeout <= a.CommandMaxTimeout {
		return nil
	}
	return fmt.Errorf("config: agent.command_timeout = %s (%s) is longer than agent.command_max_timeout = %s (%s); raise command_max_timeout or lower command_timeout",
		a.CommandTimeout, c.Source("agent.command_timeout"), a.CommandMaxTimeout, c.Source("agent.command_max_timeout"))
}
