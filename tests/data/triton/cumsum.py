"""A prefix sum per row in Triton (tl.cumsum, integer and float), written for perfcalc's tests:
one program per row of BLOCK elements."""

import triton
import triton.language as tl


@triton.jit
def cumsum(x_ptr, i_ptr, y_ptr, j_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = row * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=0))
    tl.store(j_ptr + offs, tl.cumsum(tl.load(i_ptr + offs), axis=0))
