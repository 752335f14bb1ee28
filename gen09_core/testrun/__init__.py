"""Running a repository's tests: the environment (recipe detection, venvs, locks), the
process runner with its limits, gen09's pytest plugin and the one test-outcome reader.

``gen09_pytest`` and ``outcomes`` use only the standard library (and pytest/coverage
inside the test environment): they are copied verbatim into every Harbor bundle, where
they run in the task's image with nothing but its locked packages.
"""
