"""The ``gen09`` command line, one module per command group.

- ``group``   — the top-level group: exit codes, clean one-line errors, ``--debug``
- ``options`` — option definitions shared by several commands (repository, model, hard lint)
- ``output``  — the plain report table of ``apply`` and ``run``
- ``apply``   — ``apply``, ``schema``, ``plugins`` (the model-free engine)
- ``model``   — ``intent``, ``generate``, ``run`` (the stages around the one model call)
- ``mutate``  — ``mutate``, ``verify`` (task generation)
- ``ab``      — ``ab`` (the A/B protocol)
- ``mcp``     — ``mcp`` (the tools over the Model Context Protocol; the SDK loads only there)

Command modules import only click at load time; the stages they run are imported inside the
commands, so ``gen09 apply`` starts fast. Exit codes: 0 success, 1 nothing usable, 2 bad
input or usage, 3 an environment or tool failure.
"""

from gen09_core.cli.group import main

__all__ = ["main"]
