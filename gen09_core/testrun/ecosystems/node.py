"""JavaScript/TypeScript: ``package.json`` → npm, and the test runner it uses.

Install: ``npm ci`` with a ``package-lock.json`` or ``npm-shrinkwrap.json``, else
``npm install`` (which writes the lockfile the bundle then ships). A ``yarn.lock`` or
``pnpm-lock.yaml`` is noted, and npm resolves the dependencies itself.

Runner, from the ``scripts.test`` command (its arguments are kept, but for options that
would change what gen09 measures: coverage, watch mode, reporters), else from the
dependencies:

- ``node --test`` → gen09's JUnit reporter for node (``gen09_node_junit.mjs``: node's own
  junit reporter names no file), format ``junit``;
- ``jest`` → ``--ci --json --outputFile``, format ``jest-json``;
- ``vitest`` → ``vitest run --reporter=json --outputFile``, format ``jest-json``;
- ``mocha`` → ``--reporter json --reporter-option output=...``, format ``mocha-json``;
- ``tape`` → its TAP on stdout, format ``tap`` (a wrapper such as ``nyc`` is dropped);
- ``tap`` (node-tap, npm's own packages use it) → ``-R tap --no-coverage`` (tap 18 and later:
  ``--reporter=tap --disable-coverage``, by the major version ``devDependencies`` asks
  for): its nested TAP on stdout, format ``tap``; no coverage, which would only slow the run
  and fail it below the repository's threshold.

``npm run NAME`` / ``npm test`` inside a script is followed to the script it names. The
browsers puppeteer, playwright and cypress would download at install are not downloaded
(``NO_BROWSERS``): a suite that needs one fails its pristine run, saying so. A ``pretest``
script that compiles or bundles (``tsc``, ``babel``, ``rollup``, …) runs before every test run,
as ``npm test`` runs it, and so does such a step before the runner in ``scripts.test``
(``tsc && mocha``): the tests import what it builds, so a mutant must be built first.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from gen09_core.errors import BadInput
from gen09_core.testrun.ecosystems import CommandRecipe, script_parts, script_segment

# the browsers puppeteer, playwright and cypress download when they are installed: nothing the user
# asked for (yargs-parser 22's devDependencies hold puppeteer, whose download failed its install)
NO_BROWSERS = {"PUPPETEER_SKIP_DOWNLOAD": "1", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
               "CYPRESS_INSTALL_BINARY": "0"}
# a compiler or bundler: a ``pretest`` that runs one builds what the tests import (yargs-parser 22:
# ``tsc`` into build/, which its tests import; built once at install, every mutant passed)
_BUILDS = re.compile(r"\b(?:tsc|babel|rollup|esbuild|tsup|webpack|swc|microbundle|unbuild|vite build)\b")
RUNNERS = ("jest", "vitest", "mocha", "tape", "tap", "node")
# options of the repository's own test command that gen09 replaces or must not use
DROPPED = {"--coverage", "--watch", "--watchAll", "-w", "--reporter", "-R", "--reporters", "--json",
           "--outputFile", "--test-reporter", "--test-reporter-destination", "--reporter-option",
           "--reporter-options", "-O", "--ci", "--silent", "--verbose"}
TAKES_VALUE = {"--reporter", "-R", "--reporters", "--outputFile", "--test-reporter",
               "--test-reporter-destination", "--reporter-option", "--reporter-options", "-O"}
BIN = 'npx --no-install'
CI = "npm ci --no-audit --no-fund"  # a shipped snapshot always has the lockfile the setup used or wrote


def detect(repo: Path) -> CommandRecipe | None:
    """The npm recipe of ``repo``, or None without a ``package.json``; ``BadInput`` when
    it is not valid JSON or no supported runner is found."""
    path = Path(repo) / "package.json"
    if not path.is_file():
        return None
    try:
        package = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: not valid JSON: {exc}") from None
    provenance, notes = [], []
    lock = next((n for n in ("package-lock.json", "npm-shrinkwrap.json") if (Path(repo) / n).is_file()), None)
    if lock:
        install = CI
        provenance.append(("npm ci", lock))
    else:
        # the lock it writes is what every bundle's ``npm ci`` installs, even where the
        # repository's .npmrc says ``package-lock=false`` (resolve 1.22.8)
        install = "npm install --no-audit --no-fund --package-lock=true"
        provenance.append(("npm install", "package.json (no lockfile)"))
        for other in ("yarn.lock", "pnpm-lock.yaml"):
            if (Path(repo) / other).is_file():
                notes.append(f"{other} is not read: npm resolves the dependencies itself")
    scripts = package.get("scripts") or {}
    script = expand_script(scripts, "test")
    deps = {**(package.get("dependencies") or {}), **(package.get("devDependencies") or {})}
    test, fmt, where, runner = _runner(script, deps)
    if test is None:
        raise BadInput(f"{path}: no supported test runner (node --test, jest, vitest, mocha, tape, tap) in "
                       f"scripts.test "
                       f"{script!r} or the dependencies; give a command profile in the configuration")
    provenance.append((f"{runner} runner", where))
    builds = _builds_before(script, runner)
    if _BUILDS.search(expand_script(scripts, "pretest")):
        builds.insert(0, "npm run --silent pretest")
    if builds:  # each one's output kept off a report on stdout
        test = " && ".join([*(f"{build} >&2" for build in builds), test])
        provenance.append((f"{' && '.join(builds)} before each run (it builds what the tests import)",
                           "package.json scripts"))
    typescript = any(p.suffix in (".ts", ".tsx", ".mts", ".cts") for p in _sources(Path(repo)))
    return CommandRecipe(
        ecosystem="node", language="typescript" if typescript else "javascript", test=test,
        report=f"{fmt}:-" if fmt == "tap" else f"{fmt}:$GEN09_REPORT", setup=(install,), image="node:{node}",
        tools=("node", "npm"),
        image_setup=(CI,), replay=(CI,),
        lockfiles=(lock or "package-lock.json",), linked=("node_modules",), build_dirs=("node_modules",),
        env={"CI": "true", "NO_COLOR": "1", "FORCE_COLOR": "0", **NO_BROWSERS}, provenance=tuple(provenance),
        notes=tuple(notes))


def expand_script(scripts: dict, name: str, depth: int = 0) -> str:
    """``scripts[name]`` with every ``npm run X`` / ``npm test`` replaced by the script it
    runs (up to a few levels)."""
    text = str(scripts.get(name) or "")
    if depth > 4:
        return text

    def follow(match):
        return expand_script(scripts, match.group(1) or "test", depth + 1) or match.group(0)

    return re.sub(r"\bnpm (?:run(?:-script)?(?: --silent| -s)? ([\w:.-]+)|(test)\b)", follow, text)


def _builds_before(script: str, runner: str) -> list[str]:
    """The parts of the test script before its runner's that compile or bundle (``tsc -p .`` of
    ``tsc -p . && mocha``): the runner alone would test what was built before."""
    builds = []
    for part in script_parts(script):
        if script_segment(part, runner) is not None:
            return builds
        if _BUILDS.search(part):
            builds.append(part.strip())
    return []  # the runner came from the dependencies: nothing of the script runs


def _sources(repo: Path):
    for path in repo.rglob("*"):
        if "node_modules" not in path.parts and path.is_file():
            yield path


def _runner(script: str, deps: dict) -> tuple[str | None, str, str, str]:
    """``(command, report format, where it came from, runner)``; ``deps`` maps a package to
    the version range the repository asks for."""
    for name in RUNNERS:
        words = script_segment(script, name)
        if name == "node" and words is not None and "--test" not in words:
            words = None
        if words is not None:
            return _command(name, words, deps.get(name, "")), _format(name), "package.json scripts.test", name
    for name in RUNNERS[:5]:
        if name in deps:
            return _command(name, [], deps[name]), _format(name), f"package.json devDependencies {name}", name
    return None, "", "", ""


def _format(name: str) -> str:
    return {"jest": "jest-json", "vitest": "jest-json", "mocha": "mocha-json", "tape": "tap", "tap": "tap",
            "node": "junit"}[name]


def _args(name: str, words: list[str]) -> list[str]:
    """The arguments after the runner's own word, minus the options gen09 replaces."""
    at = next(i for i, w in enumerate(words) if Path(w).name == name)
    out, skip = [], False
    for word in words[at + 1:]:
        if skip:
            skip = False
            continue
        option = word.split("=", 1)[0]
        if option in DROPPED or option.startswith("--coverage"):
            skip = option in TAKES_VALUE and "=" not in word
            continue
        out.append(word)
    return out


def _command(name: str, words: list[str], wanted: str = "") -> str:
    """The test command of runner ``name``, from the words of the repository's own (if any)
    and the version range it asks for (``wanted``)."""
    args = [shlex.quote(a) for a in (_args(name, words) if words else [])]
    if name == "node":
        args = [a for a in args if a != "--test"]
        return " ".join(["node", "--test", '--test-reporter="$GEN09_RUNNER/gen09_node_junit.mjs"',
                         '--test-reporter-destination="$GEN09_REPORT"', *args])
    if name == "jest":
        return " ".join([BIN, "jest", "--ci", "--json", '--outputFile="$GEN09_REPORT"', *args])
    if name == "vitest":
        args = [a for a in args if a != "run"]
        return " ".join([BIN, "vitest", "run", "--reporter=json", '--outputFile="$GEN09_REPORT"', *args])
    if name == "tape":
        return " ".join([BIN, "tape", *args])
    if name == "tap":
        major = re.search(r"\d+", wanted)
        new = major is not None and int(major.group()) >= 18
        options = ["--reporter=tap", "--disable-coverage"] if new else ["-R", "tap", "--no-coverage"]
        return " ".join([BIN, "tap", *options, *args])
    return " ".join([BIN, "mocha", *args, "--reporter", "json", "--reporter-option",
                     'output="$GEN09_REPORT"'])
