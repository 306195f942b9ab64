"""Loading and rendering the SQL templates in ``sql/``.

Python decides, templates spell: a template receives ready lists (features, classes,
parameters) and reads as SQL with a few loops. Identifiers and values reach the SQL
only through the ``ident`` and ``lit`` filters of the active dialect, any text written
into a SQL comment through its ``comment`` filter, and statement shapes that differ between
engines through the ``sql`` global: ``{{ sql.temp_table(name) }}`` calls the macro of
``sql/dialects/<dialect>.sql``, or of ``sql/dialects/default.sql`` when the dialect does not
define it (as dbt dispatches its adapters' macros).

A file holds one statement, or several related ones as macros: ``catalog/versions.sql#drop``
names the macro ``drop`` of that file, called with the arguments it declares, taken from
the context (a file of macros rather than one switching on a ``what`` argument, and no
file for a one-line statement of its own).

>>> print(environment().globals["sql"].temp_table('"batch"'))
CREATE OR REPLACE TEMP TABLE "batch" AS
"""

from __future__ import annotations

import os
import pickle
from collections import OrderedDict
from collections.abc import Hashable
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from .engines.dialects import DUCKDB, Dialect


def template_dir() -> Path:
    """Where the templates are: inside the installed package, or beside it in a checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "sql", here.parent / "sql"):
        if (candidate / "score" / "score.sql").is_file():
            return candidate
    raise FileNotFoundError("sqlnb's SQL templates were not found (looked in sqlnb/sql and sql/)")


class Dispatcher:
    """The ``sql`` global of the templates: each macro name resolved in the dialect's
    template first, then in the default one."""

    def __init__(self, env: jinja2.Environment, dialect: Dialect) -> None:
        self._env = env
        self._dialect = dialect
        self._loaded: list[Any] | None = None

    @property
    def _modules(self) -> list[Any]:
        # looked up once: a statement calls these macros hundreds of times, and each look
        # at the files costs system calls
        if self._loaded is None:
            names = [f"dialects/{self._dialect.name}.sql", "dialects/default.sql"]
            self._loaded = [self._env.get_template(name).module for name in names
                            if (template_dir() / name).is_file()]
        return self._loaded

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        for module in self._modules:
            macro = getattr(module, name, None)
            if macro is not None:
                return macro
        raise AttributeError(f"no dialect macro {name!r} in sql/dialects/")


def bytecode_cache() -> jinja2.BytecodeCache | None:
    """Jinja's cache of compiled templates in a private per-user temporary directory
    (Jinja creates it with mode 0700 and refuses one another user owns), so a new process
    does not parse the templates again (~0.25 s for a first search). Entries are keyed by
    the template's path and checked against its source, so an edited or upgraded template
    is compiled afresh. ``SQLNB_TEMPLATE_CACHE=0`` turns it off, ``SQLNB_TEMPLATE_CACHE=<dir>``
    puts it in an existing directory of one's choosing; a temporary directory that cannot
    hold it turns it off too."""
    setting = os.environ.get("SQLNB_TEMPLATE_CACHE", "")
    if setting == "0":
        return None
    try:
        if setting:
            return jinja2.FileSystemBytecodeCache(setting)
        return jinja2.FileSystemBytecodeCache()
    except (OSError, RuntimeError):
        return None


@cache
def environment(dialect: Dialect = DUCKDB) -> jinja2.Environment:
    env = jinja2.Environment(
        bytecode_cache=bytecode_cache(),
        loader=jinja2.FileSystemLoader(str(template_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        auto_reload=False,  # the package's templates do not change while it runs
    )
    # `indent` re-indents after every line break, also inside string literals (a category
    # "a\nb" would become "a\n    b"): statements are left unindented rather than altered.
    del env.filters["indent"]
    env.filters["ident"] = dialect.ident
    env.filters["qualified"] = dialect.qualified
    env.filters["lit"] = dialect.lit
    env.filters["regex"] = dialect.regex  # a token pattern in the engine's own syntax
    env.filters["lits"] = dialect.lits
    env.filters["doubles"] = dialect.doubles
    env.filters["file_lit"] = dialect.file_lit  # one file, never a glob pattern
    env.filters["kind"] = dialect.kind
    env.filters["comment"] = dialect.comment  # any text inside a SQL comment
    env.filters["each"] = each
    env.globals["fn"] = dialect.functions
    env.globals["sql"] = Dispatcher(env, dialect)
    # the texts render_repeated remembers, and their total size
    env.sqlnb_repeated = OrderedDict()  # type: ignore[attr-defined]
    env.sqlnb_repeated_size = 0  # type: ignore[attr-defined]
    return env


def each(values: Any, how: Any) -> list[str]:
    """One SQL expression per value: ``how`` is a format string (``"{}_n"``) or a macro
    taking the value. For the lists a template hands to ``sql.unpivot``."""
    return [str(how(v)) if callable(how) else how.format(v) for v in values]


def render(template: str, dialect: Dialect = DUCKDB, **context) -> str:
    """Render ``sql/<template>`` with ``context``; ``<file>#<macro>``: call that macro of
    the file with the arguments it declares (the rest of the context is not its concern).

    >>> print(render("catalog/versions.sql#drop", table='"t__v2"'))
    DROP TABLE IF EXISTS "t__v2"
    """
    path, _, name = template.partition("#")
    loaded = environment(dialect).get_template(path)
    if not name:
        return loaded.render(**context)
    return call_macro(loaded, name, context)


def call_macro(loaded: jinja2.Template, name: str, context: dict[str, Any]) -> str:
    """The statement the macro ``name`` of the template ``loaded`` writes, given the
    arguments it declares from ``context``."""
    macro = getattr(loaded.module, name, None)
    if macro is None:
        raise LookupError(f"sql/{loaded.name} defines no macro {name!r}")
    if not macro.catch_kwargs:
        context = {key: value for key, value in context.items() if key in macro.arguments}
    return str(macro(**context))


# How much remembered text render_repeated keeps per environment (characters).
_REPEATED_LIMIT = 8_000_000


def render_repeated(template: str, dialect: Dialect = DUCKDB, **context) -> str:
    """:func:`render`, remembering the text of the statements an update repeats at every
    call (its scan, upsert, checks): Jinja spends about a millisecond on each, longer than
    DuckDB runs some of them. A text is a function of its template, the dialect's
    environment and the context alone, so the key holds the context in full: pickled,
    which tells apart whatever renders differently (``1``, ``1.0`` and ``True``; ``0.0``
    and ``-0.0``; a list and a tuple) at a fraction of a rendering's cost. A context that
    cannot be pickled is rendered every time. The texts live with the environment (a new
    one starts empty); the oldest go beyond ``_REPEATED_LIMIT`` characters."""
    try:
        key = (template, pickle.dumps(context, protocol=pickle.HIGHEST_PROTOCOL))
    except (pickle.PicklingError, TypeError, AttributeError):
        return render(template, dialect, **context)
    env = environment(dialect)
    texts: OrderedDict[Hashable, str] = env.sqlnb_repeated  # type: ignore[attr-defined]
    text = texts.get(key)
    if text is not None:
        texts.move_to_end(key)
        return text
    text = texts[key] = render(template, dialect, **context)
    env.sqlnb_repeated_size += len(text)  # type: ignore[attr-defined]
    while env.sqlnb_repeated_size > _REPEATED_LIMIT and len(texts) > 1:  # type: ignore[attr-defined]
        _, old = texts.popitem(last=False)
        env.sqlnb_repeated_size -= len(old)  # type: ignore[attr-defined]
    return text
