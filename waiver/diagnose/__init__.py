"""The optional model step: one classified unstable row to a chat endpoint, and a guard
that keeps only commentary. The only part of waiver that opens a network connection."""
