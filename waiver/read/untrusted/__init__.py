"""Opening and parsing the change's files as untrusted input: beneath a root and capped,
strict JSON, JSON with comments, and structured values read in bounded work."""
