"""What kind of model a stored model is: its :class:`ModelSpec`, kept in the metadata row.

The metadata row says the family, hyperparameters, target, weight, features and classes;
since schema 2 its ``spec`` column (JSON) also says how the model reads its input
(``columns``, ``sparse``, ``long`` or ``text``), its parts (the families of a
``family="auto"`` model, in fit order; the one family otherwise) and its group columns.
Nothing else in sqlnb finds a model's kind by looking for tables.

>>> spec = ModelSpec.from_meta({"schema_version": 2, "family": "gaussian", "params": {},
...     "target": "y", "target_type": "BIGINT", "weight": None,
...     "features": [{"name": "x", "type": "DOUBLE"}],
...     "spec": '{"input": "columns", "parts": ["gaussian"], "groups": [["store", "VARCHAR"]]}'})
>>> spec.grouped, spec.group_names, spec.input
(True, ['store'], 'columns')
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import IncompatibleModelError
from .families import FAMILIES, PART_FAMILIES

SCHEMA_VERSION = 2  # 2: the meta row's ``spec`` column
INPUT_KINDS = ("columns", "sparse", "long", "text")


@dataclass(frozen=True)
class ModelSpec:
    """The single answer to "what kind of model is this"."""

    family: str
    params: dict[str, Any] = field(hash=False)
    target: str
    target_type: str
    weight: str | None
    features: tuple[dict[str, Any], ...] = field(hash=False)
    parts: tuple[str, ...] = ()
    groups: tuple[tuple[str, str], ...] = ()  # (column, type) of each group column
    input: str = "columns"
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        if self.input not in INPUT_KINDS:
            raise ValueError(f"unknown input kind {self.input!r}")

    @property
    def grouped(self) -> bool:
        return bool(self.groups)

    @property
    def group_names(self) -> list[str]:
        return [name for name, _ in self.groups]

    @property
    def composite(self) -> bool:
        """One family per column (``family="auto"``)."""
        return _is_composite(self.family)

    @property
    def terms(self) -> bool:
        """Features are terms (text or long input), scored by a join."""
        return self.input in ("text", "long")

    def spec_json(self) -> str:
        """The ``spec`` column of the metadata row."""
        return json.dumps({"input": self.input, "parts": list(self.parts),
                           "groups": [list(g) for g in self.groups]})

    @classmethod
    def from_meta(cls, meta: dict[str, Any],
                  derive: Callable[[], dict[str, Any]] | None = None) -> ModelSpec:
        """The spec of a metadata row (already JSON-decoded but for ``spec``).

        A schema-1 row has no ``spec``: ``derive()`` supplies its ``input``, ``parts`` and
        ``groups`` from the model's tables. A row from a newer sqlnb is refused.
        """
        version = meta["schema_version"]
        if not isinstance(version, int) or version > SCHEMA_VERSION:
            raise newer_schema_error(meta.get("model"), version)
        if meta.get("spec"):
            kind = json.loads(meta["spec"])
        elif derive is not None:
            kind = derive()
        else:
            kind = {}
        features = tuple(meta["features"])
        parts = kind.get("parts") or _parts_of(meta["family"], features)
        return cls(
            family=meta["family"],
            params=dict(meta["params"]),
            target=meta["target"],
            target_type=meta["target_type"],
            weight=meta["weight"],
            features=features,
            parts=tuple(parts),
            groups=tuple(tuple(g) for g in kind.get("groups", [])),
            input=kind.get("input", "columns"),
            schema_version=version,
        )


def newer_schema_error(model: Any, version: Any) -> IncompatibleModelError:
    """The error for a model whose metadata row has a schema this sqlnb does not know: it is
    neither used nor rewritten (a newer layout may mean something else)."""
    error = IncompatibleModelError(
        f"model {model!r} was written by a newer sqlnb (schema {version!r}; this sqlnb "
        f"reads up to {SCHEMA_VERSION}): upgrade sqlnb to use it, or fit it again under "
        "another name"
    )
    error.newer = True
    return error


def _is_composite(family: str) -> bool:
    family_class = FAMILIES.get(family)  # "auto" registers itself (sqlnb.mixed)
    return family_class is not None and family_class.composite


def _parts_of(family: str, features: tuple[dict[str, Any], ...]) -> list[str]:
    if not _is_composite(family):
        return [family]
    present = {f.get("family") for f in features}
    return [name for name in PART_FAMILIES if name in present]


def jsonable(value: Any) -> Any:
    """``value`` with NumPy arrays and scalars as plain lists and numbers (for JSON)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value
