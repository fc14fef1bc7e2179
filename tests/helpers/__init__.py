"""What the tests share: the example replayed with real pytest, JUnit built by hand, stand-ins
for GitHub, a model endpoint and Docker, and the machinery of the action's and the workflow's
tests. Tests import a helper as `helpers.<module>`; pytest puts tests/, the folder of the
top conftest.py, on `sys.path`."""
