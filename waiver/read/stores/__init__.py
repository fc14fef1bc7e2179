"""The files waiver keeps and reads back: the known-tests registry, the freeze store, the
default branch's history, and a finished waiver.json."""
