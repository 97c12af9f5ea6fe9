"""A sum reduction in Triton, written for perfcalc's tests: each program sums BLOCK elements
and adds its partial sum to the output with an atomic."""

import triton
import triton.language as tl


@triton.jit
def total(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))
