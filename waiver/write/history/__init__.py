"""The default branch's history: the file `waiver history record` writes, and `waiver history
show`'s renderings of it."""
