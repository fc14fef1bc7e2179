"""The subcommands that keep the stores a human or the default branch owns: `freeze` (the
freeze store, with the count of renewals from its git history) and `history`."""
