"""Every script in examples/ runs (with --quick, so each takes about a second)."""

import importlib.util
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name, expected", [
    ("custom_training_loop_mnist", "test accuracy: "),
    ("custom_train_step", "generated samples: mean "),
    ("lstm_text_classifier", "test accuracy: "),
    ("transformer_sequence", "test accuracy: "),
])
def test_example_runs_quickly(name, expected, capsys):
    assert _load(name).main(["--quick"]) == 0
    assert expected in capsys.readouterr().out


def test_every_example_is_tested():
    scripts = sorted(p.stem for p in EXAMPLES.glob("*.py"))
    assert scripts == ["custom_train_step", "custom_training_loop_mnist",
                       "lstm_text_classifier", "transformer_sequence"]


def test_the_transformer_learns_the_digits_read_row_by_row():
    history, accuracy = _load("transformer_sequence").train(epochs=8)
    losses = history.history["loss"]
    assert losses[-1] < losses[0] / 3 and accuracy > 0.85, (losses, accuracy)


def test_custom_loop_reads_real_idx_files(tmp_path):
    module = _load("custom_training_loop_mnist")
    module.write_synthetic_mnist(str(tmp_path), train=64, test=32)
    accuracy = module.train(str(tmp_path), epochs=1, max_steps=2,
                            checkpoint_dir=str(tmp_path / "ckpt"), verbose=False)
    assert 0.0 <= accuracy <= 1.0
    assert (tmp_path / "ckpt").is_dir()
