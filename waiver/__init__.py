"""waiver: name the class of every test id before anything may be waived."""

__version__ = "0.2.0"
