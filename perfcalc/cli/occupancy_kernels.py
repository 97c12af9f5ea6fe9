"""`perfcalc occupancy --ptxas FILE` and `--source FILE.cu`: every kernel of a ptxas log, or the
kernel of a compiled file, at one block size or with its suggested one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from perfcalc.cli.common import Format, show
from perfcalc.cli.name_values import defines
from perfcalc.cli.occupancy_inputs import require


def compiled_resources(
    source: Path, kernel: str | None, define: list[str] | None, cc: str | None, gpu: str | None
) -> tuple[tuple[Any, ...], str]:
    """ptxas's report for the kernel of a .cu file compiled as the PTX engine compiles it."""
    from perfcalc.analysis.occupancy_answers import compiled_kernel
    from perfcalc.specs.target import resolve_target

    target = resolve_target(cc, gpu, default_product=False)
    found = compiled_kernel(source, kernel, defines(define, numbers_only=False), target)
    return found, target.arch.source_file or target.arch.cc


def ptxas_command(
    path: Path | None,
    cc: str | None,
    block: int | None,
    suggest: bool,
    settings: Any,
    fmt: Format,
    output: str | Path | None,
    table_name: str | None,
    kernels: tuple[Any, ...] = (),
) -> None:
    from perfcalc.analysis.occupancy_answers import kernel_archs, kernels_at_block, kernels_suggested, ptxas_kernels

    if path is not None:
        kernels = ptxas_kernels(None, _stdin()) if str(path) == "-" else ptxas_kernels(path)
    pairs, note = kernel_archs(kernels, cc)
    if suggest:
        from perfcalc.report.occupancy_tables import ptxas_suggestion_document, ptxas_suggestion_table

        found = kernels_suggested(pairs, settings)
        table = ptxas_suggestion_table(found)
        table.notes.extend(note)
        show([table], fmt, output, data=ptxas_suggestion_document(found, note), table=table_name)
        return
    from perfcalc.report.occupancy_tables import ptxas_document, ptxas_table

    why = "with --source (the block size to evaluate)" if path is None else "with --ptxas (the block size to evaluate)"
    block = require(block, "--block", why + ", or use --suggest")
    entries = kernels_at_block(pairs, block, settings)
    table = ptxas_table(entries, block)
    table.notes[:0] = note
    show([table], fmt, output, data=ptxas_document(entries, note), table=table_name)


def _stdin() -> bytes:
    """`--ptxas -`: the log piped in (`nvcc -Xptxas -v k.cu 2>&1 | perfcalc occupancy --ptxas -`)."""
    from perfcalc.files import read_stdin

    return read_stdin("--ptxas -")
