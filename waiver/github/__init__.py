"""Everything that knows GitHub Actions: the action's inputs as a command line, workflow
commands and their escaping, step outputs and the job-summary file. Each reads the
environment through a mapping it is given, never at import."""
