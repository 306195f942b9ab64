"""The layering of docs/architecture.md, kept by tools rather than by review."""

from __future__ import annotations

import ast
import pathlib
import re

import pytest
from importlinter.cli import lint_imports

from sqlnb.families import FAMILIES
from sqlnb.templates import environment

ROOT = pathlib.Path(__file__).resolve().parent.parent
# What every family template exports; ``batch`` replaces ``batch_columns`` for a family
# that writes its own batch query, and ``batch_checks`` exists when the family checks one;
# ``term_of`` is one feature's term (jll sums them, explain lists them), ``share_of``
# (optional) its part of the class constant.
FAMILY_MACROS = {"stats_table", "declare", "merge", "merge_model", "feature_params", "checks",
                 "class_constant", "read_params", "jll", "term_of"}
SINGLE_FAMILIES = [name for name, family in FAMILIES.items() if not family.composite]


def _rel(path: pathlib.Path) -> str:
    """A module's path below sqlnb/ (``families/gaussian.py``)."""
    return str(path.relative_to(ROOT / "sqlnb"))


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


def _family_name_checks(source: str, filename: str) -> list[str]:
    """Comparisons of something with a family's name (``family.name == "gaussian"``,
    ``name in ("gaussian", "poisson")``) and mappings keyed by family names
    (``{"gaussian": ...}``)."""
    names = set(FAMILIES)

    def named(node: ast.AST) -> bool:
        values = [node] + (list(node.elts) if isinstance(node, (ast.Tuple, ast.List, ast.Set))
                           else [])
        return any(isinstance(v, ast.Constant) and v.value in names for v in values)

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.Dict):
            operands = [k for k in node.keys if k is not None]
        else:
            continue
        if any(named(o) for o in operands):
            found.append(f"{filename}:{node.lineno}")
    return found


def test_no_family_name_checks_outside_the_families():
    """Per-family facts are attributes of the families (sqlnb/families/): other modules
    ask them (``family.array_kind``, ``family.sklearn_estimator``…), never the name."""
    found = [hit for path in sorted((ROOT / "sqlnb").rglob("*.py"))
             if "families" not in path.relative_to(ROOT / "sqlnb").parts
             for hit in _family_name_checks(path.read_text(), _rel(path))]
    assert found == []


def test_the_family_name_check_sees_comparisons_and_mappings():
    source = ("a = family.name == 'gaussian'\nb = kind in ('linear', 'poisson')\n"
              "c = {'categorical': 1}\nd = {'float': 'gaussian'}\ne = kind == 'linear'\n")
    assert _family_name_checks(source, "x.py") == ["x.py:1", "x.py:2", "x.py:3"]


# A template comparing a family name (or the family_name variable) with anything.
FAMILY_BRANCH = re.compile(
    r"family_name\s*(==|!=|\bin\b)|family\.name|"
    r"(==|!=|\bin\b)\s*[(\[]?\s*['\"](" + "|".join(FAMILIES) + r")['\"]")


def test_templates_outside_the_families_do_not_branch_on_the_family():
    """A shared template asks a family fact the pipeline passes (``family_statistics_shape``,
    ``family_scoring_parameters``…); only ``sql/families/`` knows which family it is."""
    found = [f"{path.relative_to(ROOT)}:{number}"
             for path in sorted((ROOT / "sql").rglob("*.sql"))
             if "families" not in path.relative_to(ROOT / "sql").parts
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if FAMILY_BRANCH.search(line)]
    assert found == []


def test_the_template_check_sees_a_family_branch():
    lines = ["{% if family_name == 'x' %}", "{% elif kind == 'categorical' %}",
             "{% if family.name in ('poisson',) %}", "{% if kind == 'moments' %}",
             "-- {{ family_name | comment }} naive Bayes"]
    assert [bool(FAMILY_BRANCH.search(line)) for line in lines] == [True, True, True, False,
                                                                    False]


def test_no_module_imports_another_modules_private_names():
    allowed: set[tuple[str, str, str]] = set()
    found = []
    for path in sorted((ROOT / "sqlnb").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                for alias in node.names:
                    key = (_rel(path), node.module or "", alias.name)
                    private = alias.name.startswith("_") and not alias.name.endswith("__")
                    if private and key not in allowed:
                        found.append(f"{_rel(path)}:{node.lineno} {alias.name}")
    assert found == []


def _private_names_defined(tree: ast.AST) -> set[str]:
    """The private names a module defines: functions, classes, module and class attributes,
    and attributes it assigns on its own objects (``self._cache = ...``)."""
    defined = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            defined.add(node.attr)
    return {name for name in defined if name.startswith("_") and not name.endswith("__")}


def _private_uses(tree: ast.AST) -> list[tuple[int, str]]:
    """``obj._name`` (or ``getattr(obj, "_name")``) where ``obj`` is not ``self``, ``cls``
    or ``super()``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) > 1:
            owner, name = node.args[0], node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str) \
                    and name.value.startswith("_") and not name.value.endswith("__") \
                    and not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                found.append((node.lineno, name.value))
            continue
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") \
                or node.attr.endswith("__"):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
            continue
        if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) \
                and owner.func.id == "super":
            continue
        found.append((node.lineno, node.attr))
    return found


def test_no_module_calls_or_reads_another_modules_private_names():
    """A private name of one sqlnb module (a method, a cache) is used by that module only:
    other modules go through public methods (``context.parameters()``,
    ``context.invalidate()``...), never ``model._run`` or ``model._meta = None``."""
    trees = {_rel(path): ast.parse(path.read_text())
             for path in sorted((ROOT / "sqlnb").rglob("*.py"))}
    defined = {name: _private_names_defined(tree) for name, tree in trees.items()}
    everywhere = set().union(*defined.values())
    found = [f"{name}:{line} .{attr}" for name, tree in trees.items()
             for line, attr in _private_uses(tree)
             if attr in everywhere and attr not in defined[name]]
    assert found == []


def test_the_private_use_check_sees_a_call_on_another_object():
    tree = ast.parse("def f(model):\n    model._run('x.sql')\n    self._cache = 1\n"
                     "    getattr(model, '_meta', None)\n")
    assert sorted(_private_uses(tree)) == [(2, "_run"), (4, "_meta")]
    assert _private_names_defined(tree) == {"_cache"}


def _layers() -> list[list[str]]:
    """The layers contract of pyproject.toml, top first: each layer's module names."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contract = next(c for c in config["tool"]["importlinter"]["contracts"]
                    if c["type"] == "layers")
    return [[m.strip() for m in layer.split("|")] for layer in contract["layers"]]


def _below(module: str) -> list[str]:
    layers = _layers()
    at = next(i for i, layer in enumerate(layers) if module in layer)
    return [m for layer in layers[at + 1:] for m in layer]


def _module_files(module: str) -> list[pathlib.Path]:
    """A module's file, or a package's files."""
    base = ROOT / module.replace(".", "/")
    return sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]


def _facade_uses(source: str, filename: str) -> list[str]:
    """Where a module imports ``sqlnb.model`` (under ``TYPE_CHECKING`` too) or names
    ``NaiveBayes`` in code (docstrings and comments aside)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = {alias.name for alias in node.names}
            if (node.level > 0 and (module == "model" or (not module and "model" in names))) \
                    or module == "sqlnb.model" or (module == "sqlnb" and "model" in names) \
                    or "NaiveBayes" in names:
                found.append(f"{filename}:{node.lineno}")
        elif isinstance(node, ast.Import):
            if any(alias.name == "sqlnb.model" for alias in node.names):
                found.append(f"{filename}:{node.lineno}")
        elif (isinstance(node, ast.Name) and node.id == "NaiveBayes") or \
                (isinstance(node, ast.Attribute) and node.attr == "NaiveBayes"):
            found.append(f"{filename}:{node.lineno}")
    return sorted(set(found), key=lambda hit: int(hit.rsplit(":", 1)[1]))


def test_no_module_below_the_facade_knows_the_facade():
    """The layers below ``sqlnb.model`` take a :class:`sqlnb.context.ModelContext`: none
    imports the facade's module, even for annotations, or names ``NaiveBayes``."""
    below = _below("sqlnb.model")
    assert "sqlnb.ownership" in below and "sqlnb.search" in below and "sqlnb.context" in below
    found = [hit for module in below for path in _module_files(module)
             for hit in _facade_uses(path.read_text(), module)]
    assert found == []


def test_the_facade_check_sees_imports_and_names():
    source = ('"""A docstring naming NaiveBayes is fine."""\n'
              "from typing import TYPE_CHECKING\n"
              "if TYPE_CHECKING:\n    from .model import NaiveBayes\n"
              "from . import model\n"
              "import sqlnb.model\n"
              "def f(m: 'x') -> None:\n    return sqlnb.NaiveBayes('m')\n"
              "def g(m: NaiveBayes) -> None:\n    pass\n"
              "from .context import ModelContext\n")
    assert _facade_uses(source, "x") == ["x:4", "x:5", "x:6", "x:8", "x:9"]


# What a model's kind is asked by: ``family.composite`` (one part per family,
# ``family="auto"``), ``spec.grouped`` (per-group parts) and ``stored_input()`` (text or
# long input: a part over derived tokens).
KIND_QUESTIONS = {"composite", "grouped", "stored_input"}
# Where the kinds are described and the parts built: these may ask.
KIND_DESCRIPTIONS = {"parts.py", "spec.py", "context.py", "families"}
# The kind branches left outside the parts builder, per module: how many, and why they are
# still there. The list only shrinks: a module that loses a branch must lower its number
# (and one that drops to zero leaves the list), and no module gains one.
KIND_BRANCHES_LEFT: dict[str, tuple[int, str]] = {}


def _kind_branches(source: str, filename: str) -> list[str]:
    """Where a module asks a model's kind: an attribute or method in ``KIND_QUESTIONS``
    read (``model.family.composite``, ``spec.grouped``, ``model.stored_input()``), outside a
    definition of it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in KIND_QUESTIONS:
            found.append(f"{filename}:{node.lineno}")
    return found


def test_no_kind_branches_outside_the_parts_builder_but_the_listed_ones():
    """A model is parts over one class table (sqlnb/parts.py builds them); the flows ask the
    parts, not which kind the model is. The branches left are listed with their reason in
    ``KIND_BRANCHES_LEFT`` and docs/architecture.md, and the list only shrinks."""
    counts: dict[str, list[str]] = {}
    for path in sorted((ROOT / "sqlnb").rglob("*.py")):
        rel = path.relative_to(ROOT / "sqlnb")
        if rel.parts[0] in KIND_DESCRIPTIONS:
            continue
        hits = _kind_branches(path.read_text(), _rel(path))
        if hits:
            counts[_rel(path)] = hits
    assert {module: len(hits) for module, hits in counts.items()} == {
        module: number for module, (number, _) in KIND_BRANCHES_LEFT.items()}


def test_the_kind_check_sees_attributes_and_calls():
    source = ("if model.family.composite:\n    pass\nx = spec.grouped\n"
              "y = model.stored_input() and 1\nz = family.composite_name\n"
              "def composite(self): return 1\n")
    assert _kind_branches(source, "x.py") == ["x.py:1", "x.py:3", "x.py:4"]
