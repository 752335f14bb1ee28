"""Real code from pinned registry packages, fetched once into ``bench/.cache/packages``.

``npm`` packages come from ``npm pack``; ``debsrc`` packages are Debian source packages
(their ``.orig`` tarball from deb.debian.org); ``deb`` packages are Debian binary packages
that ship sources (``apt-get download``). Every downloaded archive must match its pinned
SHA-256 before it is unpacked.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.request
from pathlib import Path

from attrs import frozen
from common import CACHE

PACKAGES_CACHE = CACHE / "packages"
DEBIAN = "http://deb.debian.org/debian/pool/main/"


@frozen
class Package:
    """One pinned package: ``kind`` (npm, debsrc, deb), its pinned ``spec`` (``lodash@4.17.21``,
    a pool path, ``name=version``), the archive's ``sha256`` and its license."""

    kind: str
    spec: str
    sha256: str
    license: str

    @property
    def label(self) -> str:
        """How tables name the package: ``lodash@4.17.21``, ``lua5.4 5.4.4 (Debian source)``."""
        if self.kind == "npm":
            return self.spec
        name, _, version = self.slug.rpartition("_")
        return f"{name} {version} (Debian {'source' if self.kind == 'debsrc' else 'package'})"

    @property
    def slug(self) -> str:
        """A folder name for the unpacked package."""
        name = re.sub(r"\.orig\.tar\.\w+$", "", self.spec.rsplit("/", 1)[-1])
        return name.replace("@", "_").replace("=", "_").lstrip("_")


PACKAGES = {
    "lodash": Package("npm", "lodash@4.17.21",
                      "6a087ac9e5702a0c9d60fbcd48696012646ec8df1491dea472b150e79fcaf804", "MIT"),
    "rxjs": Package("npm", "rxjs@7.8.1",
                    "c532167725ab7d085123209156c93cef22f2479cb9c8527060f1cd903aa9d149", "Apache-2.0"),
    "react-query": Package("npm", "@tanstack/react-query@5.59.0",
                           "9e3b1eb9ff4ca0daba9f269d2e3e2dd7f96d505d39de14342797fe8b18012729", "MIT"),
    "cobra": Package("debsrc", "g/golang-github-spf13-cobra/golang-github-spf13-cobra_1.6.1.orig.tar.gz",
                     "f38f8b26895903be06089ff20882fc771dbca12f41cf81d7bd823be65e6cec52", "Apache-2.0"),
    "semver": Package("deb", "librust-semver-dev=1.0.14-1",
                      "bf3719b7aac4b7f16f0d68a7037306dbc1532758fe7a5dea01254e85cecaca8c",
                      "MIT OR Apache-2.0"),
    "commons-lang3": Package(
        "debsrc", "libc/libcommons-lang3-java/libcommons-lang3-java_3.12.0.orig.tar.xz",
        "f7c22574707611b63bae19ff17f59e24cdd32e2b0e61a50ec9b1b525fbc909d1", "Apache-2.0"),
    "lua": Package("debsrc", "l/lua5.4/lua5.4_5.4.4.orig.tar.gz",
                   "164c7849653b80ae67bec4b7473b884bf5cc8d2dca05653475ec2ed27b9ebf61", "MIT"),
    "yaml-cpp": Package("debsrc", "y/yaml-cpp/yaml-cpp_0.7.0+dfsg.orig.tar.xz",
                        "dc63708605404e0b963e0ca3a9619d1c8270eda2839603e6fa0384e5e51e5312", "MIT"),
    "jsoncpp": Package("debsrc", "libj/libjsoncpp/libjsoncpp_1.9.5.orig.tar.gz",
                       "f409856e5920c18d0c2fb85276e24ee607d2a09b5e7d5f0a371368903c275da2",
                       "MIT OR public domain"),
    "rack": Package("deb", "ruby-rack=2.2.22-0+deb12u1",
                    "18bab2c3caffa2b1a35cd73d49652d749909e87fd2d5b57dd4a594a02a6ad157", "MIT"),
}


def fetch(name: str) -> Path:
    """The unpacked folder of the pinned package ``name`` (fetched and checked once)."""
    package = PACKAGES[name]
    folder = PACKAGES_CACHE / package.slug
    if folder.is_dir():
        return folder
    download = PACKAGES_CACHE / "download"
    shutil.rmtree(download, ignore_errors=True)
    download.mkdir(parents=True)
    print(f"fetching {package.spec} ({package.kind})", file=sys.stderr)
    archive = _download(package, download)
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != package.sha256:
        raise SystemExit(f"{archive.name}: sha256 {digest}, pinned {package.sha256}")
    unpack(archive, download / "x")
    (download / "x").rename(folder)
    shutil.rmtree(download)
    return folder


def _download(package: Package, folder: Path) -> Path:
    if package.kind == "npm":
        subprocess.run(["npm", "pack", "--silent", package.spec], cwd=folder, check=True,
                       stdout=subprocess.DEVNULL)
        return next(folder.glob("*.tgz"))
    if package.kind == "deb":
        subprocess.run(["apt-get", "download", package.spec], cwd=folder, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return next(folder.glob("*.deb"))
    target = folder / package.spec.rsplit("/", 1)[-1]
    with urllib.request.urlopen(DEBIAN + package.spec, timeout=120) as response:
        target.write_bytes(response.read())
    return target


def unpack(archive: Path, folder: Path) -> None:
    """Unpack a tarball (or, with ``dpkg-deb``, a ``.deb``) into ``folder``."""
    if archive.suffix == ".deb":
        subprocess.run(["dpkg-deb", "-x", archive, folder], check=True)
        return
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")


def files(root: Path) -> list[str]:
    """Every regular file under ``root`` as a sorted POSIX path relative to it."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and not p.is_symlink())
