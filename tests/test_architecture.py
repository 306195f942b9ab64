"""The layering of docs/architecture.md, kept by tools rather than by review."""

from __future__ import annotations

import ast
import pathlib

import pytest
from importlinter.cli import lint_imports

from sqlnb.families import FAMILIES
from sqlnb.templates import environment

ROOT = pathlib.Path(__file__).resolve().parent.parent
# What every family template exports; ``batch`` replaces ``batch_columns`` for a family
# that writes its own batch query, and ``batch_checks`` exists when the family checks one.
FAMILY_MACROS = {"stats_table", "declare", "merge", "merge_model", "feature_params", "checks",
                 "class_constant", "read_params", "jll"}
SINGLE_FAMILIES = [name for name, family in FAMILIES.items() if not family.composite]


def test_the_import_contracts_hold():
    """Layers without cycles, and no database driver above the engine (pyproject.toml)."""
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml")) == 0


@pytest.mark.parametrize("name", SINGLE_FAMILIES)
def test_each_family_template_exports_the_family_macros(name):
    family = FAMILIES[name]
    module = environment().get_template(family.template.fget(family)).module  # type: ignore[attr-defined]
    exported = {n for n in dir(module) if not n.startswith("_")}
    expected = set(FAMILY_MACROS)
    expected.add("batch" if family.has_batch else "batch_columns")
    if family.has_batch_checks:
        expected.add("batch_checks")
    assert expected <= exported, expected - exported


def _family_name_checks(path: pathlib.Path) -> list[str]:
    """Comparisons of something with a family's name, e.g. ``family.name == "gaussian"``."""
    names = set(FAMILIES)
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for operand in operands:
            values = [operand] + (list(operand.elts) if isinstance(operand, ast.Tuple) else [])
            if any(isinstance(v, ast.Constant) and v.value in names for v in values):
                found.append(f"{path.name}:{node.lineno}")
    return found


def test_no_family_name_checks_outside_the_families():
    # sklearn.py's estimators are one class per family (issue 12 owns that module).
    # Known debt: search.py still picks its scoring shape by family name (issue 11 lists it
    # in docs/architecture.md; the families' array_kind can replace it).
    allowed = {"families.py", "sklearn.py", "search.py"}
    found = [hit for path in sorted((ROOT / "sqlnb").glob("*.py")) if path.name not in allowed
             for hit in _family_name_checks(path)]
    assert found == []


def test_no_module_imports_another_modules_private_names():
    # The scikit-learn facade and its incremental mixin become one module (issue 11, step 8).
    allowed = {("sklearn.py", "_sklearn_incremental", "_check_y")}
    found = []
    for path in sorted((ROOT / "sqlnb").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                for alias in node.names:
                    key = (path.name, node.module or "", alias.name)
                    private = alias.name.startswith("_") and not alias.name.endswith("__")
                    if private and key not in allowed:
                        found.append(f"{path.name}:{node.lineno} {alias.name}")
    assert found == []
