"""What a forger who knows the format does after editing a file: recompute its checksum
manifest and digest, so the file passes the checksums and the loader's other defenses are
what a test exercises. (Checksums detect corruption and mixing, not forgery.)"""

import h5py
import numpy as np

from eagerflow.graph import function_file_v2
from eagerflow.saving import h5format


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else value


def reseal(path) -> None:
    """Rewrites the checksum manifest of a file edited with h5py (checkpoint, weights or
    model file, `ef.saved_model` export, or an export of format version 2) so that it
    matches the file's contents."""
    with h5py.File(path, "r") as f:
        export = _text(f.attrs.get("format")) == function_file_v2.FORMAT
    if export:
        _reseal_export(path)
        return
    with h5py.File(path, "r+") as f:
        found = []
        f.visititems(lambda key, obj: found.append((key, obj))
                     if isinstance(obj, h5py.Dataset) else None)
        manifest_key = f"{h5format.META}/{h5format.MANIFEST}"
        entries, metadata = {}, {}
        for key, dataset in found:
            if key == manifest_key:
                continue
            data = np.ascontiguousarray(dataset[()])
            sums = h5format._checksums_of(data)
            if key.startswith(h5format.META + "/"):
                metadata[key.split("/", 1)[1]] = h5format._sums_record(sums, size=data.size)
            else:
                entries[key] = h5format._sums_record(sums, dtype=dataset.dtype.str,
                                                     shape=list(dataset.shape))
        header = {name: _text(f.attrs[name]) for name in
                  ("format", "format_version", "eagerflow_version", "kind")}
        blob, digest = h5format.encode_manifest(
            {**header, "entries": entries, "metadata": metadata})
        if manifest_key in f:
            del f[manifest_key]
        f.create_dataset(manifest_key, data=np.frombuffer(blob, np.uint8))
        f.attrs[h5format.MANIFEST_DIGEST] = h5format.text_attr(digest)


def _reseal_export(path) -> None:
    with h5py.File(path, "r+") as f:
        contents = function_file_v2._Contents()
        for k in range(len(f.get("arrays", {}))):
            contents.array(np.array(f[f"arrays/{k}"][()], order="C"))
        for k in range(len(f.get("variables", {}))):
            dataset = f[f"variables/{k}"]
            contents.variable(np.array(dataset[()], order="C"), _text(dataset.attrs["name"]),
                              bool(dataset.attrs["trainable"]))
        for group in f.get("functions", {}).values():
            contents.function(group.name, _text(group.attrs["name"]),
                              [group[str(k)][()].tobytes() for k in range(len(group))])
        blob, digest = h5format.encode_manifest(contents.manifest)
        del f[function_file_v2.MANIFEST]
        f.create_dataset(function_file_v2.MANIFEST, data=np.frombuffer(blob, np.uint8))
        f.attrs[h5format.MANIFEST_DIGEST] = h5format.text_attr(digest)
