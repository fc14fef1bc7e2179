"""What is written into the work tree before the verdict replays: the trusted revision's
locked files put back, and the base's test tree laid out."""
