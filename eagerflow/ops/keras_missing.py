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
_DECOMPOSITION = ("eagerflow's linear algebra has cholesky, det, inv, solve, "
                  "solve_triangular and norm, but no SVD, QR, eigen or LU decompositions")
_DATA_DEPENDENT = ("its result's size or values depend on the data, which eagerflow's ops "
                   "do not express; compute it with NumPy on t.numpy()")
_NAN = ("there are no NaN-ignoring reductions; replace the NaNs first, e.g. "
        "ef.ops.where(ef.ops.isnan(x), 0.0, x)")


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
    "argpartition": _DATA_DEPENDENT,
    "associative_scan": "write it with ef.ops.scan (sequential)", "bartlett": "",
    "bincount": _DATA_DEPENDENT, "bitwise_left_shift": "", "bitwise_right_shift": "",
    "blackman": "", "cdist": "", "conj": _COMPLEX, "conjugate": _COMPLEX, "corrcoef": "",
    "correlate": "", "cross": "", "ctc_decode": "there is no CTC loss or decoder",
    "ctc_loss": "there is no CTC loss or decoder", "depth_to_space": "",
    "digitize": _DATA_DEPENDENT,
    "eig": _DECOMPOSITION, "eigh": _DECOMPOSITION, "erfinv": "",
    "fft": _FFT, "fft2": _FFT,
    "fold": "", "gcd": "", "hamming": "", "hanning": "",
    "histogram": _DATA_DEPENDENT, "i0": "", "ifft2": _FFT, "imag": _COMPLEX,
    "irfft": _FFT, "isin": "", "isreal": _COMPLEX, "istft": _FFT,
    "jvp": "forward-mode differentiation is not available yet; use ef.GradientTape for reverse mode",
    "kaiser": "", "lcm": "", "left_shift": "",
    "lstsq": _DECOMPOSITION, "lu_factor": _DECOMPOSITION,
    "matrix_rank": _DECOMPOSITION, "median": "sort with ef.ops.sort and pick with ef.ops.take",
    "nanargmax": _NAN,
    "nanargmin": _NAN, "nancumprod": _NAN, "nancumsum": _NAN, "nanmax": _NAN, "nanmean": _NAN,
    "nanmedian": _NAN, "nanmin": _NAN, "nanpercentile": _NAN, "nanprod": _NAN,
    "nanquantile": _NAN, "nanstd": _NAN, "nansum": _NAN, "nanvar": _NAN, "nextafter": "",
    "nonzero": _DATA_DEPENDENT, "percentile": "sort with ef.ops.sort and pick with ef.ops.take",
    "pinv": _DECOMPOSITION, "polar": _COMPLEX, "qr": _DECOMPOSITION,
    "quantile": "sort with ef.ops.sort and pick with ef.ops.take", "real": _COMPLEX,
    "rearrange": "", "rfft": _FFT, "right_shift": "",
    "searchsorted": _DATA_DEPENDENT, "separable_conv": "",
    "signbit": "",
    "slogdet": "for symmetric positive definite matrices write ef.ops.logdet(x)",
    "space_to_depth": "", "sparsemax": "", "stft": _FFT, "svd": _DECOMPOSITION,
    "unfold": "", "unique": _DATA_DEPENDENT, "unravel_index": "",
    "vectorize": "use ef.ops.vectorized_map(function, elements)", "view": "",
    "view_as_complex": _COMPLEX, "view_as_real": _COMPLEX,
}
"""The `keras.ops` functions eagerflow lacks, each with what to write instead (or "")."""
NUMPY = frozenset("""
angle argpartition bartlett bincount bitwise_left_shift
bitwise_right_shift blackman conj conjugate corrcoef correlate cross diag diagflat digitize
dsplit dstack fabs fliplr flipud fmax fmin fmod gcd geomspace hamming hanning histogram
hsplit i0 imag isin isneginf isposinf isreal kaiser kron lcm ldexp left_shift logaddexp2
logspace median meshgrid nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian
nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar nextafter nonzero percentile
quantile real right_shift rot90 searchsorted signbit sinc slogdet trapezoid unique
unravel_index vander vectorize view vsplit
""".split())
"""The names of `keras.ops.numpy` among the missing ones (their hints are in `TOP`)."""
NN = frozenset("""
adaptive_average_pool adaptive_max_pool ctc_decode ctc_loss depth_to_space fold polar
separable_conv space_to_depth sparsemax unfold
""".split())
"""The names of `keras.ops.nn` among the missing ones (their hints are in `TOP`)."""
LINALG = frozenset("""
eig eigh jvp lstsq lu_factor matrix_rank pinv qr svd
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
