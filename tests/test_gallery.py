"""The docs build's gallery hook (docs/hooks/gallery.py); the site build itself runs in
tests/test_docs.py."""

import importlib.util
import pathlib

import numpy as np
import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("matplotlib")

_PATH = pathlib.Path(__file__).resolve().parents[1] / "docs" / "hooks" / "gallery.py"
_SPEC = importlib.util.spec_from_file_location("gallery_hook", _PATH)
gallery = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(gallery)


def test_a_script_section_shows_the_command_and_its_output():
    section = gallery._script_section("Hello", ["-c", "print('hello from the example')"],
                                      "examples/x.py", "says hello.")
    assert section.startswith("## Hello\n\n`python -c print('hello from the example')`")
    assert "```text\nhello from the example\n```" in section


def test_a_failing_example_fails_the_build():
    from mkdocs.exceptions import PluginError

    with pytest.raises(PluginError, match=r"gallery: `python -c import sys; sys.exit\(3\)` "
                                          r"failed \(exit 3\)"):
        gallery._script_section("Fails", ["-c", "import sys; sys.exit(3)"], "x.py", "fails.")


def test_figures_are_pngs():
    labels = np.arange(30) % 10
    assert gallery._confusion_matrix(labels, labels).startswith(b"\x89PNG")
    images = np.random.default_rng(0).random((24, 8, 8, 1))
    assert gallery._predictions(images, labels[:24], labels[:24]).startswith(b"\x89PNG")


def test_the_hook_is_registered_and_its_folder_is_not_a_page():
    config = (_PATH.parents[2] / "mkdocs.yml").read_text()
    assert "- docs/hooks/gallery.py" in config and "Gallery: gallery.md" in config
    assert "exclude_docs: |\n  hooks/" in config
