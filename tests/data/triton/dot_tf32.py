"""tl.dot on float32 tiles in Triton (tf32 tensor cores: input_precision "tf32", Triton's default),
written for perfcalc's tests: one program per BLOCK x BLOCK tile of C = A @ B."""

import triton
import triton.language as tl


@triton.jit
def dot_tf32(a_ptr, b_ptr, c_ptr, K, N, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rn = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc, input_precision="tf32")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
