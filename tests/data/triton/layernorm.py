"""LayerNorm forward in Triton, written for perfcalc's tests: one program per row, statistics in
float32 over BLOCK-wide chunks."""

import triton
import triton.language as tl


@triton.jit
def layernorm(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * n_cols
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_row + cols, mask=cols < n_cols, other=0.0)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        d = tl.where(cols < n_cols, tl.load(x_row + cols, mask=cols < n_cols, other=0.0) - mean, 0.0)
        acc += d * d
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask)
        y = (x - mean) * rstd * tl.load(w_ptr + cols, mask=mask) + tl.load(b_ptr + cols, mask=mask)
        tl.store(y_ptr + row * n_cols + cols, y, mask=mask)
