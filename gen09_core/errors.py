"""Errors that end a command with a clear message and a DESIGN.md exit code."""


class Gen09Error(Exception):
    """Base class: ``exit_code`` 2 for bad input or usage, 3 for an environment failure."""

    exit_code = 2


class BadInput(Gen09Error):
    """The user's input or invocation is wrong (exit 2)."""

    exit_code = 2


class PluginError(Gen09Error):
    """The installed plugins break a load-time rule (exit 2: the setup is wrong)."""

    exit_code = 2


class EnvironmentFailure(Gen09Error):
    """A tool or the machine failed (exit 3): a linter missing, a write that could not land."""

    exit_code = 3


class Interrupted(BaseException):
    """SIGTERM, SIGINT or SIGHUP arrived during ``--write``; ``detail`` says what became of
    the write. A BaseException, so no ``except Exception`` swallows it."""

    def __init__(self, signum: int, detail: str = "nothing was written"):
        super().__init__(signum, detail)
        self.signum = signum
        self.detail = detail
