"""``repo_mutate``: verified bug-fix tasks from a healthy repository (RFC 0012).

The pipeline, stage by stage (one module each):

- ``config``    typed configuration (``pipeline.name = "repo_mutate"``, ``pipeline.recipe``),
                strict: unknown keys are an error; the resolved form is written to the run
                folder before any work starts.
- ``recipes``   recipes arrive through the ``gen09_recipes`` hook; ``swe_smith`` is built in.
- ``profiles``  how to install a repository, run its tests and read per-test outcomes
                (built-in ``python-pytest``; custom profiles from the configuration file).
- ``executor``  where test jobs run (a local pool by default; the interface admits others).
- ``validate``  pristine baseline twice (flaky tests excluded), per-test coverage, mutant
                runs on the covering tests only, confirmation with the full F2P + P2P set.
- ``issue``     the deterministic, symptom-based issue writer.
- ``bundle``    Harbor bundle export, ``instances.jsonl`` and the anti-contamination scan.
- ``verify``    ``gen09 verify``: nop must score 0, the oracle 1, without Docker.
- ``receipts``  typed progress events and artifact-bound receipts (JSONL), failure classes.
- ``cli``       the ``gen09 mutate`` and ``gen09 verify`` commands.
"""
