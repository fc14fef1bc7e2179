"""The renderers and the writers: waiver.json (`report/`), the job summary (`summary/`), the
words and lines the renderings share and the terminal's (`words/`), the other files waiver
writes (`files/`), the history (`history/`), and what is laid out in the work tree before
the replays (`tree/`)."""
