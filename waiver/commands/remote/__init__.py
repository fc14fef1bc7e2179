"""The subcommands that talk to GitHub's REST API with the workflow's token: reading the
reviews, posting the comment and the commit status. They run in steps of their own, apart
from the gate, which has no network."""
