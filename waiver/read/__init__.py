"""Reading: untrusted input in, typed data or an InputError out. Each sub-package reads one
kind of input (JUnit, the lock, the policy, the trusted revision, the harness, the edited
tests, the stores, the evidence beside the reports, and untrusted files in bounded work);
`forked.py` runs a reader's work on another core."""
