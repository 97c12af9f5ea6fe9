"""Row softmax in Triton, written for perfcalc's tests: one program per row (n_cols <= BLOCK)."""

import triton
import triton.language as tl


@triton.jit
def softmax(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    tl.store(y_ptr + row * n_cols + cols, num / tl.sum(num, axis=0), mask=mask)
