"""Here, before the H100 run: compile the cache check's launches (caches_cases.py) for sm_90
as the PTX engine does, with their inputs, into a folder carried to the GPU machine.

    python benchmarks/hw/caches_prepare.py .hw_caches
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from caches_cases import catalog_entries  # noqa: E402
from ptx_corpus_prepare import corpus_entries, prepare  # noqa: E402

if __name__ == "__main__":
    prepare(Path(sys.argv[1] if len(sys.argv) > 1 else ".hw_caches"), corpus_entries() + catalog_entries())
