"""The files other commands write, each shaped from its TypedDict: approvals.json,
provenance.json, diagnosis.json, the freeze store, the files `waiver init` sets up; and the
atomic replacement every file of waiver is written through."""
