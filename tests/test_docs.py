"""The documentation site: every ```python block of docs/ runs, links between pages
resolve, and (with the `docs` extra installed) the site builds strictly with every public
name in its API reference."""

import gc
import importlib.util
import pathlib
import re
import subprocess
import sys
import types
import zlib

import numpy as np
import pytest

import eagerflow as ef

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))


def _blocks(page):
    """``(first line, code)`` of each ```python block of `page`, in order."""
    text = page.read_text()
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1))
            for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M)]


PAGES_WITH_CODE = [page for page in PAGES if _blocks(page)]


@pytest.mark.parametrize("page", PAGES_WITH_CODE,
                         ids=[str(p.relative_to(DOCS)) for p in PAGES_WITH_CODE])
def test_docs_blocks_run_as_copied(page, tmp_path, monkeypatch, capsys):
    """A reader copies a page's blocks top to bottom into a fresh interpreter: they run in
    one namespace per page, in order, with nothing injected (each page imports what it
    uses, in its first block or in a block that stands alone)."""
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    try:
        for line, code in _blocks(page):
            # Compiled at its own lines of the page: errors name them, and AutoGraph finds
            # the source of functions defined in the block.
            exec(compile("\n" * (line - 1) + code, str(page), "exec"), namespace)  # noqa: S102
    finally:
        # As when the interpreter exits: nothing the page made (a model with restores
        # still pending, a writer) outlives it into later tests.
        namespace.clear()
        gc.collect()


def test_relative_links_between_pages_resolve():
    broken = []
    for page in PAGES + [ROOT / "README.md"]:
        for target in re.findall(r"\]\(([^)#\s]+?\.md)(?:#[^)]*)?\)", page.read_text()):
            if "://" not in target and not (page.parent / target).resolve().exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken


def _public_names():
    """``eagerflow.<namespace>.<name>`` for every name of every public namespace, and
    ``eagerflow.<name>`` for the rest of the top level."""
    names = set()
    for name in ef.__all__:
        value = getattr(ef, name)
        if isinstance(value, types.ModuleType):
            for member in getattr(value, "__all__", []):
                names.add((name, member))
        else:
            names.add(("", name))
    return names


def _inventory(path) -> set:
    data = path.read_bytes()
    body = zlib.decompress(data.split(b"\n", 4)[4]).decode()
    return {line.split(" ", 1)[0] for line in body.splitlines()}


def _inventory_roles(path) -> dict:
    data = path.read_bytes()
    body = zlib.decompress(data.split(b"\n", 4)[4]).decode()
    return {line.split(" ")[0]: line.split(" ")[1] for line in body.splitlines()}


_needs_mkdocs = pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None,
                                   reason="the `docs` extra (mkdocs) is not installed")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built once for the tests below (about 50 s)."""
    site = tmp_path_factory.mktemp("docs") / "site"
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d",
                             str(site)], cwd=ROOT, capture_output=True, text=True,
                            timeout=900, env={"NO_MKDOCS_2_WARNING": "1", "PATH": ""})
    assert result.returncode == 0, result.stderr[-3000:]
    return site


@_needs_mkdocs
def test_the_site_builds_strictly_and_references_every_public_name(site):
    documented = _inventory(site / "objects.inv")
    pages = {"optimizers": "optim", "checkpoint": "saving"}  # Keras/TF aliases
    missing = []
    for namespace, name in sorted(_public_names()):
        value = getattr(getattr(ef, namespace) if namespace else ef, name)
        if isinstance(value, np.dtype):
            continue  # the dtypes, described in one section of the ef page
        # Documented under the namespace, or where it is defined (a lazily loaded name).
        wanted = {f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}",
                  getattr(value, "__name__", "")}
        if namespace:
            module = getattr(ef, namespace).__name__
            wanted |= {f"{module}.{name}", f"eagerflow.{pages.get(namespace, namespace)}.{name}"}
        if not wanted & documented:
            missing.append(f"ef.{namespace + '.' if namespace else ''}{name}")
    assert not missing, f"{len(missing)} public names have no reference entry: {missing}"


def _griffe_package():
    """eagerflow as mkdocstrings sees it (static analysis, the same griffe extensions)."""
    import griffe

    hooks = "docs/hooks/inherited_docstrings.py"
    extensions = griffe.load_extensions(f"{hooks}:InheritedDocstrings",
                                        f"{hooks}:PrivateBaseMembers")
    loader = griffe.GriffeLoader(docstring_parser="google", search_paths=[str(ROOT)],
                                 extensions=extensions)
    loader.load("eagerflow")
    loader.resolve_aliases(implicit=False, external=None)

    def get(path):
        try:
            return loader.modules_collection.get_member(path)
        except (KeyError, ValueError):  # an inherited member: not among the class's own
            parent, _, name = path.rpartition(".")
            return get(parent).all_members[name]

    return get


@_needs_mkdocs
def test_every_reference_entry_has_text_and_every_inherited_method_an_entry(site, monkeypatch):
    """Each class, function, method and property in the reference has a docstring (a
    factory-made class showed as ``KLDivergence = _wrapper(...)``), and every public method
    of a documented class, inherited ones included (``Model.fit`` from ``Trainer``), has an
    entry on the class or on the documented base that defines it."""
    monkeypatch.chdir(ROOT)
    roles = _inventory_roles(site / "objects.inv")
    get = _griffe_package()
    no_text, no_entry = [], []
    for path, role in sorted(roles.items()):
        if role in ("py:module", "py:attribute"):
            continue  # attributes are described in their class's docstring
        obj = get(path)
        target = obj.final_target if obj.is_alias else obj
        if role == "py:data" and target.path.startswith("eagerflow.core.dtypes."):
            continue  # the dtypes, described in one section of the ef page
        if not (obj.docstring and obj.docstring.value.strip()):
            no_text.append(path)
        if role != "py:class":
            continue
        for name, member in target.all_members.items():
            if name.startswith("_") or f"{path}.{name}" in roles:
                continue
            defined = member.final_target if member.is_alias else member
            if f"{defined.parent.path}.{name}" in roles:
                continue
            if defined.is_function or "property" in defined.labels:
                no_entry.append(f"{path}.{name}")
    assert not no_text, f"{len(no_text)} reference entries without a docstring: {no_text}"
    assert not no_entry, f"{len(no_entry)} public methods without an entry: {no_entry}"


def test_the_package_documentation_link_points_at_a_readable_page():
    """PyPI's "Documentation" link: a page of prose, not a folder of ``:::`` stubs."""
    # (a regular expression, not tomllib: Python 3.10 has none)
    url = re.search(r'^Documentation = "([^"]+)"$', (ROOT / "pyproject.toml").read_text(),
                    flags=re.M).group(1)
    prefix = "https://github.com/eagerflow/eagerflow/blob/main/"
    assert url.startswith(prefix) and url.endswith(".md"), url
    page = ROOT / url.removeprefix(prefix)
    assert page.exists() and ":::" not in page.read_text()


def test_the_built_site_is_not_committed():
    assert "site/" in (ROOT / ".gitignore").read_text().splitlines()
