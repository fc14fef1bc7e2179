"""The subcommands that name the classes and the verdict: `gate`, `classify` on a plain
cases.json, and `diagnose`'s commentary on the unstable rows."""
