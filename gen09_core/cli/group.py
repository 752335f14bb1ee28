"""The top-level ``gen09`` group: every command registered, every failure one line."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import traceback

import click

from gen09_core.cli.ab import ab_command
from gen09_core.cli.apply import apply_command, plugins_command, schema_command
from gen09_core.cli.mcp import mcp_command
from gen09_core.cli.model import generate_command, intent_command, run_command
from gen09_core.cli.mutate import mutate_command, verify_command
from gen09_core.errors import Gen09Error, Interrupted


class Gen09Group(click.Group):
    """A group that turns ``Gen09Error`` into one message on stderr and its exit code, an
    OS failure that reached it (e.g. stdout on a full device) into exit 3, and a signal into
    one message, then death by that signal. With ``--debug`` the traceback is printed first."""

    def invoke(self, ctx):
        """Run the command; map failures to exit codes without a traceback."""
        try:
            return super().invoke(ctx)
        except Gen09Error as exc:
            _traceback(ctx)
            _say(f"gen09: error: {exc}")
            ctx.exit(exc.exit_code)
        except OSError as exc:
            _traceback(ctx)
            where = f": {exc.filename}" if exc.filename else ""
            if _in_echo(exc):
                where = " (writing the output)"
                with contextlib.suppress(OSError, ValueError, AttributeError):  # nothing more to lose
                    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            _say(f"gen09: error: {exc.strerror or exc}{where}")
            ctx.exit(3)
        except (Interrupted, KeyboardInterrupt) as exc:
            signum = getattr(exc, "signum", signal.SIGINT)
            detail = getattr(exc, "detail", None)
            _say(f"gen09: interrupted by {signal.Signals(signum).name}" + (f": {detail}" if detail else ""))
            signal.signal(signum, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])  # blocked, it would not kill
            os.kill(os.getpid(), signum)
            raise


def _traceback(ctx) -> None:
    """With ``--debug``, the traceback behind the error that is about to be reported."""
    if ctx.params.get("debug"):
        with contextlib.suppress(OSError, ValueError):
            traceback.print_exc(file=sys.stderr)


def _say(message: str) -> None:
    """One line on stderr, even when stderr itself is broken."""
    with contextlib.suppress(OSError, ValueError):
        click.echo(" ".join(message.split("\n")), err=True)


def _in_echo(exc: BaseException) -> bool:
    """True when ``exc`` was raised while printing (``click.echo``)."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "echo":
            return True
        tb = tb.tb_next
    return False


@click.group(cls=Gen09Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gen09")
@click.option("--debug", is_flag=True, hidden=True, help="Show the traceback behind an error.")
def main(debug):
    """gen09: turn proposed code changes into safe repository bytes.

    Every candidate edit is applied in memory to the same snapshot, parsed, hard-linted and
    deduplicated; each refusal comes with its stage and a stable reason code. The
    repository is never modified unless you ask for it with --write.
    """


for _command in (apply_command, schema_command, plugins_command, intent_command, generate_command,
                 run_command, mutate_command, verify_command, ab_command, mcp_command):
    main.add_command(_command)
