"""One module per subcommand, each with its `add_parser` and its `run`; `waiver.cli` only
dispatches to them and maps their errors to exit codes."""
