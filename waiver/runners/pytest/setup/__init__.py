"""What `waiver init` knows of a pytest project: its layout, install step, Python version,
commands, one run of its suites and the plan of the files init writes."""
