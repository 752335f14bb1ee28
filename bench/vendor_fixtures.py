"""Copy the real source files the tests use from their pinned packages into
``tests/fixtures/real/`` and write ``PROVENANCE.md`` next to them.

Run from the repository root::

    .venv/bin/python bench/vendor_fixtures.py           # fetch (once), copy, write provenance
    .venv/bin/python bench/vendor_fixtures.py --check   # only check the vendored bytes

The tests never fetch anything: CI reads the vendored copies. ``--check`` fails when a
vendored file differs from the pinned package's (each is stored byte for byte).
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys

from common import ROOT
from packages import PACKAGES, fetch

TARGET = ROOT / "tests" / "fixtures" / "real"
# (language folder, package, path inside the unpacked package)
FILES = (
    ("javascript", "lodash", "package/fp/_baseConvert.js"),
    ("javascript", "lodash", "package/_arrayEachRight.js"),
    ("javascript", "lodash", "package/_hashDelete.js"),
    ("javascript", "lodash", "package/_toSource.js"),
    ("typescript", "rxjs", "package/src/internal/ajax/ajax.ts"),
    ("typescript", "rxjs", "package/src/internal/scheduler/AnimationFrameScheduler.ts"),
    ("typescript", "rxjs", "package/src/internal/util/applyMixins.ts"),
    ("typescript", "rxjs", "package/src/internal/ReplaySubject.ts"),
    ("typescript", "rxjs", "package/src/internal/scheduled/scheduled.ts"),
    ("typescript", "rxjs", "package/src/internal/operators/max.ts"),
    ("tsx", "react-query", "package/src/HydrationBoundary.tsx"),
    ("tsx", "react-query", "package/src/QueryErrorResetBoundary.tsx"),
    ("tsx", "react-query", "package/src/QueryClientProvider.tsx"),
    ("go", "cobra", "cobra-1.6.1/doc/man_docs.go"),
    ("go", "cobra", "cobra-1.6.1/cobra.go"),
    ("rust", "semver", "usr/share/cargo/registry/semver-1.0.14/src/identifier.rs"),
    ("rust", "semver", "usr/share/cargo/registry/semver-1.0.14/src/parse.rs"),
    ("rust", "semver", "usr/share/cargo/registry/semver-1.0.14/src/error.rs"),
    ("java", "commons-lang3", "commons-lang-rel-commons-lang-3.12.0/src/main/java/org/apache/commons/lang3/"
                              "reflect/MemberUtils.java"),
    ("java", "commons-lang3", "commons-lang-rel-commons-lang-3.12.0/src/main/java/org/apache/commons/lang3/"
                              "text/translate/UnicodeUnescaper.java"),
    ("c", "lua", "lua-5.4.4/src/lobject.c"),
    ("cpp", "yaml-cpp", "yaml-cpp-yaml-cpp-0.7.0/src/emitterutils.cpp"),
    ("cpp", "yaml-cpp", "yaml-cpp-yaml-cpp-0.7.0/util/parse.cpp"),
    ("cpp", "jsoncpp", "jsoncpp-1.9.5/src/lib_json/json_writer.cpp"),
    ("ruby", "rack", "usr/share/rubygems-integration/all/gems/rack-2.2.22/lib/rack/query_parser.rb"),
    ("ruby", "rack", "usr/share/rubygems-integration/all/gems/rack-2.2.22/lib/rack/files.rb"),
    ("ruby", "rack", "usr/share/rubygems-integration/all/gems/rack-2.2.22/lib/rack/content_length.rb"),
    ("ruby", "rack", "usr/share/rubygems-integration/all/gems/rack-2.2.22/lib/rack/rewindable_input.rb"),
    ("ruby", "rack", "usr/share/rubygems-integration/all/gems/rack-2.2.22/lib/rack/deflater.rb"),
    ("ruby", "rack", "usr/share/rubygems-integration/all/gems/rack-2.2.22/lib/rack/handler/thin.rb"),
    ("ruby", "rack", "usr/share/rubygems-integration/all/gems/rack-2.2.22/lib/rack/tempfile_reaper.rb"),
)
# the license (and NOTICE) files each package ships, copied to licenses/
LICENSES = {
    "lodash": ("package/LICENSE",),
    "rxjs": ("package/LICENSE.txt",),
    "react-query": ("package/LICENSE",),
    "cobra": ("cobra-1.6.1/LICENSE.txt",),
    "semver": ("usr/share/cargo/registry/semver-1.0.14/LICENSE-MIT",
               "usr/share/cargo/registry/semver-1.0.14/LICENSE-APACHE"),
    "commons-lang3": ("commons-lang-rel-commons-lang-3.12.0/LICENSE.txt",
                      "commons-lang-rel-commons-lang-3.12.0/NOTICE.txt"),
    "lua": ("lua-5.4.4/src/lua.h",),  # its copyright notice and license stand at the end
    "yaml-cpp": ("yaml-cpp-yaml-cpp-0.7.0/LICENSE",),
    "jsoncpp": ("jsoncpp-1.9.5/LICENSE",),
    "rack": ("usr/share/doc/ruby-rack/copyright",),
}


def destination(language: str, member: str):
    """Where a vendored file goes: ``<language>/<file name>``."""
    return TARGET / language / member.rsplit("/", 1)[-1]


def license_name(package: str, member: str) -> str:
    """``<package>-<file>``, as ``.txt`` when the file is source code (``lua.h``)."""
    name = f"{package}-{member.rsplit('/', 1)[-1]}"
    return name + ".txt" if name.endswith(".h") else name


def provenance() -> str:
    """The text of ``PROVENANCE.md``."""
    lines = ["# Real source files for the mutator tests", "",
             "Copied byte for byte by `bench/vendor_fixtures.py` from pinned registry packages (each",
             "archive checked against the SHA-256 in `bench/packages.py`); `--check` re-verifies them.",
             "Each package's license and notice files are in `licenses/`. Not part of gen09's code.", "",
             "| file | package | fetched as | path in the package | license | sha256 |",
             "|---|---|---|---|---|---|"]
    for language, name, member in FILES:
        package = PACKAGES[name]
        digest = hashlib.sha256(destination(language, member).read_bytes()).hexdigest()
        lines.append(f"| `{language}/{member.rsplit('/', 1)[-1]}` | {package.label} | `{package.spec}` | "
                     f"`{member}` | {package.license} | `{digest[:16]}` |")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Copy (or with ``--check`` compare) every vendored file and license."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    pairs = [(fetch(name) / member, destination(language, member)) for language, name, member in FILES]
    pairs += [(fetch(name) / member, TARGET / "licenses" / license_name(name, member))
              for name, members in LICENSES.items() for member in members]
    if args.check:
        bad = [str(dst) for src, dst in pairs if not dst.is_file() or dst.read_bytes() != src.read_bytes()]
        sys.exit(f"differ from their packages: {', '.join(bad)}" if bad else 0)
    for src, dst in pairs:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    (TARGET / "PROVENANCE.md").write_text(provenance(), encoding="utf-8")
    print(f"{len(pairs)} files written under {TARGET}", file=sys.stderr)


if __name__ == "__main__":
    main()
