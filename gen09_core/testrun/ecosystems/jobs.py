"""Test jobs of command recipes: one shell command over a fresh copy of the prepared work
copy, its report turned into the one outcome record (:mod:`gen09_core.testrun.reports`),
judged like a pytest job (:func:`gen09_core.testrun.jobs.judge_record`).

The job's folder is a copy of the work copy without its build folders; the ``linked``
folders (``node_modules``) are symbolic links to the prepared ones, so a job costs a copy
of the sources only. A command that exits by itself without leaving a report (a mutant
that does not compile) is a finished run in which no test passed.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from attrs import field, frozen

from gen09_core.testrun import reports
from gen09_core.testrun.jobs import TestJob, TestRun, job_folders, judge_record
from gen09_core.testrun.process import clean_env, run_limited

HERE = Path(__file__).parent
# the line that names why a command died: ``Error: ENOENT ...`` above node's stack frames,
# ``error[E0425]: ...`` from rustc, ``npm error ...``, a Go or Rust panic, a Java exception
ERROR_LINE = re.compile(r"(?:[\w.$]*(?:Error|Exception)\b|error\b|error\[|npm (?:error|ERR!)|panic|fatal\b)")
RUNNER_FILES = {"gen09_node_junit.mjs": HERE / "gen09_node_junit.mjs",
                "gen09_mocha_json.cjs": HERE / "gen09_mocha_json.cjs",
                "gen09_vitest_diff.mjs": HERE / "gen09_vitest_diff.mjs",
                "gen09_jasmine_json.cjs": HERE / "gen09_jasmine_json.cjs",
                "gen09_minitest.rb": HERE / "gen09_minitest.rb",
                "gen09_reports.py": HERE.parent / "reports.py",
                "gen09_outcomes.py": HERE.parent / "outcomes.py"}


@frozen
class CommandEnv:
    """How a command recipe's tests run: the test command, the report it leaves, the
    folder of gen09's runner files, extra environment variables, the work-copy folders
    linked or left out, and whether the address-space limit applies (V8 reserves more
    address space than any sane limit, and so does the JVM, so node and Java run without it)."""

    test: str
    report: str
    runner_dir: str
    ecosystem: str = "command"
    env: dict = field(factory=dict)
    linked: tuple[str, ...] = ()
    build_dirs: tuple[str, ...] = ()
    limit_memory: bool = True


def install_runner(folder: Path) -> Path:
    """Copy gen09's runner files (the report converter, the outcome reader, node's, old
    mocha's and jasmine's reporters, the minitest runner) into ``folder``; returns it, absolute."""
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in RUNNER_FILES.items():
        shutil.copyfile(source, folder / name)
    return folder


def copy_work(source: Path, target: Path, linked=(), left_out=()) -> None:
    """Copy the work copy ``source`` to ``target`` without the top-level ``left_out`` and
    ``linked`` folders; the ``linked`` ones become links to the source's."""
    source, skip = Path(source), set(linked) | set(left_out)
    shutil.copytree(source, target, symlinks=True,
                    ignore=lambda folder, names: [n for n in names if Path(folder) == source and n in skip])
    for name in linked:
        if (source / name).exists():
            (Path(target) / name).symlink_to((source / name).resolve(), target_is_directory=True)


def report_pattern(report: str, report_file: Path, output: Path) -> tuple[str, str]:
    """``(format, path or glob)`` of a ``FORMAT:PATH`` report with ``$GEN09_REPORT`` filled in
    (``-``: the command's output)."""
    fmt, _, path = report.partition(":")
    if path in ("", "-"):
        return fmt, str(output)
    return fmt, path.replace("${GEN09_REPORT}", str(report_file)).replace("$GEN09_REPORT", str(report_file))


def run_command_job(env: CommandEnv, job: TestJob) -> TestRun:
    """Run one job in its own folder and process; the folder is removed afterwards. Every
    job runs the whole suite (``job.tests`` only matter to the judging)."""
    def copy(folder: Path) -> None:
        copy_work(Path(job.source_dir), folder, env.linked, env.build_dirs)

    with job_folders(job, copy) as (folder, meta):
        (meta / "tmp").mkdir()
        return _run(env, job, folder, meta)


def _run(env: CommandEnv, job: TestJob, folder: Path, meta: Path) -> TestRun:
    report_file, output, record = meta / "report", meta / "output.txt", meta / "outcomes.jsonl"
    variables = clean_env(None, GEN09_REPORT=str(report_file), GEN09_RUNNER=env.runner_dir,
                          TMPDIR=str(meta / "tmp"), **{str(k): str(v) for k, v in env.env.items()})
    done = run_limited(["bash", "-c", env.test], folder, variables, job.timeout_sec, output,
                       job.memory_mb if env.limit_memory else None)
    if done.status == "ok":
        fmt, pattern = report_pattern(env.report, report_file, output)
        parsed = reports.convert(fmt, pattern, str(record), str(folder), done.returncode)
        if done.returncode != 0 and (parsed is None or parsed == reports.Parsed()):  # nothing reported
            _no_report(record, fmt, done, output)
    return judge_record(job, record, done, runner_failures={}, runner=env.ecosystem)


def _no_report(record: Path, fmt: str, done, output: Path) -> None:
    """A failed run with no test or problem reported: the command died before its runner
    reported (or, a report on the output, printed nothing it could read). The message, one
    line, is the output's first line that opens with an error (the tail may have lost it: node
    prints ``Error: ...`` above its stack frames), else its first line that names one later
    (tsc's ``src/ast.ts(307,9): error TS2367: …``: isaacs/minimatch's build), else the output's
    last lines."""
    text = output.read_text(encoding="utf-8", errors="replace") if output.is_file() else done.output
    said = [line.strip() for line in text.splitlines() if line.strip()]
    found = (i for find in (ERROR_LINE.match, ERROR_LINE.search) for i, line in enumerate(said) if find(line))
    at = next(found, None)
    cause = " / ".join(said[-5:])[-600:] if at is None else said[at][:300]
    below = [line for line in said[at + 1:at + 8] if line.startswith("Caused by: ")] if at is not None else []
    if below:  # vitest's worker that could not start, and why (pmndrs/zustand on node 20)
        cause += f" ({below[0][:300]})"
    lines = [{"kind": "collect_error", "id": "",
              "message": f"no {fmt} report: the command exited {done.returncode}: {cause}"},
             {"kind": "finish", "exitstatus": done.returncode}]
    record.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
