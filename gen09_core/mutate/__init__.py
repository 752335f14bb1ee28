"""``repo_mutate``: verified bug-fix tasks from a healthy repository.

The pipeline shell and its parts (one module each):

- ``config``      typed configuration (``pipeline.name = "repo_mutate"``, ``pipeline.recipe``),
                  strict: unknown keys are an error; the resolved form is written to the run
                  folder before any work starts. Its ``CONVERTER`` (un)structures all of
                  mutate's data.
- ``pipeline``    configuration → checks → the chosen recipe's ``run``.
- ``recipes``     recipes arrive through the ``gen09_recipes`` hook; ``swe_smith`` is built in
                  and orchestrates the stages below.
- ``profiles``    how to install a repository and run its tests (built-in ``python-pytest``;
                  custom profiles from the configuration file).
- ``executor``    where test jobs run (a local pool by default; the interface admits others).
- ``workspace``   the folders of a run and its test runners (fresh or warm).

The stages, in order: ``source`` (the pristine copy), ``environment`` (venv + lock),
``baseline`` (the pristine suite twice, flaky tests out, per-test coverage), ``mutants``
(generation through apply + gate), ``validate`` (covering tests only), ``confirm`` (the full
F2P + P2P set), ``export`` (``issue``, ``bundle``, ``leaks``: the issue, the Harbor bundle,
the anti-contamination scan), ``summary``.

Around them: ``records`` (each mutant's verdicts, ``instances.jsonl``), ``receipts`` (typed
progress events and artifact-bound receipts, failure classes), ``dryrun`` (``--dry-run``),
``verify`` (``gen09 verify``: nop must score 0, the oracle 1, without Docker).
"""
