"""`ComputeCapability`: the one parser and value type for a CC, used by every layer.

A CUDA programmer writes a compute capability many ways: `7.0`, `70`, `sm_70`, `compute_90`,
`sm_90a`, `10.0`, `100`, `sm_100f`, `sm_120a`, `12.1`. Majors run from 1 to 12 and minors are one
digit, so a bare number of two digits is `M.m` and one of three digits is `MM.m` (`100` is 10.0,
`121` is 12.1); nvcc's target names (`sm_XY`, `compute_XY`, with the architecture-specific `a` and
family `f` suffixes of CUDA 12/13) follow the same rule. Everything that reads a CC -- the CLI, the
device registry, the ptxas log reader, the library -- goes through `ComputeCapability.parse`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfcalc.errors import InputError

# "sm_90a", "compute_100f", "cc8.6", "8.6", "86", "100": an optional prefix, then either a dotted
# pair or 2-3 digits, then an optional target suffix (a = arch-specific, f = family-portable).
_SPELLING = re.compile(
    r"^(?P<prefix>sm_?|compute_|cc)?"
    r"(?:(?P<major>\d{1,2})\.(?P<minor>\d)|(?P<digits>\d{2,3}))"
    r"(?P<suffix>[af])?$",
    re.IGNORECASE,
)
ACCEPTED_SPELLINGS = "7.0, 70, sm_70, compute_90, sm_90a, 10.0, 100, sm_120a"
# CCs NVIDIA renumbered: CUDA 13.0 release notes, "SM101 has been renumbered as SM110".
RENUMBERED = {"10.1": "11.0"}


@dataclass(frozen=True, order=True)
class ComputeCapability:
    """A compute capability `major.minor`; ordered, hashable, printed as 'X.Y'."""

    major: int
    minor: int

    def __post_init__(self) -> None:
        if not (isinstance(self.major, int) and isinstance(self.minor, int)):
            raise InputError(f"compute capability parts must be integers, got {self.major!r}.{self.minor!r}")
        if not (1 <= self.major <= 99 and 0 <= self.minor <= 9):
            raise InputError(
                f"compute capability {self.major}.{self.minor} is outside 1.0..99.9 "
                f"(majors are 1 or more, minors one digit)"
            )

    @classmethod
    def parse(cls, text: object) -> ComputeCapability:
        """Any spelling in `ACCEPTED_SPELLINGS` (or a ComputeCapability) -> the value.

        Raises InputError naming the text when it is no CC spelling at all.
        """
        found = cls.try_parse(text)
        if found is None:
            raise InputError(f"{_shown(text)} is not a compute capability (accepted spellings: {ACCEPTED_SPELLINGS})")
        return found

    @classmethod
    def try_parse(cls, text: object) -> ComputeCapability | None:
        """Like `parse`, but None for text that is no CC spelling (a product name, a path)."""
        if isinstance(text, ComputeCapability):
            return text
        if isinstance(text, bool) or not isinstance(text, (str, int, float)):
            return None
        if isinstance(text, float):
            text = f"{text:.1f}"
        match = _SPELLING.match(str(text).strip())
        if match is None:
            return None
        if match.group("digits") is not None:
            digits = match.group("digits")
            major, minor = int(digits[:-1]), int(digits[-1])
        else:
            major, minor = int(match.group("major")), int(match.group("minor"))
        if major < 1:
            return None
        return cls(major, minor)

    @property
    def number(self) -> int:
        """70 for 7.0, 100 for 10.0: the number in `sm_XY`, handy for `cc.number >= 80`."""
        return self.major * 10 + self.minor

    @property
    def sm(self) -> str:
        """nvcc's real-architecture name: 'sm_90', 'sm_120'."""
        return f"sm_{self.number}"

    @property
    def file_stem(self) -> str:
        """The device file's name without suffix: 'cc_10_0'."""
        return f"cc_{self.major}_{self.minor}"

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


def _shown(text: object) -> str:
    """The offending value for a one-line message: repr, control characters escaped, shortened."""
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."
