"""scalar / histogram / image / text, read back with TensorBoard's event reader."""

import struct
import zlib

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import errors
from eagerflow.summary import png



@pytest.fixture
def logdir(tmp_path):
    with ef.summary.create_file_writer(tmp_path).as_default(step=0):
        yield tmp_path


def _decode_png(data: bytes) -> np.ndarray:
    """A tiny PNG decoder for filter-0 files (what encode_png writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert crc == zlib.crc32(kind + body)
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + length
    width, height, depth, color, *_ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8)
    rows = rows.reshape(height, width * channels + 1)
    assert (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(height, width, channels)


def test_scalar_accepts_tensors_variables_and_arrays(logdir, read_events):
    ef.summary.scalar("t", ef.constant(1.5), step=1)
    ef.summary.scalar("v", ef.Variable([2.5]), step=1)
    ef.summary.scalar("a", np.array([[3]]), step=1, description="three")
    ef.summary.flush()
    acc = read_events(logdir)
    assert [acc.Scalars(k)[0].value for k in ("t", "v", "a")] == [1.5, 2.5, 3.0]
    assert acc.SummaryMetadata("a").summary_description == "three"


def test_scalar_rejects_more_than_one_element(logdir):
    with pytest.raises(errors.InvalidArgumentError, match=r"must be a scalar.*\(2,\)"):
        ef.summary.scalar("loss", [1.0, 2.0])


def test_scalar_rejects_non_numeric(logdir):
    with pytest.raises(errors.InvalidArgumentError, match=r"data must be numeric"):
        ef.summary.scalar("loss", "high")


@pytest.mark.parametrize("bad", ["", None, 3])
def test_bad_name_is_an_error(logdir, bad):
    with pytest.raises(errors.InvalidArgumentError, match=r"name must be a non-empty string"):
        ef.summary.scalar(bad, 1.0)


def test_histogram_buckets_cover_all_values(logdir, read_events):
    data = np.random.default_rng(0).normal(size=1000)
    ef.summary.histogram("w", data, step=2, buckets=12, description="weights")
    ef.summary.flush()
    event = read_events(logdir).Histograms("w")[0]
    histo = event.histogram_value
    assert event.step == 2
    assert sum(histo.bucket) == 1000 == histo.num
    assert len(histo.bucket) == 12 == len(histo.bucket_limit)
    assert histo.min == pytest.approx(data.min()) and histo.max == pytest.approx(data.max())
    assert histo.sum == pytest.approx(data.sum())
    assert histo.sum_squares == pytest.approx((data ** 2).sum())
    assert histo.bucket_limit[-1] == pytest.approx(data.max())


def test_histogram_default_bucket_count_and_constant_data(logdir, read_events):
    ef.summary.histogram("c", ef.fill([5], 2.0))
    ef.summary.histogram("empty", np.zeros((0,)))
    ef.summary.flush()
    acc = read_events(logdir)
    histo = acc.Histograms("c")[0].histogram_value
    assert len(histo.bucket) == 30 and sum(histo.bucket) == 5
    assert histo.min < 2.0 < histo.max
    assert acc.Histograms("empty")[0].histogram_value.num == 0


def test_histogram_rejects_nan(logdir):
    with pytest.raises(errors.InvalidArgumentError, match=r"NaN or infinite values \(1 of 3\)"):
        ef.summary.histogram("w", [1.0, np.nan, 2.0])


@pytest.mark.parametrize("bad", [0, 2.5, True])
def test_histogram_rejects_bad_bucket_count(logdir, bad):
    with pytest.raises(errors.InvalidArgumentError, match=r"buckets must be a positive int"):
        ef.summary.histogram("w", [1.0], buckets=bad)


def test_image_is_a_png_tensorboard_reads(logdir, read_events):
    pixels = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(1, 4, 5, 3)
    ef.summary.image("img", pixels, step=1)
    ef.summary.flush()
    event = read_events(logdir).Images("img")[0]
    assert (event.step, event.width, event.height) == (1, 5, 4)
    np.testing.assert_array_equal(_decode_png(event.encoded_image_string), pixels[0])


def test_image_batch_max_outputs_and_float_scaling(logdir, read_events):
    images = np.linspace(0.0, 1.0, 4 * 2 * 2).reshape(4, 2, 2, 1)
    ef.summary.image("batch", images, max_outputs=2, description="d")
    ef.summary.flush()
    acc = read_events(logdir)
    assert sorted(acc.Tags()["images"]) == ["batch/image/0", "batch/image/1"]
    decoded = _decode_png(acc.Images("batch/image/1")[0].encoded_image_string)
    np.testing.assert_array_equal(decoded, np.round(images[1] * 255).astype(np.uint8))


def test_image_rgba(logdir, read_events):
    pixels = np.full((1, 2, 2, 4), 200, np.uint8)
    ef.summary.image("rgba", pixels)
    ef.summary.flush()
    decoded = _decode_png(read_events(logdir).Images("rgba")[0].encoded_image_string)
    np.testing.assert_array_equal(decoded, pixels[0])


@pytest.mark.parametrize("shape", [(4, 4, 3), (1, 4, 4, 2)])
def test_image_rejects_bad_shapes(logdir, shape):
    with pytest.raises(errors.InvalidArgumentError, match=r"\(k, height, width, channels\)"):
        ef.summary.image("img", np.zeros(shape))


def test_image_rejects_bad_max_outputs(logdir):
    with pytest.raises(errors.InvalidArgumentError, match=r"max_outputs must be a positive"):
        ef.summary.image("img", np.zeros((1, 2, 2, 1)), max_outputs=0)


def test_text_uses_the_text_plugin_under_its_own_name(logdir, read_events):
    ef.summary.text("notes", "**hello**", step=3, description="d")
    ef.summary.text("table", [["a", "b"], ["c", "d"]])
    ef.summary.flush()
    acc = read_events(logdir)
    event = acc.Tensors("notes")[0]
    assert event.step == 3
    assert list(event.tensor_proto.string_val) == [b"**hello**"]
    assert acc.SummaryMetadata("notes").plugin_data.plugin_name == "text"
    table = acc.Tensors("table")[0].tensor_proto
    assert [d.size for d in table.tensor_shape.dim] == [2, 2]


def test_text_rejects_non_strings(logdir):
    with pytest.raises(errors.InvalidArgumentError, match=r"must be a string or an array"):
        ef.summary.text("notes", [1, 2])


def test_png_encoder_rejects_bad_arrays():
    with pytest.raises(ValueError, match=r"expects a uint8 array"):
        png.encode_png(np.zeros((2, 2, 3), np.float32))


def test_graph_writes_a_traced_function(tmp_path, read_events):
    v = ef.Variable([1.0, 2.0], name="scale")
    spec = ef.TensorSpec([None, 2])
    traced = ef.function(lambda x: ef.nn.relu(x * v)).get_concrete_function(spec)
    assert ef.summary.graph(traced) is False  # no default writer
    with ef.summary.create_file_writer(tmp_path).as_default():
        assert ef.summary.graph(traced) is True
    nodes = {node.name: node for node in read_events(tmp_path).Graph().node}
    assert nodes["scale"].op == "VarHandleOp"
    ops = sorted(node.op for node in nodes.values())
    assert ops == ["Mul", "Placeholder", "ReadVariableOp", "Relu", "VarHandleOp"]
    placeholder = next(n for n in nodes.values() if n.op == "Placeholder")
    assert [d.size for d in placeholder.attr["_output_shapes"].list.shape[0].dim] == [-1, 2]


def test_graph_refuses_what_is_not_a_graph():
    with pytest.raises(TypeError, match=r"ef.summary.graph expects an ef.Graph .*type int"):
        ef.summary.graph(3)
