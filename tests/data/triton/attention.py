"""A fused attention forward pass in Triton (FlashAttention-style online softmax), written for
perfcalc's tests: one head, f16 Q/K/V of shape (N_CTX, HEAD_DIM), f32 output; one program per
BLOCK_M queries, keys in BLOCK_N tiles."""

import triton
import triton.language as tl


@triton.jit
def attention(
    q_ptr, k_ptr, v_ptr, o_ptr, n_ctx, sm_scale, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr
):
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    m_i = tl.zeros((BLOCK_M,), dtype=tl.float32) - float("inf")
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, n_ctx, BLOCK_N):
        k = tl.load(k_ptr + (start_n + offs_n)[None, :] * HEAD_DIM + offs_d[:, None])
        qk = tl.dot(q, k) * qk_scale
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr + (start_n + offs_n)[:, None] * HEAD_DIM + offs_d[None, :])
        acc += tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(o_ptr + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc / l_i[:, None])
