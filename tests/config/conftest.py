"""Config tests: the fixtures folder holds modules that configs import, not tests (one fails on purpose)."""

collect_ignore = ["fixtures"]
