"""The decision: the classes, freezes and verdict (`decision`), and which human approval
counts and what it admits (`approval`). Pure functions over data read elsewhere; no I/O."""
