"""Graph optimisation passes run on every traced graph before it is compiled, one per module.

Each pass takes a `program.Program` (nodes in execution order plus the output tensors)
and returns a new one; the traced `Graph` itself is never modified, so the same graph can
be compiled again with other outputs (gradients need intermediates). `pipeline.optimize`
runs them in this order, each feeding the next:

1. `constant_folding`: ops whose inputs are all constants become constants.
2. `arithmetic`: ``x*1``, ``1*x``, ``x+0``, ``x-0``, ``x/1``, ``x**1``, double negation,
   identities, casts to the same dtype, reshapes of reshapes, and transposes of
   transposes are removed or merged (only when dtype and shape are unchanged).
3. `common_subexpressions`: equal pure ops on equal inputs are computed once; repeated
   reads of a variable with no write in between are read once.
4. `constant_folding` again, on the constants the two passes before exposed.
5. `pooled_mask`: relu's gradient mask behind a max pool's gradient moves to the pooled
   side (the same values, a quarter of the work behind a 2x2 pool).
6. `dead_code`: ops whose results nobody uses disappear; ops with effects (variable
   writes, prints, Python calls, random draws) always stay, in order.
7. `pool_first`: ``MaxPool(Relu(BiasAdd(c, b)))`` becomes one ``MaxPoolBiasRelu(c, b)``
   (``relu(MaxPool(c) + b)``: bitwise the same values, with the add and the clamp on the
   pooled tensor), and its gradient one ``MaxPoolBiasReluGrad`` giving the conv output's
   and the bias's gradients; `dead_code` runs again after it.
8. `matmul_bias`: a dense layer's ``Relu(AddV2(Reshape(MatMul(a, b)), bias))`` becomes
   one ``MatMulBias(a, b, bias, relu=True)`` (then the reshape), the add and the clamp in
   the product's call (bitwise the same values); in its gradient, the kernel's product and
   the bias's sum over the same rows become one ``MatMulSum``.
9. `fusion` (with the numba kernel set, when the function allows it): regions of
   elementwise ops on small tensors become programs of a compiled interpreter
   (`fusion_jit`) where a cost model says that pays; never across an op with effects.
10. `buffer_reuse`: an elementwise op writes its result into the buffer of an input that
    is dead afterwards (NumPy ``out=``), so chains of elementwise ops allocate once.

The passes read what they need to know about an op from its declaration (`Op` flags in
`core/dispatch.py`); they name an op only to match one specific pattern.
"""
