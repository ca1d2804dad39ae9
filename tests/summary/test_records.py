"""Event-file encoding: TensorBoard parses what `records` writes, and writing summaries loads
no protobuf, tensorboardX or PyTorch module."""

import json
import subprocess
import sys
import textwrap

import pytest

from eagerflow.summary import records


def test_messages_parse_with_tensorboards_protos():
    summary_pb2 = pytest.importorskip("tensorboard.compat.proto.summary_pb2")
    graph_pb2 = pytest.importorskip("tensorboard.compat.proto.graph_pb2")
    event_pb2 = pytest.importorskip("tensorboard.compat.proto.event_pb2")
    encoded = records.summary([
        records.value("loss", simple_value=0.0, metadata=records.metadata("why", "text")),
        records.value("w", histo=records.histogram(-1.0, 2.0, 3.0, 4.0, 5.0, [1.0], [3.0])),
        records.value("t", tensor=records.string_tensor([b"a", b"b"], (2,))),
    ])
    event = event_pb2.Event.FromString(records.event(1.5, -3, summary=encoded))
    assert event.step == -3 and event.wall_time == 1.5
    loss, histo, text = event.summary.value
    assert loss.HasField("simple_value") and loss.simple_value == 0.0
    assert loss.metadata.plugin_data.plugin_name == "text"
    assert loss.metadata.summary_description == "why"
    assert list(histo.histo.bucket_limit) == [1.0] and histo.histo.min == -1.0
    assert list(text.tensor.string_val) == [b"a", b"b"]
    assert [d.size for d in text.tensor.tensor_shape.dim] == [2]
    assert summary_pb2.Summary.FromString(encoded) == event.summary
    node = records.node_def("dense/MatMul", "MatMul", ["x", "dense/kernel"], {
        "T": records.attr_type("float32"), "_output_shapes": records.attr_shapes([(None, 4)])})
    graph = graph_pb2.GraphDef.FromString(records.graph_def([node]))
    (parsed,) = graph.node
    assert (parsed.name, parsed.op, list(parsed.input)) == ("dense/MatMul", "MatMul",
                                                            ["x", "dense/kernel"])
    assert parsed.attr["T"].type == 1  # DT_FLOAT
    assert [d.size for d in parsed.attr["_output_shapes"].list.shape[0].dim] == [-1, 4]


def test_record_framing_uses_masked_crc32c():
    # TFRecord's check value of b"123456789" under CRC-32C is 0xE3069283 (RFC 3720).
    assert records._crc32c_python(b"123456789") == 0xE3069283
    assert records.crc32c(b"123456789") == 0xE3069283
    framed = records.record(b"abc")
    assert len(framed) == 8 + 4 + 3 + 4 and framed[12:15] == b"abc"


def test_writing_summaries_imports_no_torch_tensorboardx_or_protobuf(tmp_path):
    # A `torch` that records being imported stands in for PyTorch: tensorboardX's package
    # imports torch when it is installed, which costs 1.8 s and ~190 MiB.
    fake = tmp_path / "fake"
    for name in ("torch", "tensorboardX"):
        (fake / name).mkdir(parents=True)
        (fake / name / "__init__.py").write_text(
            f"import os\nopen(os.path.join({str(tmp_path)!r}, {name!r} + '.imported'), 'w')\n")
    code = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(fake)!r})
        import eagerflow as ef
        writer = ef.summary.create_file_writer({str(tmp_path / "logs")!r})
        with writer.as_default(step=0):
            ef.summary.scalar("loss", 0.5)
            ef.summary.histogram("w", [1.0, 2.0])
        callback = ef.callbacks.TensorBoard({str(tmp_path / "tb")!r}, write_graph=True)
        print(json.dumps(sorted(m for m in sys.modules
                                if m.split(".")[0] in ("torch", "tensorboardX", "google"))))
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout) == []
    assert not list(tmp_path.glob("*.imported"))
