"""pytest's harness: what pytest loads, found from files alone (`resolve.py`), and the
finder the lock and the restore take it by (`finder.py`)."""
