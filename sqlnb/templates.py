"""Loading and rendering the SQL templates in ``sql/``.

Python decides, templates spell: a template receives ready lists (features, classes,
parameters) and reads as SQL with a few loops. Identifiers and values reach the SQL
only through the ``ident`` and ``lit`` filters of the active dialect, and any text
written into a SQL comment through its ``comment`` filter.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jinja2

from .dialect import DUCKDB, Dialect


def template_dir() -> Path:
    """Where the templates are: inside the installed package, or beside it in a checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "sql", here.parent / "sql"):
        if (candidate / "score.sql").is_file():
            return candidate
    raise FileNotFoundError("sqlnb's SQL templates were not found (looked in sqlnb/sql and sql/)")


@cache
def environment(dialect: Dialect = DUCKDB) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    # `indent` re-indents after every line break, also inside string literals (a category
    # "a\nb" would become "a\n    b"): statements are left unindented rather than altered.
    del env.filters["indent"]
    env.filters["ident"] = dialect.ident
    env.filters["qualified"] = dialect.qualified
    env.filters["lit"] = dialect.lit
    env.filters["comment"] = dialect.comment  # any text inside a SQL comment
    env.globals["fn"] = dialect.functions
    return env


def render(template: str, dialect: Dialect = DUCKDB, **context) -> str:
    """Render ``sql/<template>`` with ``context``."""
    return environment(dialect).get_template(template).render(**context)
