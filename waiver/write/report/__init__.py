"""waiver.json: its typed shape, each section from the gate's facts, the document, and the
gate's two files on disk (the report and the Markdown summary)."""
