"""The name a run gives the repository when its configuration gives none (instance ids, task
names): an npm tarball unpacks to a folder called ``package``, so object-inspect 1.13.2's
tasks were all ``package.*`` and its instances' ``repo`` was ``package``."""

from gen09_core.mutate.config import default_name


def test_an_npm_tarballs_root_folder_is_named_by_its_package_json(tmp_path):
    folder = tmp_path / "package"
    folder.mkdir()
    assert default_name(folder) == "package"  # no package.json: the folder's name
    (folder / "package.json").write_text('{"name": "@ljharb/object-inspect", "version": "1.0.0"}')
    assert default_name(folder) == "ljharb/object-inspect"
    (folder / "package.json").write_text("[1, 2]")  # not an object: the folder's name
    assert default_name(folder) == "package"
    other = tmp_path / "object-inspect-1.13.2"
    other.mkdir()
    (other / "package.json").write_text('{"name": "object-inspect"}')
    assert default_name(other) == "object-inspect-1.13.2"  # any other folder keeps its name
