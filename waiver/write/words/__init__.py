"""Plain words and lines more than one rendering shows: why rows are what they are, what a
reviewer of a test is told, an edit's diff, the bill, the lock's reasons and drift, the
escaping of untrusted text; and the terminal's rendering of a verdict, built from them."""
