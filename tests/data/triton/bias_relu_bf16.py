"""A fused bias + ReLU on bfloat16 in Triton (loads bf16, computes in float32, stores bf16),
written for perfcalc's tests: one program per BLOCK elements."""

import triton
import triton.language as tl


@triton.jit
def bias_relu_bf16(x_ptr, b_ptr, y_ptr, n, n_bias, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs % n_bias, mask=mask).to(tl.float32)
    tl.store(y_ptr + offs, tl.maximum(x * 1.5 + b, 0.0).to(tl.bfloat16), mask=mask)
