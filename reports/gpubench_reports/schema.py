"""gpubench's records (gpubench run --format json), read through their published JSON Schema.

records.schema.json, beside this file, is what `gpubench schema` prints from the one table of
record fields (bench/record_fields.cpp); a test keeps the two equal. A field added there reaches
this reader with the schema: every entry's fields are checked against their declared types, and
read by name (Entry.get), with no edit here.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
from typing import Any, Dict, List, Optional, Tuple

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "records.schema.json")

# JSON Schema's types as Python's json module reads them.
PYTHON_TYPES: Dict[str, Tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


class RecordsError(ValueError):
    """A records file that does not follow the schema: the message names the file, entry and field."""


@dataclasses.dataclass(frozen=True)
class Field:
    """One field of a benchmark entry, as the schema declares it."""

    name: str
    type: str
    description: str


@functools.lru_cache(maxsize=None)
def load_schema(path: str = SCHEMA_PATH) -> Dict[str, Any]:
    """The schema at `path`, read once (callers do not change it)."""
    with open(path, encoding="utf-8") as f:
        schema: Dict[str, Any] = json.load(f)
    return schema


def entry_fields(schema: Optional[Dict[str, Any]] = None) -> Dict[str, Field]:
    """The fields of a benchmark entry, by name."""
    schema = schema or load_schema()
    properties = schema["$defs"]["entry"]["properties"]
    return {name: Field(name, spec["type"], spec.get("description", "")) for name, spec in properties.items()}


@dataclasses.dataclass
class Entry:
    """One entry of "benchmarks" or "failed_benchmarks": a repetition of a point, or an aggregate."""

    name: str
    run_type: str
    suite: str
    problem: str
    backend: str
    variant: str
    precision: str
    fields: Dict[str, Any]  # every field of the entry, the schema's checked against their types

    @property
    def failed(self) -> bool:
        return bool(self.fields.get("error_occurred")) or self.fields.get("verified") is False

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)


@dataclasses.dataclass
class Records:
    context: Dict[str, Any]
    benchmarks: List[Entry]
    failed_benchmarks: List[Entry]


def _type_error(value: Any, field: Field) -> Optional[str]:
    """Why `value` is not of `field`'s type (None when it is)."""
    allowed = PYTHON_TYPES.get(field.type, (object,))
    if isinstance(value, bool) and field.type in ("number", "integer"):
        return f"{json.dumps(value)}, not a {field.type}"
    if not isinstance(value, allowed):
        return f"{json.dumps(value)[:40]}, not a{'n' if field.type[0] in 'aeiou' else ''} {field.type}"
    if field.type == "number" and not math.isfinite(value):
        return f"{value}, not a finite number"
    return None


def check(raw: Dict[str, Any], path: str, fields: Dict[str, Field]) -> None:
    """RecordsError naming the first of the entry's fields that is not of its declared type."""
    label = str(raw.get("name", "an entry"))
    for name, value in raw.items():
        field = fields.get(name)
        if field is None:  # a suite's own field (NAS CG's zeta): the schema allows them
            continue
        why = _type_error(value, field)
        if why:
            raise RecordsError(f"{path}: {label}: {name} is {why} ({field.description})")


def entry(raw: Any, path: str, fields: Dict[str, Field]) -> Entry:
    """One entry, its fields checked against the schema (RecordsError naming what is wrong)."""
    if not isinstance(raw, dict):
        raise RecordsError(f"{path}: an entry is {json.dumps(raw)[:40]}, not an object")
    check(raw, path, fields)
    label = str(raw.get("name", "an entry"))
    identity = {}
    for name in ("name", "run_type", "suite", "problem", "backend", "variant", "precision"):
        if name not in raw:
            raise RecordsError(f"{path}: {label}: no '{name}' ({fields[name].description if name in fields else name})")
        identity[name] = str(raw[name])
    return Entry(fields=raw, **identity)


def read(records: Any, path: str, schema: Optional[Dict[str, Any]] = None) -> Records:
    """A parsed records file as typed entries; RecordsError for one that does not follow the schema."""
    if not isinstance(records, dict) or "benchmarks" not in records:
        raise RecordsError(f"{path}: not a gpubench records file (no 'benchmarks')")
    for key in ("benchmarks", "failed_benchmarks"):
        if not isinstance(records.get(key, []), list):
            raise RecordsError(f"{path}: '{key}' is {json.dumps(records[key])[:40]}, not a list of entries")
    context = records.get("context", {})
    if not isinstance(context, dict):
        raise RecordsError(f"{path}: 'context' is {json.dumps(context)[:40]}, not an object")
    fields = entry_fields(schema)
    return Records(context,
                   [entry(b, path, fields) for b in records.get("benchmarks", [])],
                   [entry(b, path, fields) for b in records.get("failed_benchmarks", [])])


def read_file(path: str) -> Records:
    with open(path, encoding="utf-8") as f:
        return read(json.load(f), path)
