"""The subcommands that run or lay out tests before the gate reads them: `replay`, the
change's own tests apart (`change-tests-plan`, `change-tests`), `red-green` on the base's
code, and `restore-tests`."""
