// Package shell is rein's shell analyzer: it parses a command line (bash
// syntax) and reports, without running anything, every simple command it
// would run (through pipelines, substitutions, functions and wrappers such
// as env, xargs, find -exec and bash -c), every redirection, the
// directories and paths involved, and findings: hard denials (sudo, rm -rf
// /, a download piped to a shell, …) and concerns that make a call ask.
//
// It knows programs through data tables (wrappers, interpreters, code
// runners, the read-only set) rather than per-program code where it can.
// It decides nothing: the policy package turns an Analysis into a
// decision with its rules and presets. policy imports shell, never the
// reverse; what both need about paths lives in policy/internal/wspath.
package shell
