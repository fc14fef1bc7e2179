"""The subcommands that set a repository up and check what the gate trusts: `init`, `lock`,
`check-lock`, `baseline` (the registry), `policy --check` and `inspect`."""
