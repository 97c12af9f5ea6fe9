"""The three never-executed shared loads ptxas puts ahead of a cp.async on sm_90.

In sm_90 SASS an LDGSTS (cp.async) is preceded by three `@!PT LDS RZ, [RZ]`: shared loads under
the always-false predicate, which move no data but are issued, so Nsight Compute's
smsp__inst_executed_op_shared_ld counts them (and no wavefront). ptxas emits the three before the
first LDGSTS of a run, not before each: a copy right after another copy of the same basic block
(commits, waits and other memory's accesses between them allowed) gets none, while a copy that
starts a basic block or follows a shared-memory access or a barrier since the last copy gets
them.

Read off the sm_90 SASS of the cp.async programs of tests/data/cuda/tensor/
(benchmarks/hw/tensor_run/*.sass.txt): mma_gemm's prologue pair (one three), its loop's copies
after the ldmatrix reads (three an iteration), cp_async_sizes' 4- and 8-byte copies and its
zero-filling 16-byte copy after a commit (one three for all three copies, the shared stores
before them), flash_attention's copies in blocks of their own (three each). On the H100 those
programs' shared-load instruction counts exceed their PTX's by exactly three per such copy and
warp (960 of mma_gemm's, 1,536 of sgemm_cp_async's, 432 of flash_attention's, 48 of
cp_async_sizes': benchmarks/hw/tensor_run/counters.csv). A probe of five shapes the corpus
lacks, its counts predicted before the GPU ran it (benchmarks/hw/copy_guards_probe/), agreed on
four (copies in a loop, a global load or a shared store between two copies, a copy in half the
lanes after a shared load) and showed the fifth, two copies with only a barrier between them,
guarded twice: a barrier starts a run afresh.

Counted on sm_90 only, where the listings were read; other CCs count the PTX's loads.
"""

from __future__ import annotations

from collections.abc import Sequence

from perfcalc.sim.ptx.parse import Function, Instr

GUARD_LOADS = 3  # `@!PT LDS RZ, [RZ]` ahead of a run of LDGSTS

# Instructions after which a copy is guarded again: control leaves the straight-line stretch, or
# a block barrier (the probe's `across_barrier`: BAR.SYNC, then three guard loads, then the
# LDGSTS); not __syncwarp's bar.warp.sync, which is no BAR in the SASS.
_ENDS_RUN = frozenset({"bra", "brx", "ret", "exit", "call", "trap", "brkpt", "bar", "barrier"})
_SHARED_ACCESSES = frozenset({"ld", "ldu", "st", "atom", "red", "ldmatrix", "stmatrix", "wmma"})


def is_copy(instr: Instr) -> bool:
    """A cp.async copy (an LDGSTS), not its commit or wait."""
    parts = instr.parts
    return (
        instr.base == "cp"
        and len(parts) > 1
        and parts[1] == "async"
        and "commit_group" not in parts
        and "wait_group" not in parts
        and "wait_all" not in parts
    )


def _touches_shared(instr: Instr) -> bool:
    """Could this access shared memory (a shared or generic ld/st/atomic, or a matrix access)?"""
    if instr.base not in _SHARED_ACCESSES:
        return False
    if instr.base in ("ldmatrix", "stmatrix"):
        return True
    if instr.base == "wmma":
        return instr.parts[1] in ("load", "store") and instr.space != "global"
    return instr.space in ("shared", "generic")


def _branch_targets(fn: Function, body: Sequence[Instr]) -> set[int]:
    """Body indices some remaining branch jumps to (if_conversion.py made the branches ptxas
    predicates no-ops, so their arms join the block before them, as in the SASS)."""
    targets = {fn.labels[i.operands[0].strip()] for i in body if i.base == "bra" and i.operands}
    for names in fn.branch_tables.values():
        targets |= {fn.labels[n] for n in names if n in fn.labels}
    return targets


def guarded_copies(fn: Function, body: Sequence[Instr]) -> frozenset[int]:
    """The body indices of the copies ptxas puts its three guard loads ahead of."""
    targets = _branch_targets(fn, body)
    out = set()
    for pc, instr in enumerate(body):
        if not is_copy(instr):
            continue
        guarded = True
        k = pc
        while k > 0 and k not in targets:
            prev = body[k - 1]
            if is_copy(prev):
                guarded = False
                break
            if (prev.base in _ENDS_RUN and "warp" not in prev.parts) or _touches_shared(prev):
                break
            k -= 1
        if guarded:
            out.add(pc)
    return frozenset(out)
