"""The Markdown job summary: rendered from a finished waiver.json within a size budget, its
tables, notes and shared facts, and the diagnosis's commentary section."""
