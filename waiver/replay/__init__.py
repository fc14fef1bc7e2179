"""Running the replays: a test command run once with a scratch path for its report."""
