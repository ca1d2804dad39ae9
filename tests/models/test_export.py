import numpy as np
import pytest

import eagerflow as ef


class Doubler(ef.Model):
    def __init__(self):
        super().__init__()
        self.dense = ef.layers.Dense(2)

    def call(self, x):
        return 2 * self.dense(x)


def test_export_serves_the_models_predictions(tmp_path, capsys):
    inputs = ef.Input((4,))
    outputs = ef.layers.Dropout(0.5)(ef.layers.Dense(3)(inputs))  # inference: no dropout
    model = ef.Model(inputs, outputs)
    path = model.export(tmp_path / "exported", verbose=True)
    assert "Endpoint: serve" in capsys.readouterr().out
    x = np.random.rand(5, 4).astype("float32")
    np.testing.assert_allclose(ef.saved_model.load(path).serve(x).numpy(),
                               model.predict(x, verbose=0), rtol=1e-6)


def test_a_subclassed_model_exports_once_built(tmp_path):
    model = Doubler()
    with pytest.raises(ValueError, match="has not yet been built.*input_signature"):
        model.export(tmp_path / "unbuilt")
    x = np.random.rand(3, 4).astype("float32")
    model(x)
    reloaded = ef.saved_model.load(model.export(tmp_path / "built"))
    np.testing.assert_allclose(reloaded.serve(x).numpy(), model(x).numpy(), rtol=1e-6)
    other = Doubler()
    other(x)
    path = other.export(tmp_path / "signed",
                        input_signature=[ef.TensorSpec((None, 4), ef.float32)])
    np.testing.assert_allclose(ef.saved_model.load(path).serve(x).numpy(), other(x).numpy(),
                               rtol=1e-6)


def test_other_export_formats_are_refused(tmp_path):
    model = ef.Sequential([ef.Input((3,)), ef.layers.Dense(2)])
    with pytest.raises(ValueError, match="Unrecognized format='onnx'.*only 'tf_saved_model'"):
        model.export(tmp_path / "m.onnx", format="onnx")
