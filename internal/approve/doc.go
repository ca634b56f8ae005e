// Package approve is the terminal approver of rein's interactive front
// ends: it resolves a policy Ask by asking the user on the console ([y]es
// once, [s]ession, [a]lways for this project, [n]o), remembers
// session approvals, and writes "always" rules to the project's
// configuration. It is a front end's part, not the decision engine's:
// policy defines the Approver interface and the non-interactive Auto and
// Never; this package implements the one that asks a human.
package approve
