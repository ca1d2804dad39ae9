"""The `keras.ops` names eagerflow does not have, with what to write instead where there
is something: asking `ef.ops` (or `ef.ops.numpy`, `nn`, `linalg`, `image`) for one raises
`MissingOpError`, an `AttributeError` that says so.

Examples:
    >>> import eagerflow as ef
    >>> ef.ops.fft  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    eagerflow.ops.keras_missing.MissingOpError: module 'eagerflow.ops' has no attribute 'fft': eagerflow has no `keras.ops.fft`; ...
"""

from __future__ import annotations

from eagerflow import absent

_COMPLEX = "there are no complex dtypes"
_FFT = "there are no Fourier transforms; use numpy.fft on t.numpy() (not differentiable)"

class MissingOpError(absent.AbsentNameError):
    """A `keras.ops` name eagerflow does not provide: an `absent.AbsentNameError` (so an
    `AttributeError`: `hasattr` and `getattr(..., default)` work) whose message says
    "eagerflow has no `keras.ops.<name>`" and what to write instead, if anything.

    Attributes:
        hint: what to write instead ("" when there is nothing to suggest).
    """

    def __init__(self, module_name: str, name: str, hint: str) -> None:
        super().__init__(module_name, name, ("keras.ops",))
        self.hint = hint

    def __str__(self) -> str:
        keras_name = "keras" + self.module_name.removeprefix("eagerflow") + f".{self.name}"
        return (f"module {self.module_name!r} has no attribute {self.name!r}: eagerflow has "
                f"no `{keras_name}`" + (f"; {self.hint}" if self.hint else "") + ".")

    def __reduce__(self) -> tuple:
        return MissingOpError, (self.module_name, self.name, self.hint)


TOP: dict[str, str] = {
    "adaptive_average_pool": "", "adaptive_max_pool": "", "angle": _COMPLEX,
    "associative_scan": "write it with ef.ops.scan (sequential)",
    "ctc_decode": "there is no CTC loss or decoder",
    "ctc_loss": "there is no CTC loss or decoder",
    "eig": _COMPLEX + " (a real matrix may have complex eigenvalues); for symmetric "
           "matrices use ef.ops.eigh",
    "fft": _FFT, "fft2": _FFT, "fold": "", "ifft2": _FFT, "irfft": _FFT,
    "istft": _FFT,
    "jvp": "use ef.autodiff.ForwardAccumulator for forward mode",
    "polar": _COMPLEX, "rearrange": "", "rfft": _FFT, "separable_conv": "", "sparsemax": "",
    "stft": _FFT, "unfold": "",
    "vectorize": "use ef.ops.vectorized_map(function, elements)", "view": "",
    "view_as_complex": _COMPLEX, "view_as_real": _COMPLEX,
}
"""The `keras.ops` functions eagerflow lacks, each with what to write instead (or "")."""
NUMPY = frozenset("""
angle diag diagflat dsplit dstack fabs fliplr flipud fmax fmin fmod geomspace hsplit isneginf
isposinf kron ldexp logaddexp2 logspace meshgrid rot90 sinc trapezoid vander vectorize view
vsplit
""".split())
"""The names of `keras.ops.numpy` among the missing ones (their hints are in `TOP`)."""
NN = frozenset("""
adaptive_average_pool adaptive_max_pool ctc_decode ctc_loss fold polar separable_conv
sparsemax unfold
""".split())
"""The names of `keras.ops.nn` among the missing ones (their hints are in `TOP`)."""
LINALG = frozenset("""
eig jvp
""".split())
"""The names of `keras.ops.linalg` among the missing ones (their hints are in `TOP`)."""
IMAGE: dict[str, str] = {
   
    "affine_transform": "ef.image.projective_transform takes the same 8-number transforms (channels last)",
    "elastic_transform": "", "extract_patches": "", "extract_patches_3d": "",
    "gaussian_blur": "", "hsv_to_rgb": "", "map_coordinates": "", "perspective_transform": "",
    "rgb_to_hsv": "", "scale_and_translate": "", "sobel_edges": "", "ssim": "",
}
"""The `keras.ops.image` functions eagerflow lacks, with what to write instead (or "")."""


def missing(namespace: str, name: str) -> AttributeError:
    """The error for `ef.ops.<namespace>.<name>` (namespace "" for `ef.ops.<name>`):
    `MissingOpError` for a Keras name eagerflow lacks, Python's plain message otherwise."""
    module = "eagerflow.ops" + (f".{namespace}" if namespace else "")
    if namespace == "image":
        hint = IMAGE.get(name)
    elif namespace and name not in {"numpy": NUMPY, "nn": NN, "linalg": LINALG}[namespace]:
        hint = None
    else:
        hint = TOP.get(name)
    if hint is None:
        return absent.AbsentNameError(module, name, ())
    return MissingOpError(module, name, hint)
