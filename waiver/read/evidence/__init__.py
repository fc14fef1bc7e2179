"""The evidence a command is handed beside the JUnit reports, read as untrusted input:
cases.json, the pull request's reviews (approvals.json), the provenance of a gate run,
and red-green's test ids, replays and file."""
