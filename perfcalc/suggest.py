""" "Did you mean" for names a user types (products, CCs, kernels): one place, so every unknown
name gets the same help (issue 35: `--gpu 4090` listed 41 names and not rtx4090)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable


def _plain(name: str) -> str:
    return re.sub(r"[\s_\-.]", "", name.lower())


def close_names(name: str, known: Iterable[str], limit: int = 3) -> list[str]:
    """Known names containing what was typed (`4090` -> rtx4090), else the closest spellings."""
    choices = list(dict.fromkeys(known))
    typed = _plain(name)
    if not typed:
        return []
    containing = [k for k in choices if typed in _plain(k)]
    if containing:
        return sorted(containing, key=lambda k: (len(k), k))[:limit]
    plain = {_plain(k): k for k in choices}
    return [plain[p] for p in difflib.get_close_matches(typed, list(plain), n=limit, cutoff=0.6)]


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """' (did you mean X or Y?)', or '' when nothing is close."""
    found = close_names(name, known)
    if not found:
        return ""
    return f" (did you mean {' or '.join(found)}?)"
