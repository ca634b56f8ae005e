// Package config loads rein's layered TOML configuration.
//
// # Layers and precedence
//
// Settings are merged from these sources, each overriding the one before:
//
//  1. built-in defaults (openai provider at http://127.0.0.1:8080, the
//     llama.cpp llama-server default; https://api.anthropic.com for the
//     anthropic provider; the agent's default limits);
//  2. the user file, $XDG_CONFIG_HOME/rein/config.toml (default
//     ~/.config/rein/config.toml), or the file named by --config, which
//     replaces it;
//  3. the selected profile of the user file (see Profiles);
//  4. the project file, <workspace>/.rein/config.toml;
//  5. the selected profile of the project file;
//  6. the environment: REIN_PROVIDER, REIN_ENDPOINT (else LLAMA_SERVER_URL
//     for the openai provider), REIN_MODEL (else ANTHROPIC_MODEL for the
//     anthropic provider), and for the API key REIN_API_KEY, then the
//     variable named by model.api_key_env, then OPENAI_API_KEY and
//     LLAMA_API_KEY, or ANTHROPIC_API_KEY, according to the provider;
//  7. command-line flags.
//
// # Profiles
//
// A [profiles.NAME] table holds any of the tables a file holds at its top
// and is parsed with the same rules. LoadOptions.Profile (the --profile
// flag), else REIN_PROFILE, selects one; a name no file defines is an
// error naming the closest. A profile's values and tables follow its
// file's own, with Source.Profile set and Source.Layer the file's, so a
// project's profile is as untrusted as the project file; a limit it would
// loosen is an error, not a warning.
//
// # The project layer is untrusted
//
// A project file arrives with a cloned repository, so it may not redirect
// the user's credentials: model.provider, model.endpoint and
// model.api_key_env are refused there with an error naming the key. It may
// choose the model and its sampling, and it may only tighten the agent's
// limits (max_steps, timeout, token_budget, max_parallel_tools,
// tool_timeout, max_result_bytes) and the model request's bounds
// (connect_timeout, header_timeout, idle_timeout, request_timeout,
// retry_budget, max_response_bytes): a looser value is ignored and reported
// in Config.Warnings. Environment and flags are the user's own and override
// everything.
//
// API keys never come from files: a file names the environment variable
// that holds the key (model.api_key_env).
//
// # Sections owned by other packages
//
// The [policy], [sandbox], [tools], [mcp_servers.NAME], [session] and
// [telemetry] tables are kept undecoded, per layer, as RawSection values so
// that the packages that own them decode them (strictly, with file and line
// in errors) without this package knowing their shape. Any other top-level
// key, and any unknown key inside [model] or [agent], is an error that names
// the file, the line and the closest known key.
package config
