"""MkDocs hook: the Gallery page, made while the site builds by running the quick examples.

`on_files` runs the examples, then adds ``gallery.md`` and its figures to the site as
generated files: they exist only in the built site, never in ``docs/``, and nothing is
cached. The digits CNN is trained here, in the build's process, so that its figures
(training curves, the model's layers, a confusion matrix, predictions on test digits) come
from the run whose output the page shows; the other quick examples run as subprocesses,
exactly as their command line says. An example that fails fails the build.

The slow examples (the Transformer, the MNIST loop that needs MNIST files) are listed with
their commands but not run, so that the build stays quick (about 10 s of CPU in all).
"""

from __future__ import annotations

import contextlib
import io
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = "https://github.com/eagerflow/eagerflow/blob/main/"
DIGITS_EPOCHS = 8

# (title, command line after `python`, source file, what it shows)
SCRIPTS = [
    ("Linear regression with GradientTape", ["-m", "eagerflow.examples.linear_regression"],
     "eagerflow/examples/linear_regression.py",
     "Two `ef.Variable`s fit `y = 3x + 2` by gradient descent on a `GradientTape`."),
    ("A GAN with its own train_step", ["examples/custom_train_step.py", "--quick"],
     "examples/custom_train_step.py",
     "A subclassed `ef.Model` overrides `train_step`; `fit` still drives the epochs, "
     "the callbacks and the log lines (two epochs here: far from the target yet)."),
    ("An LSTM text classifier", ["examples/lstm_text_classifier.py", "--quick"],
     "examples/lstm_text_classifier.py",
     "`Embedding(mask_zero=True)` and `LSTM` on generated reviews (one epoch here: the "
     "full run learns them)."),
]
NOT_RUN = [
    ("examples/transformer_sequence.py",
     "a Transformer encoder block classifying the digits read as sequences of rows"),
    ("examples/custom_training_loop_mnist.py",
     "a hand-written training loop with a `Dataset` and a `CheckpointManager`"),
]


def on_files(files, config):
    """Adds the gallery page and its figures (MkDocs event)."""
    figures: dict[str, bytes] = {}
    sections = [_digits_section(figures)]
    sections += [_script_section(*script) for script in SCRIPTS]
    page = "\n\n".join([_INTRO, *sections, _not_run_section()]) + "\n"
    files.append(File.generated(config, "gallery.md", content=page))
    for name, data in figures.items():
        files.append(File.generated(config, f"gallery/{name}", content=data))
    return files


_INTRO = """# Gallery

The examples that ship with eagerflow, run while this site was built: each shows its
command, its output and, for the digits CNN, its figures. Run any of them yourself from a
clone (`pip install -e '.[plot]'`)."""


def _digits_section(figures: dict[str, bytes]) -> str:
    import eagerflow as ef
    from eagerflow.examples import digits

    ef.random.set_seed(42)
    (x_train, y_train), (x_test, y_test) = digits.load_data()
    model = digits.compile_model(digits.build_model())
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        model.summary()
        history = model.fit(x_train, y_train, epochs=DIGITS_EPOCHS, batch_size=32,
                            validation_split=0.1, verbose=2)
        loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
        print(f"Test accuracy: {accuracy:.4f}  (test loss {loss:.4f})")
    predicted = np.argmax(model.predict(x_test, verbose=0), axis=-1)
    with tempfile.TemporaryDirectory(prefix="eagerflow-gallery-") as scratch:
        for name, draw in (("digits-history.png", lambda p: ef.utils.plot_history(
                               history, p, title="digits CNN")),
                           ("digits-model.png", lambda p: ef.utils.plot_model(
                               model, p, show_shapes=True, dpi=80))):
            path = os.path.join(scratch, name)
            draw(path)
            figures[name] = pathlib.Path(path).read_bytes()
    figures["digits-confusion.png"] = _confusion_matrix(y_test, predicted)
    figures["digits-predictions.png"] = _predictions(x_test, y_test, predicted)
    return f"""## A CNN on the built-in digits

The model and data of `python -m eagerflow.examples.digits`
([source]({SOURCE}eagerflow/examples/digits.py)), trained here for {DIGITS_EPOCHS} epochs
with `fit` and a validation split (the example then also checkpoints the model and restores
it into a fresh one). The figures are drawn from this run with `ef.utils.plot_history`,
`ef.utils.plot_model` and matplotlib.

```text
{output.getvalue().rstrip()}
```

![Loss and accuracy per epoch, training and validation](gallery/digits-history.png)

![The model's layers with their output shapes](gallery/digits-model.png)

![Confusion matrix on the test digits](gallery/digits-confusion.png)

![Test digits with the predicted class (red: wrong)](gallery/digits-predictions.png)"""


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(figure)
    return figure


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _confusion_matrix(labels: np.ndarray, predicted: np.ndarray) -> bytes:
    counts = np.zeros((10, 10), dtype=int)
    np.add.at(counts, (labels, predicted), 1)
    figure = _figure(5.5, 5)
    axes = figure.add_subplot()
    axes.imshow(counts, cmap="Blues")
    for (row, column), count in np.ndenumerate(counts):
        if count:
            axes.text(column, row, str(count), ha="center", va="center",
                      color="white" if count > counts.max() / 2 else "black", fontsize=8)
    axes.set(xticks=range(10), yticks=range(10), xlabel="predicted", ylabel="true",
             title=f"test accuracy {np.mean(labels == predicted):.3f}")
    figure.tight_layout()
    return _png(figure)


def _predictions(images: np.ndarray, labels: np.ndarray, predicted: np.ndarray) -> bytes:
    figure = _figure(8, 3.4)
    for index in range(24):
        axes = figure.add_subplot(3, 8, index + 1)
        axes.imshow(images[index, :, :, 0], cmap="gray_r")
        wrong = predicted[index] != labels[index]
        axes.set_title(str(predicted[index]), color="red" if wrong else "black", fontsize=9)
        axes.axis("off")
    figure.tight_layout()
    return _png(figure)


def _script_section(title: str, argv: list[str], source: str, what: str) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    result = subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=600)
    if result.returncode != 0:
        raise PluginError(f"gallery: `python {' '.join(argv)}` failed "
                          f"(exit {result.returncode}):\n{result.stderr[-3000:]}")
    return f"""## {title}

`python {' '.join(argv)}` ([source]({SOURCE}{source})): {what}

```text
{result.stdout.rstrip()}
```"""


def _not_run_section() -> str:
    rows = "\n".join(f"- `python {path}`: {what} ([source]({SOURCE}{path}))"
                     for path, what in NOT_RUN)
    return f"""## Not run here

These take longer than a site build should; run them yourself:

{rows}"""
