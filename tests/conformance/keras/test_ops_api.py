"""`ef.ops` as a namespace (keras/src/ops/core_test.py's control flow, and the ops every
file of keras/src/ops/ covers): every `keras.ops` name of Keras 3.15 is either there or
refused with a message, control flow runs eagerly and traced, gradients flow through the
composed ops, and bad arguments raise errors that name the op and what was expected."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.ops import keras_missing

# dir(keras.ops) and its sub-namespaces in Keras 3.15, less the sub-namespaces themselves.
KERAS_OPS = """
abs absolute adaptive_average_pool adaptive_max_pool add all allclose amax amin angle any
append arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin
argpartition argsort array array_split associative_scan average average_pool bartlett
batch_normalization binary_crossentropy bincount bitwise_and bitwise_invert
bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor blackman
broadcast_to cast categorical_crossentropy cbrt cdist ceil celu cholesky cholesky_inverse
clip concatenate cond conj conjugate conv conv_transpose convert_to_numpy
convert_to_tensor copy corrcoef correlate cos cosh count_nonzero cross ctc_decode ctc_loss
cumprod cumsum custom_gradient deg2rad depth_to_space depthwise_conv det diag diagflat
diagonal diff digitize divide divide_no_nan dot dot_product_attention dsplit dstack dtype
eig eigh einsum elu empty empty_like equal erf erfc erfinv exp exp2 expand_dims expm1
extract_sequences eye fabs fft fft2 flip fliplr flipud floor floor_divide fmax fmin fmod
fold fori_loop full full_like gcd gelu geomspace get_item glu greater greater_equal
hamming hanning hard_shrink hard_sigmoid hard_silu hard_swish hard_tanh heaviside
histogram hsplit hstack hypot i0 identity ifft2 imag in_top_k inner inv irfft is_tensor
isclose isfinite isin isinf isnan isneginf isposinf isreal istft jvp kaiser kron
layer_normalization lcm ldexp leaky_relu left_shift less less_equal linspace log log10
log1p log2 log_sigmoid log_softmax logaddexp logaddexp2 logdet logical_and logical_not
logical_or logical_xor logspace logsumexp lstsq lu_factor map matmul matrix_rank max
max_pool maximum mean median meshgrid min minimum mod moments moveaxis multi_hot multiply
nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian nanmin
nanpercentile nanprod nanquantile nanstd nansum nanvar ndim negative nextafter nonzero
norm normalize not_equal one_hot ones ones_like outer pad percentile pinv polar power prod
psnr ptp qr quantile rad2deg ravel real rearrange reciprocal relu relu6 repeat reshape
rfft right_shift rms_normalization roll rot90 round rsqrt saturate_cast scan scatter
scatter_update searchsorted segment_max segment_min segment_prod segment_sum select selu
separable_conv shape sigmoid sign signbit silu sin sinc sinh size slice slice_update
slogdet soft_shrink softmax softplus softsign solve solve_triangular sort space_to_depth
sparse_categorical_crossentropy sparse_plus sparse_sigmoid sparsemax split sqrt square
squareplus squeeze stack std stft stop_gradient subtract sum svd swapaxes swish switch
take take_along_axis tan tanh tanh_shrink tensordot threshold tile top_k trace transpose
trapezoid tri tril triu true_divide trunc unfold unique unravel_index unstack vander var
vdot vectorize vectorized_map view view_as_complex view_as_real vsplit vstack where
while_loop zeros zeros_like
""".split()
KERAS_NUMPY = """
abs absolute add all allclose amax amin angle any append arange arccos arccosh arcsin
arcsinh arctan arctan2 arctanh argmax argmin argpartition argsort array array_split
average bartlett bincount bitwise_and bitwise_invert bitwise_left_shift bitwise_not
bitwise_or bitwise_right_shift bitwise_xor blackman broadcast_to cbrt ceil clip
concatenate conj conjugate copy corrcoef correlate cos cosh count_nonzero cross cumprod
cumsum deg2rad diag diagflat diagonal diff digitize divide divide_no_nan dot dsplit dstack
einsum empty empty_like equal exp exp2 expand_dims expm1 eye fabs flip fliplr flipud floor
floor_divide fmax fmin fmod full full_like gcd geomspace get_item greater greater_equal
hamming hanning heaviside histogram hsplit hstack hypot i0 identity imag inner isclose
isfinite isin isinf isnan isneginf isposinf isreal kaiser kron lcm ldexp left_shift less
less_equal linspace log log10 log1p log2 logaddexp logaddexp2 logical_and logical_not
logical_or logical_xor logspace matmul max maximum mean median meshgrid min minimum mod
moveaxis multiply nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean
nanmedian nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar ndim negative
nextafter nonzero not_equal ones ones_like outer pad percentile power prod ptp quantile
rad2deg ravel real reciprocal repeat reshape right_shift roll rot90 round searchsorted
select sign signbit sin sinc sinh size slogdet sort split sqrt square squeeze stack std
subtract sum swapaxes take take_along_axis tan tanh tensordot tile trace transpose
trapezoid tri tril triu true_divide trunc unique unravel_index vander var vdot vectorize
view vsplit vstack where zeros zeros_like
""".split()
KERAS_NN = """
adaptive_average_pool adaptive_max_pool average_pool batch_normalization
binary_crossentropy categorical_crossentropy celu conv conv_transpose ctc_decode ctc_loss
depth_to_space depthwise_conv dot_product_attention elu fold gelu glu hard_shrink
hard_sigmoid hard_silu hard_swish hard_tanh layer_normalization leaky_relu log_sigmoid
log_softmax max_pool moments multi_hot normalize one_hot polar psnr relu relu6
rms_normalization selu separable_conv sigmoid silu soft_shrink softmax softplus softsign
space_to_depth sparse_categorical_crossentropy sparse_plus sparse_sigmoid sparsemax
squareplus swish tanh_shrink threshold unfold
""".split()
KERAS_LINALG = """
cholesky cholesky_inverse det eig eigh inv jvp lstsq lu_factor matrix_rank norm pinv qr
solve solve_triangular svd
""".split()
KERAS_IMAGE = """
affine_transform crop_images elastic_transform extract_patches extract_patches_3d
gaussian_blur hsv_to_rgb map_coordinates pad_images perspective_transform resize
rgb_to_grayscale rgb_to_hsv scale_and_translate sobel_edges ssim
""".split()


def test_every_keras_name_is_there_or_refused_with_a_message():
    assert set(ef.ops.__all__) <= set(KERAS_OPS) | {"image", "linalg", "nn", "numpy"}
    implemented = [n for n in KERAS_OPS if n in ef.ops.__all__]
    refused = [n for n in KERAS_OPS if n not in ef.ops.__all__]
    assert (len(KERAS_OPS), len(implemented), len(refused)) == (337, 312, 25)
    for name in implemented:
        assert callable(getattr(ef.ops, name)), name
    for name in refused:
        with pytest.raises(keras_missing.MissingOpError, match=f"eagerflow has no `keras.ops.{name}`"):
            getattr(ef.ops, name)
        assert not hasattr(ef.ops, name)


@pytest.mark.parametrize("namespace", ["numpy", "nn", "linalg", "image"])
def test_sub_namespaces_match_keras(namespace):
    module = getattr(ef.ops, namespace)
    keras_names = globals()[f"KERAS_{namespace.upper()}"]
    assert set(module.__all__) <= set(keras_names)
    for name in keras_names:
        if name in module.__all__:
            assert getattr(module, name) is getattr(ef.ops, name, getattr(module, name))
        else:
            with pytest.raises(keras_missing.MissingOpError,
                               match=rf"no `keras\.ops\.{namespace}\.{name}`"):
                getattr(module, name)


def test_refusals_say_what_to_write_instead():
    with pytest.raises(AttributeError, match=r"no `keras.ops.fft`; there are no Fourier"):
        ef.ops.fft  # noqa: B018
    with pytest.raises(AttributeError, match=r"no `keras.ops.linalg.eig`; .*use ef.ops.eigh"):
        ef.ops.linalg.eig  # noqa: B018
    with pytest.raises(AttributeError, match=r"no `keras.ops.image.affine_transform`; "
                                             r"ef.image.projective_transform"):
        ef.ops.image.affine_transform  # noqa: B018
    # a name Keras does not have either is a plain AttributeError
    with pytest.raises(AttributeError, match=r"module 'eagerflow.ops' has no attribute 'nonsense'$"):
        ef.ops.nonsense  # noqa: B018
    with pytest.raises(AttributeError, match=r"'eagerflow.ops.nn' has no attribute 'sum'$"):
        ef.ops.nn.sum  # noqa: B018
    assert not isinstance(_error(lambda: ef.ops.nonsense), keras_missing.MissingOpError)


def _error(get):
    try:
        get()
    except AttributeError as e:
        return e
    raise AssertionError("no error")


def test_the_op_families_stay_submodules():
    import eagerflow.ops.math
    import eagerflow.ops.reduce

    assert ef.ops.math is eagerflow.ops.math and ef.ops.reduce is eagerflow.ops.reduce
    assert ef.ops.nn.__name__ == "eagerflow.ops.nn" and ef.ops.sum is ef.ops.numpy.sum


# Keras 3.15: ops.cond(True, ...) -> 1; fori_loop(0, 4, v + i, 0) -> 6;
# while_loop((0, 0)) -> (5, 10); scan -> (6.0, [0, 2, 9]); map -> [[2, 4], [6, 8]];
# switch(1, ...) -> 20.0; vectorized_map(sum) -> [3, 7].
def _control_flow(x):
    total = ef.ops.fori_loop(0, 4, lambda i, v: v + ef.ops.cast(i, "float32") * x, x * 0.0)
    i, s = ef.ops.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), (0, 0))
    single = ef.ops.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x)
    chosen = ef.ops.cond(x > 0.0, lambda: x * 10.0, lambda: x - 1.0)
    return total, i, s, single, chosen


@pytest.mark.parametrize("traced", [False, True])
def test_control_flow(traced):
    run = ef.function(_control_flow) if traced else _control_flow
    total, i, s, single, chosen = run(ef.constant(2.0))
    assert (float(total), int(i), int(s), float(single), float(chosen)) == (12.0, 5, 10, 16.0, 20.0)
    assert isinstance(ef.ops.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), [0, 0]),
                      tuple)
    assert ef.ops.cond(True, lambda: 1, lambda: 2) == 1
    assert int(ef.ops.fori_loop(0, 4, lambda i, v: v + i, 0)) == 6


def test_scan_map_switch():
    carry, ys = ef.ops.scan(lambda c, x: (c + x, c * x), 0.0, ef.constant([1.0, 2.0, 3.0]))
    assert float(carry) == 6.0 and ys.numpy().tolist() == [0.0, 2.0, 9.0]
    doubled = ef.ops.map(lambda x: x * 2, ef.constant([[1.0, 2.0], [3.0, 4.0]]))
    assert doubled.numpy().tolist() == [[2.0, 4.0], [6.0, 8.0]]
    assert float(ef.ops.switch(1, [lambda x: x + 1, lambda x: x * 10], ef.constant(2.0))) == 20.0
    sums = ef.ops.vectorized_map(lambda x: ef.ops.sum(x), ef.constant([[1.0, 2.0], [3.0, 4.0]]))
    assert sums.numpy().tolist() == [3.0, 7.0]
    carry, _ = ef.ops.scan(lambda c, x: (c + x, c), 0.0, ef.constant([1.0, 2.0]), reverse=True)
    assert float(carry) == 3.0


def test_cross_entropies_of_softmax_and_sigmoid_outputs_use_their_logits():
    # Keras 3.15: ops.sigmoid / ops.softmax outputs carry their logits (_keras_logits), so
    # saturated predictions give the exact loss, not the clipped one.
    z = ef.constant([[30.0, -30.0, 0.0]])
    bce = ef.ops.binary_crossentropy(ef.constant([[0.0, 1.0, 1.0]]), ef.ops.sigmoid(z))
    np.testing.assert_allclose(bce.numpy(), [[30.0, 30.0, 0.6931472]], rtol=1e-6)
    cce = ef.ops.categorical_crossentropy(ef.constant([[0.0, 1.0, 0.0]]), ef.ops.softmax(z))
    np.testing.assert_allclose(cce.numpy(), [60.0], rtol=1e-6)
    scce = ef.ops.sparse_categorical_crossentropy(ef.constant([1]), ef.ops.softmax(z))
    np.testing.assert_allclose(scce.numpy(), [60.0], rtol=1e-6)


def test_rot90_twice_follows_numpy():
    # Keras 3.15's TensorFlow backend scrambles k=2 (it reshapes the once-rotated (w, h)
    # planes to (h, w)); k=1 and k=3 match it, and k=2 here is NumPy's (and Keras's
    # NumPy/JAX backends') half turn.
    x = np.arange(24.0).reshape(2, 3, 4)
    for axes in [(0, 1), (1, 2), (0, 2)]:
        np.testing.assert_array_equal(ef.ops.rot90(x, k=2, axes=axes).numpy(),
                                      np.rot90(x, 2, axes=axes))


def test_custom_gradient_and_stop_gradient():
    @ef.ops.custom_gradient
    def clipped(x):
        def grad(upstream):
            return ef.ops.clip(upstream, -0.5, 0.5)
        return x * 1.0, grad

    x = ef.constant([1.0, 2.0])
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.ops.sum(clipped(x) * 3.0 + ef.ops.stop_gradient(x))
    assert tape.gradient(y, x).numpy().tolist() == [0.5, 0.5]


_RNG = np.random.default_rng(0)
_X = _RNG.normal(size=(2, 3))
_P = _RNG.uniform(0.2, 0.8, size=(2, 3))
_SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])


@pytest.mark.parametrize(("f", "args"), [
    (lambda x: ef.ops.mean(x, axis=0), (_X,)),
    (lambda x: ef.ops.std(x, axis=1, keepdims=True), (_X,)),
    (lambda x: ef.ops.logsumexp(x, axis=-1), (_X,)),
    (lambda x: ef.ops.softmax(x, axis=(0, 1)), (_X,)),
    (lambda x: ef.ops.gelu(x), (_X,)),
    (lambda x: ef.ops.elu(x, alpha=0.5), (_X,)),
    (lambda x: ef.ops.celu(x), (_X,)),
    (lambda x: ef.ops.logaddexp(x, x * 0.5), (_X,)),
    (lambda x: ef.ops.sinh(x) + ef.ops.arcsinh(x), (_X,)),
    (lambda x: ef.ops.take(x, ef.constant([2, 0, -1]), axis=1), (_X,)),
    (lambda x: ef.ops.take_along_axis(x, ef.constant([[0, 2], [1, 1]]), axis=1), (_X,)),
    (lambda x: ef.ops.roll(ef.ops.flip(x, axis=1), 1, axis=0), (_X,)),
    (lambda x: ef.ops.segment_sum(x, ef.constant([1, 1]), num_segments=2), (_X,)),
    (lambda x: ef.ops.segment_max(x, ef.constant([0, 1])), (_X,)),
    (lambda x: ef.ops.sort(x, axis=-1), (_X,)),
    (lambda x, p: ef.ops.binary_crossentropy(p, ef.ops.sigmoid(x)), (_X, _P)),
    (lambda x, p: ef.ops.categorical_crossentropy(p, x, from_logits=True), (_X, _P)),
    (lambda x: ef.ops.normalize(x, order=3), (_X,)),
    (lambda x: ef.ops.layer_normalization(x), (_X,)),
    (lambda x: ef.ops.linalg.norm(x, ord=1), (_X,)),
    (lambda a: ef.ops.solve(a, ef.ops.ones((3,), "float64")), (_SPD,)),
    (lambda a: ef.ops.cholesky_inverse(ef.ops.tril(a)), (_SPD,)),  # a lower factor
    (lambda x: ef.ops.scatter_update(x, ef.constant([[0, 1]]), ef.constant([0.0])), (_X,)),
    (lambda x: ef.ops.slice_update(x, (1, 1), ef.ops.zeros((1, 2), "float64")), (_X,)),
    (lambda x: ef.ops.pad(x, ((1, 0), (0, 2)), mode="reflect"), (_X,)),
    (lambda x: ef.ops.conv(ef.ops.reshape(x, (1, 3, 2)), ef.ops.ones((2, 2, 1), "float64")), (_X,)),
    (lambda x: ef.ops.max_pool(ef.ops.reshape(x, (1, 3, 2)), 2, strides=1), (_X,)),
    (lambda x: ef.ops.image.resize(ef.ops.reshape(x, (2, 3, 1)), (4, 2)), (_X,)),
    (lambda x: ef.ops.kron(x, ef.ops.rot90(x)) + ef.ops.diag(ef.ops.ravel(x)), (_X,)),
    (lambda x: ef.ops.trapezoid(ef.ops.sinc(x), x=ef.constant([0.0, 1.0, 3.0], "float64")),
     (_X,)),
    (lambda x: ef.ops.fmax(x, 0.5) + ef.ops.segment_prod(x, ef.constant([0, 0])), (_X,)),
])
def test_gradients(f, args):
    ef.testing.check_gradients(f, *args, order=1)


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: ef.ops.convert_to_tensor([1], sparse=True), ValueError, "no sparse or ragged"),
    (lambda: ef.ops.segment_sum(ef.ones((3,)), ef.constant([0, 1])), ValueError,
     r"segment_sum: `segment_ids` must be a vector as long as .* data.shape=\(3,\)"),
    (lambda: ef.ops.where(ef.constant([True]), 1.0), ValueError, "where: `x1` and `x2`"),
    (lambda: ef.ops.pad(ef.ones((2,)), 1, mode="edge"), ValueError, "pad: `mode` must be"),
    (lambda: ef.ops.pad(ef.ones((2,)), 1, mode="reflect", constant_values=1.0), ValueError,
     "only used with mode='constant'"),
    (lambda: ef.ops.glu(ef.ones((3,))), ValueError, r"glu: axis -1 must have an even size"),
    (lambda: ef.ops.one_hot(ef.constant([0]), 2, sparse=True), ValueError, "no sparse"),
    (lambda: ef.ops.multi_hot(ef.constant([0])), ValueError, "`num_classes` is required"),
    (lambda: ef.ops.categorical_crossentropy(ef.ones((2, 3)), ef.ones((2, 2))), ValueError,
     r"target.shape=\(2, 3\), output.shape=\(2, 2\)"),
    (lambda: ef.ops.normalize(ef.ones((2,)), order=0), ValueError, "`order` must be an int >= 1"),
    (lambda: ef.ops.conv(ef.ones((1, 4, 1)), ef.ones((2, 1, 1)), padding="full"), ValueError,
     r"conv: `padding` must be 'valid' or 'same'. Received: padding='full'"),
    (lambda: ef.ops.conv(ef.ones((1, 4, 1)), ef.ones((2, 1, 1)), data_format="NHWC"), ValueError,
     "conv: `data_format` must be"),
    (lambda: ef.ops.conv(ef.ones((4, 1)), ef.ones((2, 1, 1))), ValueError,
     r"conv: `inputs` must have rank 3, 4 or 5"),
    (lambda: ef.ops.depthwise_conv(ef.ones((1, 4, 1)), ef.ones((2, 1, 1))), ValueError,
     "2-D depthwise convolution only"),
    (lambda: ef.ops.conv_transpose(ef.ones((1, 2, 2, 1)), ef.ones((2, 2, 1, 1)),
                                   output_padding=1), ValueError, "without `output_padding`"),
    (lambda: ef.ops.max_pool(ef.ones((4, 1)), 2), ValueError, "max_pool: `inputs` must have rank"),
    (lambda: ef.ops.psnr(ef.ones((2,)), ef.ones((3,)), 1.0), ValueError, r"psnr: input shapes"),
    (lambda: ef.ops.dot_product_attention(ef.ones((1, 1, 1, 1)), ef.ones((1, 1, 1, 1)),
                                          ef.ones((1, 1, 1, 1)), flash_attention=True),
     ValueError, "no flash attention"),
    (lambda: ef.ops.image.resize(ef.ones((1, 2, 2, 1)), (3, 3), interpolation="gaussian"),
     ValueError, r"resize: `interpolation` must be one of .*'gaussian'"),
    (lambda: ef.ops.image.resize(ef.ones((2, 2)), (3, 3)), ValueError,
     r"resize: `images` must have rank 3 .* images.shape=\(2, 2\)"),
    (lambda: ef.ops.image.rgb_to_grayscale(ef.ones((1, 2, 2, 3)), data_format="NCHW"),
     ValueError, "rgb_to_grayscale: `data_format` must be"),
    (lambda: ef.ops.image.pad_images(ef.ones((2, 2, 1)), target_height=4), ValueError,
     "pad_images: give one of the two paddings"),
    (lambda: ef.ops.image.pad_images(ef.ones((2, 2, 1)), top_padding=3, target_height=4),
     ValueError, "pad_images: the paddings must be >= 0"),
    (lambda: ef.ops.image.crop_images(ef.ones((2, 2, 1)), top_cropping=2), ValueError,
     "crop_images: the croppings must be >= 0 and leave pixels"),
    (lambda: ef.ops.norm(ef.ones((2, 2, 2)), axis=(0, 1, 2)), ValueError,
     "`axis` must be an int or a pair"),
    (lambda: ef.ops.norm(ef.ones((2, 2)), ord=2), ValueError, "no singular values"),
    (lambda: ef.ops.diag(ef.ones((2, 2, 2))), ValueError, "diag: `x` must be a vector or"),
    (lambda: ef.ops.meshgrid(ef.ones((2,)), indexing="xx"), ValueError,
     "meshgrid: `indexing` must be 'xy' or 'ij'"),
])
def test_errors_name_the_op(call, error, match):
    with pytest.raises(error, match=match):
        call()
