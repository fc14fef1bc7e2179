"""What `waiver init` knows of a jest, vitest or mocha project: its runner and layout from
files, the test script's words, the Node version, the commands, a workspace's packages, one
run of the suites and the plan of the files init writes."""
