// Package sandbox measures what the sandbox adds to starting a command, a
// goal of issue 27: a sandboxed `true` (bubblewrap's namespaces with
// Landlock inside, under the policy rein gives the model's commands:
// workspace.SandboxPolicy) at most 5 ms over the same `true` started
// directly. impl=rein is the full sandbox, impl=landlock the Landlock
// layer alone (the fallback without bubblewrap), impl=direct the floor:
// exec.Command with no sandbox. Each op starts the process, waits for it
// and releases the launch (cgroup, descriptors), as run_command does.
package sandbox
