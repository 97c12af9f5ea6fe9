"""JSON Schemas of every command's `--format json`, built from the result dataclasses (#11).

One vocabulary: every key an output uses is a field of a result dataclass (its JSON type is the
field's type) or one of the few document keys listed in DOCUMENT_WORDS, and a key means the
same thing, with the same type, wherever it appears. The schemas encode that: objects that are
dataclasses are checked field by field (all required, nothing else); the other objects may use
only vocabulary keys, each with its type. `python -m perfcalc.report.json_schema --write`
regenerates the shipped files (perfcalc/schemas/); a test checks they are current and that every
command's JSON validates.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_DIR = Path(__file__).resolve().parents[1] / "schemas"
COMMANDS = ("devices", "occupancy", "matmul", "roofline", "kernels", "coalesce", "banks", "run", "app")

_STRING = {"type": "string"}
_INTEGER = {"type": "integer"}
_NUMBER = {"type": "number"}
_BOOLEAN = {"type": "boolean"}
_NULL = {"type": "null"}
_OBJECT = {"$ref": "#/$defs/object"}
_OMIT: dict[str, Any] = {"$comment": "a field its to_dict leaves out"}  # in _adjustments


def _maybe(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, _NULL]}


def _array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


def _word(word: str) -> dict[str, Any]:
    return _ref(f"word_{word}")


def _vocab_object(*required: str) -> dict[str, Any]:
    """An object of vocabulary words with these `required` ones (a table's row, a document)."""
    return {"allOf": [_OBJECT, {"required": list(required)}]} if required else _OBJECT


def _numbers_by_name() -> dict[str, Any]:
    """A map from a user's names (kernel parameters, counters by class) to numbers."""
    return {"type": "object", "additionalProperties": _NUMBER}


# Keys the documents add around the dataclasses (units in the key, fractions 0..1).
DOCUMENT_WORDS: dict[str, dict[str, Any]] = {
    "ccs": _STRING,
    "max_shared_memory_per_block_launchable_bytes": _INTEGER,  # the opt-in maximum a launch gets
    "roofline_bound": {"enum": ["memory", "compute"]},
    "ridge_flop_per_byte": _maybe(_NUMBER),  # null: a compute ceiling has no ridge
    "global_load_elements": _INTEGER,
    "cgma": _maybe(_NUMBER),  # the CCs one row of coalesce/banks stands for, e.g. '5.0-6.2'
    "rows": _array(_OBJECT),
    "notes": _array(_STRING),
    "gpus": _array(_STRING),
    "compute_capabilities": _array(_OBJECT),
    "products": _array(_OBJECT),
    "results": _array(_OBJECT),
    "cost": _OBJECT,
    "pattern": _OBJECT,
    "kernels": _array(_OBJECT),
    "suggestion": _OBJECT,
    "ranking": _array(_OBJECT),
    "rank": _INTEGER,
    "sweeps": _array(_OBJECT),
    "axis": _STRING,
    "title": _STRING,
    "current": {"anyOf": [_INTEGER, _BOOLEAN]},
    "points": _array(_OBJECT),
    "steps": _array(_OBJECT),
    "from": _NUMBER,
    "to": _NUMBER,
    "hints": _array(_OBJECT),
    "message": _STRING,
    "inputs": _OBJECT,
    "device_limits": _OBJECT,
    "warps_per_block": _INTEGER,
    "zero_fit_reason": _maybe(_STRING),
    "waves": {"anyOf": [_OBJECT, _INTEGER, _NUMBER]},
    "gpu": _STRING,
    "gpu_name": _STRING,
    "sm_count": _INTEGER,
    "grid_blocks": _INTEGER,
    "blocks_per_wave": _INTEGER,
    "full_waves": _INTEGER,
    "tail_blocks": _INTEGER,
    "tail_fill": _NUMBER,
    "average_fill": _NUMBER,
    "min_grid_size": _maybe(_INTEGER),
    "roofline": _OBJECT,
    "ceilings": _array(_OBJECT),
    "ceiling": _STRING,
    "unit": _STRING,
    "curve": _array(_OBJECT),
    "label": _STRING,
    "fraction_of_peak": _maybe(_NUMBER),
    "fraction_of_roof": _maybe(_NUMBER),
    "roof_gflops": _maybe(_NUMBER),
    "intensity_flop_per_dram_byte": _maybe(_NUMBER),
    "predicted": {"anyOf": [_array(_OBJECT), _numbers_by_name()]},
    "time_terms": _array(_OBJECT),
    "params": _numbers_by_name(),
    "launch": _OBJECT,
    "blocks": _INTEGER,
    "threads": _INTEGER,
    "warps": _INTEGER,
    "threads_per_block": _INTEGER,
    "match": {"type": "object", "additionalProperties": _BOOLEAN},
    "model": _maybe(_OBJECT),  # null: a user's kernel has no catalog model
    "predicted_exact": _maybe(_BOOLEAN),
    "per_site": _array(_OBJECT),
    "counters": _ref("counts"),
    "per_line": _array(_OBJECT),
    "result_check": _maybe(_OBJECT),
    "occupancy": {"anyOf": [_NUMBER, _OBJECT]},
    "caches": _maybe(_OBJECT),
    "time": _OBJECT,
    "terms": _array(_OBJECT),
    "sampled": _maybe(_OBJECT),
    "sm_stride": _INTEGER,
    "sms": _INTEGER,
    "l1_bytes": _INTEGER,
    "l2_bytes": _INTEGER,
    "line": _INTEGER,
    "code": _STRING,
    "inlined": _BOOLEAN,
    "compiler": _maybe(_STRING),
    "source": _STRING,
    "advice": _maybe(_OBJECT),  # null: no product, so no time and no bound to advise on
    "what_to_change": _array(_STRING),
    "change": _STRING,
}


# Column names of the tables that list items as rows (a CSV's first column) and of the
# transposed ones: they appear in CSV files, and are vocabulary words like the others.
TABLE_WORDS: dict[str, dict[str, Any]] = {
    "item": _STRING,
    "limit": _STRING,
    "input": _STRING,
    "resource": _STRING,
    "counter": _STRING,
    "quantity": _STRING,
    "figure": _STRING,
    "limiter": _STRING,
    "is_limiter": _BOOLEAN,
    "lane": _INTEGER,
    "address": _INTEGER,
    "request": _INTEGER,
    "lanes": _STRING,  # the lanes of one request, e.g. '0-15'
    "sizes": _STRING,  # the transactions' sizes, e.g. '8x32B'
}
CEILING_COLUMN = r"^[a-z0-9_]+_gflops$"  # the roofline curve under one named memory ceiling
# CSV columns made from words: a nested counter flattened ('predicted_flops'), a variant and the
# engine that counted (matmul's counters table), a CC family (banks' lane table), a ceiling.
CSV_COLUMN_PATTERNS = (
    r"^(predicted|simulated)_(?P<word>[a-z0-9_]+)$",
    r"^(naive|tiled)_(predicted|simulated)$",
    r"^\d+\.\d+(-\d+\.\d+)?( \(\d-byte banks\))?$",
    CEILING_COLUMN,
)


def _output_classes() -> tuple[type, ...]:
    """The dataclasses whose fields make the vocabulary (nested dataclasses are found too)."""
    from perfcalc.analysis.app_launches import LaunchRecord
    from perfcalc.analysis.launch_advice import LaunchAdvice
    from perfcalc.analysis.launch_report import LaunchReport
    from perfcalc.app import AppReport, KernelSummary
    from perfcalc.memory.global_memory import GlobalAccessCost
    from perfcalc.memory.patterns import WarpPattern
    from perfcalc.memory.shared_memory import SharedAccessCost
    from perfcalc.model.hints import Hint
    from perfcalc.model.matmul import MatmulAnalysis, MatmulVariant
    from perfcalc.model.occupancy import OccupancyInputs, OccupancyResult
    from perfcalc.model.occupancy_suggest import BlockSizeSuggestion
    from perfcalc.model.ptxas import KernelResources
    from perfcalc.model.roofline import Roofline, RooflinePoint
    from perfcalc.model.time_model import TimePrediction
    from perfcalc.sim.counters import Counters
    from perfcalc.sim.references import ResultCheck
    from perfcalc.specs.arch import Arch
    from perfcalc.specs.gpu import Gpu
    from perfcalc.specs.kernels import KernelSpec

    return (
        Arch,
        Gpu,
        OccupancyInputs,
        OccupancyResult,
        Hint,
        BlockSizeSuggestion,
        KernelResources,
        KernelSpec,
        WarpPattern,
        GlobalAccessCost,
        SharedAccessCost,
        Roofline,
        RooflinePoint,
        MatmulVariant,
        MatmulAnalysis,
        TimePrediction,
        Counters,
        ResultCheck,
        LaunchReport,
        LaunchAdvice,
        LaunchRecord,
        KernelSummary,
        AppReport,
    )


# Where a dataclass's JSON (its to_dict) differs from its fields: field -> schema, and the fields
# it adds.
def _adjustments() -> dict[str, dict[str, Any]]:
    limits = {"type": "object", "additionalProperties": _maybe(_INTEGER)}  # null: unlimited
    return {
        "OccupancyResult": {"block_limits": limits},
        # the time model's and a source line's counters: Counters' fields, some of them
        "LaunchReport": {"counters": _ref("counts")},
        # the engine's result and the time's terms stay in Python (LaunchRecord.to_dict)
        "LaunchRecord": {"counters": _ref("counts"), "advice": _maybe(_OBJECT), "sim": _OMIT, "time": _OMIT},
        "AppReport": {"predicted_time_s": _maybe(_NUMBER)},  # to_dict adds the launches' sum
        "Gpu": {"ridge_flop_per_byte": _NUMBER},
        "KernelSpec": {"params": _numbers_by_name(), "realistic": _numbers_by_name()},
        "OccupancyInputs": {
            "block_size": _INTEGER,
            "registers_per_thread": _INTEGER,
            "static_shared_memory_bytes": _INTEGER,
            "dynamic_shared_memory_bytes": _INTEGER,
            "carveout": _maybe(_INTEGER),
        },
    }


class _Builder:
    """Turns type hints into schemas, collecting one $defs entry per dataclass."""

    def __init__(self) -> None:
        self.defs: dict[str, dict[str, Any]] = {}
        self.words: dict[str, list[dict[str, Any]]] = {}
        self._adjust = _adjustments()

    def of(self, tp: Any) -> dict[str, Any]:
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if tp is Any or tp is object:
            return {}
        if tp is type(None) or tp is None:
            return _NULL
        if tp is bool:
            return _BOOLEAN
        if tp is int:
            return _INTEGER
        if tp is float:
            return _NUMBER
        if tp is str:
            return _STRING
        if getattr(tp, "__module__", "") == "numpy" and getattr(tp, "__name__", "") == "ndarray":
            return {"type": "array"}
        if origin in (typing.Union, types.UnionType):
            return {"anyOf": [self.of(a) for a in args]}
        if origin is typing.Literal:
            return {"enum": list(args)}
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return {"enum": [m.value for m in tp]}
        if dataclasses.is_dataclass(tp) and isinstance(tp, type):
            return self.dataclass_ref(tp)
        if origin in (tuple, list, Sequence, set, frozenset) or tp in (tuple, list):
            items = [a for a in args if a is not Ellipsis]
            if not items:
                return {"type": "array"}
            item = self.of(items[0]) if len(set(map(repr, items))) == 1 else {"anyOf": [self.of(a) for a in items]}
            return _array(item)
        if origin in (dict, Mapping) or tp is dict:
            return {"type": "object", "additionalProperties": self.of(args[1]) if args else {}}
        raise TypeError(f"no JSON Schema for {tp!r}")

    def dataclass_ref(self, cls: type) -> dict[str, Any]:
        name = cls.__name__
        if name not in self.defs:
            self.defs[name] = {}  # a placeholder while the fields are built (recursion)
            hints = typing.get_type_hints(cls)
            adjust = self._adjust.get(name, {})
            properties = {}
            for f in dataclasses.fields(cls):
                if adjust.get(f.name) is not _OMIT:
                    properties[f.name] = adjust.get(f.name) or self.of(hints[f.name])
            properties.update({k: v for k, v in adjust.items() if k not in properties and v is not _OMIT})
            for key, schema in properties.items():
                self.words.setdefault(key, []).append(schema)
            self.defs[name] = {
                "type": "object",
                "description": (cls.__doc__ or "").strip().split("\n\n")[0],
                "properties": properties,
                "required": list(properties),
                "additionalProperties": False,
            }
        return _ref(name)


def _unique(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    seen: dict[str, dict[str, Any]] = {}
    for s in schemas:
        seen.setdefault(json.dumps(s, sort_keys=True), s)
    found = list(seen.values())
    return found[0] if len(found) == 1 else {"anyOf": found}


def vocabulary() -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """(word -> schema, dataclass $defs): every key the outputs may use, and its JSON type."""
    builder = _Builder()
    for cls in _output_classes():
        builder.dataclass_ref(cls)
    for word, schema in {**DOCUMENT_WORDS, **TABLE_WORDS}.items():
        builder.words.setdefault(word, []).append(schema)
    words = {w: _unique(s) for w, s in sorted(builder.words.items())}
    for definition in builder.defs.values():  # a field typed as its word says: point to the word
        properties = definition.get("properties", {})
        for key, schema in properties.items():
            if json.dumps(schema, sort_keys=True) == json.dumps(words[key], sort_keys=True):
                properties[key] = _word(key)
    counters = builder.defs["Counters"]
    builder.defs["counts"] = {**counters, "description": "Some of the counters, by name.", "required": []}
    return words, builder.defs


def is_csv_column(name: str, words: Mapping[str, Any]) -> bool:
    """Whether a CSV column is a vocabulary word or made of one (CSV_COLUMN_PATTERNS)."""
    import re

    if name in words:
        return True
    for pattern in CSV_COLUMN_PATTERNS:
        found = re.match(pattern, name)
        if found is not None:
            word = found.groupdict().get("word")
            return word is None or word in words
    return False


def _document(properties: dict[str, Any], optional: Sequence[str] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": [k for k in properties if k not in optional],
        "additionalProperties": False,
    }


def _rows(*required: str) -> dict[str, Any]:
    """An array of vocabulary objects, each with `required` keys (a table's rows)."""
    return _array(_vocab_object(*required))


def _occupancy_forms() -> dict[str, dict[str, Any]]:
    """occupancy's one JSON document (report/occupancy_tables.occupancy_json): one configuration's
    fields, then each section; what was not asked for is null (issue 35)."""
    from perfcalc.report.occupancy_tables import SECTIONS, SINGLE_KEYS

    occ = _vocab_object("cc", "inputs", "occupancy", "limiters", "block_limits", "hints")
    suggestion = _vocab_object("cc", "block_size", "occupancy", "ranking")
    waves = _vocab_object("gpu", "sm_count", "grid_blocks", "waves")
    ptxas_kernel = _document({"kernel": _ref("KernelResources"), "occupancy": occ})
    per_kernel = _vocab_object("block_size", "occupancy", "ranking")
    ptxas_suggestion = _document({"kernel": _ref("KernelResources"), "cc": _word("cc"), "suggestion": per_kernel})
    sections = {
        "waves": waves,
        "sweeps": _rows("axis", "points", "steps"),
        "suggestion": suggestion,
        "kernels": _array({"anyOf": [ptxas_kernel, ptxas_suggestion]}),
        "gpus": _array(_vocab_object("gpu", "sm_count", "cc", "inputs", "occupancy", "limiters")),
    }
    assert set(sections) == set(SECTIONS)
    properties = {
        **{k: _maybe(_ref("OccupancyInputs") if k == "inputs" else _word(k)) for k in SINGLE_KEYS},
        **{k: _maybe(v) for k, v in sections.items()},
        "notes": _word("notes"),
    }
    return {"occupancy": _document(properties)}


def command_forms() -> dict[str, dict[str, dict[str, Any]]]:
    """Per command, its JSON forms (name -> schema)."""
    from perfcalc.report.perf_tables import MATMUL_ROW_KEYS

    curve_row: dict[str, Any] = {
        "type": "object",
        "properties": {"intensity_flop_per_byte": _NUMBER},
        "patternProperties": {CEILING_COLUMN: _NUMBER},
        "required": ["intensity_flop_per_byte"],
        "additionalProperties": False,
    }
    run_document = _run_document()  # the vocabulary, built once for both of run's forms
    return {
        "devices": {
            "list": _document({"compute_capabilities": _rows("cc"), "products": _rows("key", "cc")}),
            "products": _document({"rows": _rows("key", "cc")}),
            "show_cc": _ref("Arch"),
            "show_product": _ref("Gpu"),
        },
        "occupancy": _occupancy_forms(),
        "matmul": {"rows": _document({"rows": _rows("gpu", "cc", *MATMUL_ROW_KEYS)})},
        "roofline": {
            # one --gpu or several: every table's rows from every product, each with its gpu
            "rooflines": _document(
                {
                    "rooflines": _array(_ref("Roofline")),
                    "ceilings": _rows("gpu", "ceiling", "kind", "value", "unit"),
                    "curve": _array(
                        {
                            **curve_row,
                            "properties": {**curve_row["properties"], "gpu": _word("gpu")},
                            "required": ["gpu", "intensity_flop_per_byte"],
                        }
                    ),
                    "points": _rows("gpu", "label", "intensity_flop_per_byte", "attainable_gflops", "bound"),
                    "predicted": _rows("kernel", "params", "gpu", "cc", "predicted_time_s", "predicted_gflops"),
                }
            ),
        },
        "kernels": {
            "list": _document({"rows": _rows("kernel", "params", "description", "origin")}),
            "show": _ref("KernelSpec"),
        },
        "coalesce": {"access": _access("GlobalAccessCost")},
        "banks": {"access": _access("SharedAccessCost")},
        "app": {
            "app": _ref("AppReport"),
            # several --gpu: the program, its arguments and one run's report per product
            "comparison": _document(
                {"files": _word("files"), "program_args": _word("program_args"), "runs": _array(_ref("AppReport"))}
            ),
        },
        "run": {
            "run": run_document,
            # several --gpu: the kernel, its parameters and one run's document per product
            "comparison": _document(
                {"kernel": _word("kernel"), "params": _word("params"), "runs": _array(run_document)}
            ),
        },
    }


def _run_document() -> dict[str, Any]:
    """run's JSON for one Target: every key always there; the time's and the advice's null
    without a product (one shape whatever the options, issue 35)."""
    from perfcalc.model.time_model import TIME_KEYS

    words, _defs = vocabulary()
    nullable = {"gpu", "time", "advice", *TIME_KEYS}
    properties = {w: _maybe(_word(w)) if w in nullable else _word(w) for w in words}
    required = ["kernel", "engine", "cc", "params", "launch", "counters", "result_check", "occupancy", "notes"]
    return {
        "allOf": [
            {"type": "object", "properties": properties, "additionalProperties": False},
            {"required": [*required, *sorted(nullable)]},
        ]
    }


def _access(cost: str) -> dict[str, Any]:
    """coalesce's or banks' JSON: the warp's pattern, then each CC family's cost."""
    per_family = _document({"ccs": _word("ccs"), "cost": _ref(cost)})
    return _document({"pattern": _ref("WarpPattern"), "results": _array(per_family)})


def command_schema(command: str) -> dict[str, Any]:
    """The JSON Schema of `perfcalc COMMAND --format json` (any of its forms)."""
    words, defs = vocabulary()
    forms = command_forms()[command]
    all_defs = {
        "object": {
            "type": "object",
            "description": "An object whose keys are vocabulary words, each with its one type.",
            "properties": {w: _word(w) for w in words},
            "additionalProperties": False,
        },
        **{f"word_{w}": s for w, s in words.items()},
        **defs,
    }
    return {
        "$schema": DRAFT,
        "$id": f"https://perfcalc.invalid/schemas/{command}.schema.json",
        "title": f"perfcalc {command} --format json",
        "description": f"Any of the forms of `perfcalc {command}`'s JSON: {', '.join(forms)}.",
        "anyOf": list(forms.values()),
        "$defs": all_defs,
    }


def schema_text(command: str) -> str:
    return json.dumps(command_schema(command), indent=1, sort_keys=True) + "\n"


def shipped_text(command: str) -> str:
    """The schema file shipped with the package, as text."""
    from perfcalc.errors import InputError

    if command not in COMMANDS:
        raise InputError(f"no JSON Schema for {command!r}; commands with JSON output: {', '.join(COMMANDS)}")
    return (SCHEMA_DIR / f"{command}.schema.json").read_text()


def shipped_schema(command: str) -> dict[str, Any]:
    """The schema file shipped with the package."""
    return dict(json.loads(shipped_text(command)))


def main(argv: Sequence[str]) -> int:
    """`--write` regenerates perfcalc/schemas/; `--check` fails if a shipped file is stale."""
    stale = []
    for command in COMMANDS:
        path = SCHEMA_DIR / f"{command}.schema.json"
        text = schema_text(command)
        if "--write" in argv:
            path.parent.mkdir(exist_ok=True)
            path.write_text(text)
        elif not path.exists() or path.read_text() != text:
            stale.append(path.name)
    if stale:
        print(f"stale: {', '.join(stale)}; run python -m perfcalc.report.json_schema --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
