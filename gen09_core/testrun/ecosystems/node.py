"""JavaScript/TypeScript: ``package.json`` → npm, and the test runner it uses.

Install: ``npm ci`` with a ``package-lock.json`` or ``npm-shrinkwrap.json``, else
``npm install`` (which writes the lockfile the bundle then ships). A ``yarn.lock`` or
``pnpm-lock.yaml`` is noted, and npm resolves the dependencies itself. An install npm refuses
for a conflicting peer dependency (``ERESOLVE``) runs again with ``legacy-peer-deps``, npm's own
advice, and the setting stays in every later step's environment, the bundle's ``npm ci`` too
(``peers_allowed``): pnpm and yarn only warn of such a conflict (unjs/defu: unbuild's optional
peer ``typescript@^5.9`` against the project's ``typescript@^6``), and npm projects without a
lockfile meet it as their dependencies move on (validator.js: rollup-plugin-babel's peers).

Runner, from the ``scripts.test`` command (its arguments are kept, but for options that
would change what gen09 measures: coverage, watch mode, reporters, stopping at the first
failure), else from the
dependencies:

- ``node --test`` → gen09's JUnit reporter for node (``gen09_node_junit.mjs``: node's own
  junit reporter names no file), format ``junit``;
- ``jest`` → ``--ci --json --outputFile`` (no ``--ci`` before jest 20, which refuses it),
  format ``jest-json``;
- ``vitest`` → ``vitest run --reporter=json --outputFile`` and ``--reporter=dot`` on the output
  (the json reporter leaves out an error outside the tests: pmndrs/zustand's workers could not
  start on node 20, and nothing said why), before them gen09's ``gen09_vitest_diff.mjs``, which
  writes the diff vitest made of a failed comparison into the error the json report keeps (it
  keeps only the message: path-to-regexp 8's issues read "a result differs from what is expected,
  though both print as `{ path: '/a-b-c-d', …(1) }`"), format ``jest-json``;
- ``mocha`` → ``--reporter json --reporter-option output=...`` (before mocha 9, by the major
  version ``devDependencies`` asks for, gen09's ``gen09_mocha_json.cjs``: mocha's own json
  reporter then names no test's file and writes only to stdout), format ``mocha-json``; with
  ``--ui tdd`` when the tests call only ``suite()`` and nothing names an interface (mde/ejs);
- ``tape`` → its TAP on stdout, format ``tap`` (a wrapper such as ``nyc`` is dropped);
- ``ava`` → ``--tap``: its TAP on stdout, format ``ava-tap`` (each point a test, a test's YAML its
  message);
- ``tap`` (node-tap, npm's own packages use it) → ``-R tap --no-coverage`` (tap 18 and later:
  ``--reporter=tap --disable-coverage``, by the major version ``devDependencies`` asks
  for): its nested TAP on stdout, format ``tap``; no coverage, which would only slow the run
  and fail it below the repository's threshold;
- ``jasmine`` (3 and later: jasmine 2 has no ``--reporter`` option) → gen09's
  ``gen09_jasmine_json.cjs`` as its reporter (jasmine has no machine-readable one): the
  shape of mocha's json report, format ``mocha-json``; ``--parallel`` is dropped (a reporter
  must declare it can follow parallel runs). NaturalIntelligence/fast-xml-parser runs
  ``c8 … jasmine spec/*spec.js``.

``npm run NAME`` / ``npm test`` (or pnpm's and yarn's, as vercel/ms has, and their
``pnpm NAME`` when NAME is a script, as unjs/defu has, and npm-run-all's ``run-p build:*``,
as validator.js has) inside a script is followed to the scripts it names; a ``yarn X`` (or
``pnpm X``) where X is no script runs the package binary X, as X itself (kpdecker/jsdiff's
``yarn tsc …``: yarn need not be installed). The
browsers puppeteer, playwright and cypress would download at install are not downloaded
(``NO_BROWSERS``): a suite that needs one fails its pristine run, saying so. A ``pretest``
script that compiles or bundles (``tsc``, ``babel``, ``rollup``, …) runs before every test run,
as ``npm test`` runs it (only its steps that build, when others do not: a lint is no build,
nor is a type check such as ``tsc --noEmit``), and so does such a step before the runner in
``scripts.test`` (``tsc && mocha``): the tests import what it builds, so a mutant must be built first. A step
that runs a script file of the repository (``./scripts/build.sh``) is read through that file.
Where none is found but a test file imports a file under a folder the repository lacks
(isaacs/minimatch 10's ``../dist/esm/index.js``: its ``prepare`` is ``tshy``), the package's
``prepare`` scripts run before every test run, and a note says so.

The work copy has no ``.git``. When the package has a lifecycle script ``npm ci`` runs
(``prepare``, ``postinstall``, …), the install runs in an empty git repository made for it and
removed after it (``IN_GIT``): such scripts often install git hooks (``lefthook install``,
which fails outside a repository: uuid 14), which a test run never uses. So do the test
runs that build first: a build may run them again (``npm pack`` runs ``prepare``).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import shlex
from pathlib import Path

from attrs import evolve

from gen09_core.errors import BadInput
from gen09_core.testrun.ecosystems import CommandRecipe, NoRunner, script_parts, script_segment

# the browsers puppeteer, playwright and cypress download when they are installed: nothing the user
# asked for (yargs-parser 22's devDependencies hold puppeteer, whose download failed its install)
NO_BROWSERS = {"PUPPETEER_SKIP_DOWNLOAD": "1", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
               "CYPRESS_INSTALL_BINARY": "0"}
# a compiler or bundler: a ``pretest`` that runs one builds what the tests import (yargs-parser 22:
# ``tsc`` into build/, which its tests import; built once at install, every mutant passed;
# isaacs/minimatch 10: ``pretest`` is ``npm run prepare``, ``prepare`` is ``tshy``: 13 of 20 mutants "no F2P")
_BUILDS = re.compile(r"\b(?:tsc|tshy|tsdown|babel|rollup|rolldown|esbuild|tsup|webpack|swc|microbundle"
                     r"|unbuild|pkgroll|vite build)\b")
# a type check builds nothing (ianstormtaylor/superstruct 2: ``tsc --noEmit`` ran before every mutant's
# tests, and a mutant that broke a type ended its run before any test)
_NO_EMIT = re.compile(r"\btsc\b[^&|;\n]*--noEmit\b")
_SCRIPT_FILES = (".sh", ".bash", ".js", ".mjs", ".cjs", ".ts", ".mts")  # a script a step may run
# a test file's relative import (``from '../dist/esm/index.js'``, ``require('../lib')``, ``import('./x')``)
_RELATIVE_IMPORT = re.compile(r"""(?:\bfrom\s*|\brequire\(\s*|\bimport\(\s*)['"](\.\.?(?:/[^'"]*)?)['"]""")
_TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec"})
_TEST_FILE = re.compile(r"[._-](?:test|spec)\.[cm]?[jt]sx?$")
_PREPARE = ("preprepare", "prepare", "postprepare")  # what installing runs that may build
_FORMATS = {"jest": "jest-json", "vitest": "jest-json", "mocha": "mocha-json", "jasmine": "mocha-json",
            "node": "junit", "ava": "ava-tap"}
# the last only from scripts.test
RUNNERS = ("jest", "vitest", "mocha", "ava", "tape", "tap", "jasmine", "node")
NAMED = "node --test, jest, vitest, mocha, ava, tape, tap, jasmine 3+"
# options of the repository's own test command that gen09 replaces or must not use
DROPPED = {"--coverage", "--watch", "--watchAll", "-w", "--reporter", "-R", "--reporters", "--json",
           "--outputFile", "--test-reporter", "--test-reporter-destination", "--reporter-option",
           "--reporter-options", "-O", "--ci", "--silent", "--verbose", "--bail", "-b", "--fail-fast"}
TAKES_VALUE = {"--reporter", "-R", "--reporters", "--outputFile", "--test-reporter",
               "--test-reporter-destination", "--reporter-option", "--reporter-options", "-O"}
SHORT_VALUED = {"-R", "-O"}  # a dropped short option, its value in the same word or the next
COUNTED = {"--bail", "-b"}  # jest's ``--bail [n]``: a number after it is its own
BIN = 'npx --no-install'
# npm-run-all's ``run-p build:*`` / ``run-s a b`` / ``npm-run-all -p a b`` (validator.js's ``build``)
_RUN_ALL = re.compile(r"\b(?:run-[ps]|npm-run-all)((?:[ \t]+[^\s&|;]+)+)")
# ``npm run X`` / ``npm test``, and pnpm's and yarn's ``pnpm X`` (the script X when there is one:
# defu's ``pnpm test:types``; else a binary, as ``pnpm vitest run``)
_RUN_SCRIPT = re.compile(r"\b(?:npm|pnpm|yarn) (?:run(?:-script)?(?: --silent| -s)? ([\w:.-]+)"
                         r"|(test)(?![\w:.-]))|\b(?:pnpm|yarn) ([\w:.-]+)")
# pnpm's and yarn's own commands: any other ``yarn X`` that names no script runs the package binary X
# (kpdecker/jsdiff's ``yarn tsc --module commonjs``), run as X itself: yarn need not be installed
_PM_OWN = {"add", "audit", "bin", "cache", "config", "create", "dlx", "global", "import", "info", "init",
           "install", "link", "list", "ls", "outdated", "pack", "publish", "rebuild", "remove", "set", "tag",
           "unlink", "up", "upgrade", "version", "why", "workspace", "workspaces"}
# npm's way past a peer conflict it refuses (ERESOLVE); it must also hold for the bundle's ``npm ci``,
# which checks the lock against it
PEER_LENIENT = {"npm_config_legacy_peer_deps": "true"}
CI = "npm ci --no-audit --no-fund"  # a shipped snapshot always has the lockfile the setup used or wrote
# the lock it writes is what every bundle's ``npm ci`` installs, even where the repository's .npmrc
# says ``package-lock=false`` (resolve 1.22.8)
INSTALL = "npm install --no-audit --no-fund --package-lock=true"
# ``npm ci``'s refusal of a package-lock.json that package.json has moved past (pmndrs/zustand installs
# with pnpm, and its package-lock.json fell behind)
_STALE_LOCK = "can only install packages when your package.json and package-lock.json"
# npm's warning of a package that needs another node: its name, then the node it asks for
_ENGINE = re.compile(r"EBADENGINE\s+package: '([^']+)',\s*\nnpm warn EBADENGINE\s+required: "
                     r"\{[^}]*?node: '([^']+)'")
_CURRENT_NODE = re.compile(r"EBADENGINE\s+current: \{ node: '([^']+)'")
# the root package's scripts ``npm ci`` / ``npm install`` run
LIFECYCLE = ("preinstall", "install", "postinstall", "preprepare", "prepare", "postprepare")
# the packages' programs on PATH, as ``npm run`` puts them, for a build step gen09 runs itself
# (sindresorhus/ky: ``xo && npm run build && ava``, its build ``tsc --project …``: "tsc: command not found")
LOCAL_BIN = 'export PATH="$PWD/node_modules/.bin:$PATH"'
# a repository for the install, only where there is none, removed when it ends (its status kept)
IN_GIT = "[ -e .git ] || {{ git init -q . && trap 'rm -rf .git' EXIT; }}; {}"


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
        install = INSTALL
        provenance.append(("npm install", "package.json (no lockfile)"))
        for other in ("yarn.lock", "pnpm-lock.yaml"):
            if (Path(repo) / other).is_file():
                notes.append(f"{other} is not read: npm resolves the dependencies itself")
    scripts = package.get("scripts") or {}
    hooked = _installs_run(scripts)
    if hooked:
        install, ci = IN_GIT.format(install), IN_GIT.format(CI)
    else:
        ci = CI
    script = expand_script(scripts, "test")
    deps = {**(package.get("dependencies") or {}), **(package.get("devDependencies") or {})}
    test, fmt, where, runner = _runner(script, deps)
    builds = []
    if runner == "mocha" and (tdd := _tdd_only(Path(repo), package, test)):
        test = test.replace(f"{BIN} mocha", f"{BIN} mocha --ui tdd", 1)
        notes.append(f"the tests use mocha's tdd interface ({tdd} calls suite(), no test file calls "
                     "describe()) and nothing tells mocha so: run with --ui tdd")
    if test is not None:
        provenance.append((f"{runner} runner", where))
        builds = _builds_before(script, runner, Path(repo))
        builds[:0] = _pretest_builds(scripts, Path(repo))
        prepare = [f"npm run --silent {name}" for name in _PREPARE if scripts.get(name)]
        if not builds and (built := _imports_built(Path(repo))):
            # no build recognised, yet the tests import what is built: ``prepare`` builds it at install,
            # else ``build``, which a project's CI runs before its tests (developit/mitt)
            builds = prepare or (["npm run --silent build"] if scripts.get("build") else [])
            if builds:
                notes.append(f"a test imports {built}, which is not in the repository: "
                             f"{' && '.join(builds)} runs before each run to build it")
    if builds:  # each one's output kept off a report on stdout
        bare = [] if all(build.startswith("npm run ") for build in builds) else [LOCAL_BIN]
        test = " && ".join([*bare, *(f"{build} >&2" for build in builds), test])
        if hooked:  # a build may run them too (uuid 14's build runs ``npm pack``: ``prepare`` again)
            test = IN_GIT.format(test)
        provenance.append((f"{' && '.join(builds)} before each run (it builds what the tests import)",
                           "package.json scripts"))
    typescript = any(p.suffix in (".ts", ".tsx", ".mts", ".cts") for p in _sources(Path(repo)))
    recipe = CommandRecipe(
        ecosystem="node", language="typescript" if typescript else "javascript", test=test or "",
        report="" if test is None else f"{fmt}:-" if fmt.endswith("tap") else f"{fmt}:$GEN09_REPORT",
        setup=(install,), image="node:{node}", tools=("node", "npm"),
        image_setup=(ci,), replay=(ci,),
        lockfiles=(lock or "package-lock.json",), linked=("node_modules",), build_dirs=("node_modules",),
        env={"CI": "true", "NO_COLOR": "1", "FORCE_COLOR": "0", **NO_BROWSERS}, provenance=tuple(provenance),
        notes=tuple(notes))
    if test is None:
        old = " (jasmine before 3 has no reporter option)" if "jasmine" in deps else ""
        raise NoRunner(f"{path}: no supported test runner ({NAMED}) in scripts.test {script!r} or the "
                       f"dependencies{old}; give a profile with base = \"node\" and its test and report in "
                       "the configuration", recipe)
    return recipe


def install_scripts(repo: Path) -> str | None:
    """The command that runs what installing ``repo`` runs of its own ``package.json``
    (``LIFECYCLE``: its ``prepare`` that builds, as content-disposition 3's ``npm run build``),
    in the order npm runs them; None when there is none."""
    with contextlib.suppress(OSError, ValueError):
        scripts = json.loads((Path(repo) / "package.json").read_text(encoding="utf-8")).get("scripts") or {}
        steps = [f"npm run --silent {name}" for name in LIFECYCLE if scripts.get(name)]
        return IN_GIT.format(" && ".join(steps)) if steps else None
    return None


def runs_root_scripts(repo: Path) -> bool:
    """Whether installing ``repo`` runs scripts of its own ``package.json`` (``LIFECYCLE``)."""
    return install_scripts(repo) is not None


def _installs_run(scripts: dict) -> bool:
    return any(scripts.get(name) for name in LIFECYCLE)


def peers_allowed(recipe: CommandRecipe, output: str) -> CommandRecipe | None:
    """``recipe`` installing with ``legacy-peer-deps`` when its install's ``output`` is npm
    refusing a conflicting peer dependency and it did not have the setting yet; else None."""
    if recipe.ecosystem != "node" or PEER_LENIENT.items() <= recipe.env.items() or "ERESOLVE" not in output:
        return None
    return evolve(recipe, env={**recipe.env, **PEER_LENIENT}, notes=(
        *recipe.notes, "npm refused a conflicting peer dependency (ERESOLVE): installed with "
        "legacy-peer-deps, as npm advises, in every step"))


def engine_warnings(output: str) -> str:
    """A note of the packages an install's ``output`` says need another node than this one (npm's
    ``EBADENGINE`` warnings), or "": pmndrs/zustand's jsdom 30 and undici 8 need node 22, and its
    tests could not start on node 20."""
    needs = dict(_ENGINE.findall(output))
    if not needs:
        return ""
    current = _CURRENT_NODE.search(output)
    named = ", ".join(f"{package} ({wanted})" for package, wanted in list(needs.items())[:3])
    return (f"npm warned that {len(needs)} installed package(s) need another node than "
            f"{current.group(1) if current else 'this one'} (EBADENGINE), among them {named}: a test that "
            "loads one may fail for that")


def lock_refreshed(recipe: CommandRecipe, output: str) -> CommandRecipe | None:
    """``recipe`` installing with ``npm install``, which brings package-lock.json up to date (the
    bundles ship that lock), when its ``npm ci``'s ``output`` refused a lock out of step with
    package.json; else None."""
    if recipe.ecosystem != "node" or _STALE_LOCK not in output or not any(CI in s for s in recipe.setup):
        return None
    return evolve(recipe, setup=tuple(step.replace(CI, INSTALL) for step in recipe.setup), notes=(
        *recipe.notes, "package-lock.json is out of step with package.json (npm ci refused it): installed "
        "with npm install, which updated it; the bundles ship the updated lock"))


def expand_script(scripts: dict, name: str) -> str:
    """``scripts[name]`` with every ``npm run X`` / ``npm test`` (``pnpm``, ``yarn`` too) and
    npm-run-all's ``run-p`` / ``run-s`` replaced by the scripts they run (up to a few levels)."""
    return _expanded(scripts, str(scripts.get(name) or ""))


def _expanded(scripts: dict, text: str, depth: int = 0) -> str:
    if depth > 4:
        return text

    def follow(match):
        run, test, bare = match.groups()
        if bare is not None and bare not in scripts:  # a binary, which ``npm run`` puts on PATH too
            return match.group(0) if bare in _PM_OWN else "" if bare == "exec" else bare
        return _expanded(scripts, str(scripts.get(run or test or bare) or ""), depth + 1) or match.group(0)

    def run_all(match):  # its words that are no option name scripts, ``*`` within one ``:`` part
        patterns = [re.compile(re.escape(word).replace(r"\*\*", ".+").replace(r"\*", "[^:]+"))
                    for word in match.group(1).split() if not word.startswith("-")]
        names = [name for name in scripts if any(p.fullmatch(name) for p in patterns)]
        steps = [_expanded(scripts, str(scripts[name]), depth + 1) for name in names]
        return " && ".join(steps) or match.group(0)

    return _RUN_ALL.sub(run_all, _RUN_SCRIPT.sub(follow, text))


def _pretest_builds(scripts: dict, repo: Path) -> list[str]:
    """The steps of ``scripts.pretest`` that compile or bundle (validator.js: ``npm run build``,
    not its ``npm run lint``), as ``npm test`` would run them first: the whole script when every
    step builds."""
    steps = [part.strip() for part in script_parts(str(scripts.get("pretest") or "")) if part.strip()]
    building = [step for step in steps if _builds(_with_files(_expanded(scripts, step), repo))]
    return ["npm run --silent pretest"] if building and building == steps else building


def _builds(text: str) -> bool:
    """Whether the script ``text`` runs a compiler or bundler that writes something (not only
    ``tsc --noEmit``)."""
    return bool(_BUILDS.search(_NO_EMIT.sub("", text)))


def _with_files(script: str, repo: Path) -> str:
    """``script`` followed by the text of each file of ``repo`` it names as a word
    (``./scripts/build.sh``, ``node build.mjs``): what a build step really runs."""
    texts = [script]
    for word in re.findall(r"[\w./-]+", script):
        path = repo / word
        with contextlib.suppress(OSError, ValueError):
            if (path.suffix in _SCRIPT_FILES and path.is_file()
                    and path.resolve().is_relative_to(repo.resolve())):
                texts.append(path.read_text(encoding="utf-8", errors="replace")[:100_000])
    return "\n".join(texts)


def _builds_before(script: str, runner: str, repo: Path) -> list[str]:
    """The parts of the test script before its runner's that compile or bundle (``tsc -p .`` of
    ``tsc -p . && mocha``): the runner alone would test what was built before."""
    builds = []
    for part in script_parts(script):
        if script_segment(part, runner) is not None:
            return builds
        if _builds(_with_files(part, repo)):
            builds.append(part.strip())
    return []  # the runner came from the dependencies: nothing of the script runs


def _package_entry(folder: Path) -> str | None:
    """The file the ``package.json`` of ``folder`` says importing the folder loads: its ``exports``
    for ``.`` (require, import, node or default), else its ``main``; None when it names none."""
    try:
        data = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    entry = data.get("exports")
    if isinstance(entry, dict):
        entry = entry.get(".", entry)
    while isinstance(entry, dict):
        entry = next((entry[key] for key in ("require", "import", "node", "default") if key in entry), None)
    if not isinstance(entry, str):
        entry = data.get("main")
    return entry if isinstance(entry, str) else None


def _imports_built(repo: Path) -> str | None:
    """The first file a test of ``repo`` imports under a folder the repository lacks (isaacs/minimatch
    10's ``dist/esm/index.js``, which its ``prepare`` builds; developit/mitt's ``'..'``, whose
    package entry is ``dist/mitt.js``), or None."""
    repo = repo.resolve()
    for path in _test_files(repo, (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx")):
        for target in _RELATIVE_IMPORT.findall(path.read_text(encoding="utf-8", errors="replace")):
            imported = (path.parent / target).resolve()
            if imported.is_dir() and (entry := _package_entry(imported)):
                imported = (imported / entry).resolve()
            if imported.is_relative_to(repo) and imported != repo \
                    and not (repo / imported.relative_to(repo).parts[0]).exists():
                return imported.relative_to(repo).as_posix()
    return None


_SUITE_CALL = re.compile(r"^\s*suite\(", re.M)
_DESCRIBE_CALL = re.compile(r"^\s*describe\(", re.M)


def _tdd_only(repo: Path, package: dict, test: str) -> str | None:
    """The first test file of ``repo`` that calls mocha's tdd ``suite()`` when none calls
    ``describe()`` and neither the ``test`` command nor a mocha configuration names an interface
    (mde/ejs runs ``mocha --u tdd`` from its jakefile; its ``test/mocha.opts``, which says
    ``--ui tdd``, mocha 8 and later do not read); else None."""
    configs = [repo / name for name in (".mocharc.js", ".mocharc.cjs", ".mocharc.yaml", ".mocharc.yml",
                                        ".mocharc.json", ".mocharc.jsonc")]
    if re.search(r"(?:^|\s)(?:-u|--u|--ui)[\s=]", test) or "mocha" in package or any(
            path.is_file() and re.search(r"\bui\b", path.read_text(encoding="utf-8", errors="replace"))
            for path in configs):
        return None
    tdd = None
    for path in _test_files(repo, (".js", ".mjs", ".cjs", ".ts")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if _DESCRIBE_CALL.search(text):
            return None
        if tdd is None and _SUITE_CALL.search(text):
            tdd = path.relative_to(repo).as_posix()
    return tdd


def _test_files(repo: Path, suffixes: tuple[str, ...]):
    """The files of ``repo`` with one of ``suffixes`` that are tests (under a test folder, or named
    ``*.test.js`` and the like), in path order."""
    for path in sorted(_sources(repo)):
        if path.suffix in suffixes and (_TEST_FOLDERS & set(path.relative_to(repo).parts[:-1])
                                        or _TEST_FILE.search(path.name)):
            yield path


def _sources(repo: Path):
    """Every file of ``repo`` outside ``node_modules`` and ``.git`` (neither is walked: a checkout
    a developer installed may hold a hundred thousand files there); a broken link is no file."""
    for folder, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d not in ("node_modules", ".git")]
        yield from (path for name in files if (path := Path(folder) / name).is_file())


def _runner(script: str, deps: dict) -> tuple[str | None, str, str, str]:
    """``(command, report format, where it came from, runner)``; ``deps`` maps a package to
    the version range the repository asks for."""
    usable = [n for n in RUNNERS if n != "jasmine" or _major(deps.get(n, "")) >= 3]
    for name in usable:
        parts = [p for p in script_parts(script) if script_segment(p, name) is not None
                 and (name != "node" or "--test" in script_segment(p, name))]
        if parts:  # the step that runs the whole suite, where others name some files (dayjs)
            raw = next((w for w in map(_words, parts) if _whole_suite(name, w)), _words(parts[0]))
            return _command(name, raw, deps.get(name, "")), _format(name), "package.json scripts.test", name
    for name in usable[:-1]:
        if name in deps:
            return _command(name, [], deps[name]), _format(name), f"package.json devDependencies {name}", name
    return None, "", "", ""


def _words(part: str) -> list[str]:
    """The shell words of ``part`` as written, quotes and escapes kept (``shlex.split`` with
    ``posix=False`` cuts ``--x="{ \\"a\\": 1 }"`` at its escaped quotes: dayjs's
    ``--coverageThreshold``). Each word is the text from its start to the blank after it."""
    lexer = shlex.shlex(part, posix=True)
    lexer.whitespace_split, lexer.commenters = True, ""
    words, start = [], 0
    for _word in lexer:
        end = lexer.instream.tell()
        words.append(part[start:end].strip())
        start = end
    return words


def _whole_suite(name: str, words: list[str]) -> bool:
    """Whether the runner's arguments in ``words`` name no file or filter: each is an option or
    follows an option without ``=`` (taken as its value). iamkun/dayjs's ``scripts.test`` runs
    ``jest test/timezone.test`` under four time zones and then ``jest --coverage``: the first
    alone ran one file of the suite."""
    args = [_unquoted(word) for word in _args(name, words)]
    return all(word.startswith("-") or (before.startswith("-") and "=" not in before)
               for before, word in itertools.pairwise(["", *args]))


def _format(name: str) -> str:
    return _FORMATS.get(name, "tap")  # tape and node-tap write TAP


def _unquoted(word: str) -> str:
    try:
        return "".join(shlex.split(word))
    except ValueError:
        return word


def _args(name: str, words: list[str]) -> list[str]:
    """The arguments after the runner's own word, minus the options gen09 replaces; ``words``
    are shell words as the script writes them, quotes and all (a glob it leaves to the shell,
    ``node --test dist/test/*.js`` on node 20, stays unquoted: uuid 14)."""
    at = next(i for i, w in enumerate(words) if Path(_unquoted(w)).name == name)
    out, owned = [], None  # owned: what of the next word a dropped option may own ("value" or "count")
    for word in words[at + 1:]:
        if owned == "value" or owned == "count" and word.isdigit():
            owned = None
            continue
        option, owned = _unquoted(word).split("=", 1)[0], None
        if option[:2] in SHORT_VALUED and not option.startswith("--"):  # ``-Rspec``: the value attached
            continue
        if option in DROPPED or option.startswith("--coverage"):
            if "=" not in word:
                owned = "value" if option in TAKES_VALUE else "count" if option in COUNTED else None
            continue
        out.append(word)
    return out


def _command(name: str, words: list[str], wanted: str = "") -> str:
    """The test command of runner ``name``, from the words of the repository's own (if any)
    and the version range it asks for (``wanted``)."""
    args = _args(name, words) if words else []
    if name == "node":
        args = [a for a in args if _unquoted(a) != "--test"]
        return " ".join(["node", "--test", '--test-reporter="$GEN09_RUNNER/gen09_node_junit.mjs"',
                         '--test-reporter-destination="$GEN09_REPORT"', *args])
    if name == "jest":
        ci = ["--ci"] if _major(wanted) >= 20 else []  # jest 19 refuses the option it does not know
        return " ".join([BIN, "jest", *ci, "--json", '--outputFile="$GEN09_REPORT"', *args])
    if name == "vitest":
        args = [a for a in args if _unquoted(a) != "run"]
        report = ['--reporter="$GEN09_RUNNER/gen09_vitest_diff.mjs"', "--reporter=json", "--reporter=dot",
                  '--outputFile="$GEN09_REPORT"']
        return " ".join([BIN, "vitest", "run", *report, *args])
    if name == "tape":
        return " ".join([BIN, "tape", *args])
    if name == "ava":
        return " ".join([BIN, "ava", "--tap", *(a for a in args if _unquoted(a) != "--tap")])
    if name == "tap":
        new = re.search(r"\d+", wanted) is not None and _major(wanted) >= 18
        options = ["--reporter=tap", "--disable-coverage"] if new else ["-R", "tap", "--no-coverage"]
        return " ".join([BIN, "tap", *options, *args])
    if name == "jasmine":
        args = [a for a in args if _unquoted(a).split("=", 1)[0] != "--parallel"]
        return " ".join([BIN, "jasmine", '--reporter="$GEN09_RUNNER/gen09_jasmine_json.cjs"', *args])
    if _major(wanted) < 9:  # its json reporter names no file and writes only to stdout: gen09's does neither
        return " ".join([BIN, "mocha", *args, "--reporter", '"$GEN09_RUNNER/gen09_mocha_json.cjs"'])
    return " ".join([BIN, "mocha", *args, "--reporter", "json", "--reporter-option",
                     'output="$GEN09_REPORT"'])


def _major(wanted: str) -> int:
    """The major version a range such as ``^6.2.3`` asks for (a large number when it names none)."""
    found = re.search(r"\d+", wanted)
    return int(found.group()) if found else 1_000
