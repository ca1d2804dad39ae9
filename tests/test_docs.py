"""The documentation site: every ```python block of docs/ runs, links between pages
resolve, and (with the `docs` extra installed) the site builds strictly with every public
name in its API reference."""

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


def _blocks():
    found = []
    for page in PAGES:
        text = page.read_text()
        for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M):
            found.append((page, text.count("\n", 0, m.start(1)) + 1, m.group(1)))
    return found


BLOCKS = _blocks()


@pytest.mark.parametrize("block", BLOCKS,
                         ids=[f"{p.relative_to(DOCS)}:{line}" for p, line, _ in BLOCKS])
def test_docs_block_runs(block, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    page, line, code = block
    namespace = {"ef": ef, "np": np, "__name__": "__docs__"}
    # Compiled at its own lines of the page: errors name them, and AutoGraph finds the
    # source of functions defined in the block.
    exec(compile("\n" * (line - 1) + code, str(page), "exec"), namespace)  # noqa: S102


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


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None,
                    reason="the `docs` extra (mkdocs) is not installed")
def test_the_site_builds_strictly_and_references_every_public_name(tmp_path):
    site = tmp_path / "site"
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d",
                             str(site)], cwd=ROOT, capture_output=True, text=True,
                            timeout=600, env={"NO_MKDOCS_2_WARNING": "1", "PATH": ""})
    assert result.returncode == 0, result.stderr[-3000:]
    documented = _inventory(site / "objects.inv")
    pages = {"optimizers": "optim", "checkpoint": "saving"}  # Keras/TF aliases
    missing = []
    for namespace, name in sorted(_public_names()):
        value = getattr(getattr(ef, namespace) if namespace else ef, name)
        if isinstance(value, np.dtype) or value is ef.string:
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
