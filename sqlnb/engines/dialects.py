"""Everything that depends on the SQL engine's spelling lives here, as data.

Templates never quote an identifier or format a value themselves: they call the ``ident``
and ``lit`` filters, which come from the active :class:`Dialect`. Python never compares
type names: it asks :meth:`Dialect.kind` (``integer``, ``float``, ``decimal``, ``bool``,
``text``, ``enum``, ``nested`` or ``other``). Statement shapes that differ between engines
are template macros in ``sql/dialects/<name>.sql`` (falling back to
``sql/dialects/default.sql``). A second engine (Spark SQL) is a subclass overriding these
few methods, the names in ``functions`` and ``type_kinds``, plus one dialect template.

>>> DUCKDB.kind("BIGINT"), DUCKDB.kind("DECIMAL(18,3)"), DUCKDB.kind("VARCHAR")
('integer', 'decimal', 'text')
>>> print(DUCKDB.lit("it's"))
'it''s'
"""

from __future__ import annotations

import datetime as _dt
import decimal
import functools
import math
import re
import unicodedata
from typing import Any, ClassVar


class Expression(str):
    """SQL text that already is an expression (e.g. a column holding a parameter).

    ``lit`` passes it through unchanged, so a template written for constants (a family's
    ``jll``) can read a parameter from a column instead: per-group scoring joins one row of
    parameters per group.
    """


# The kinds of column type the rest of sqlnb reasons about.
TYPE_KINDS = ("integer", "float", "decimal", "bool", "text", "enum", "nested", "other")
NUMERIC_KINDS = frozenset({"integer", "float", "decimal", "bool"})
# A "*" before "/" or a "/" before "*": the characters that open or close a block comment.
_COMMENT_DELIMITERS = re.compile(r"\*(?=/)|/(?=\*)")


class Dialect:
    name = "duckdb"
    title = "DuckDB"  # in generated SQL's comments: "runs on any DuckDB connection"
    identifier_quote = '"'
    # How a model's scoring is stored for SQL clients: DuckDB macros taking the row
    # (scoring_macros.sql), or SQL functions taking a STRUCT (scoring_functions.sql).
    stored_scoring = "macros"
    # Whether a categorical feature of many categories is scored by a join with a relation
    # of its coefficients (one row per category) rather than an expression over them.
    joins_lookups = True
    # Type names (as the engine describes a column) and their kind; see ``kind``.
    type_kinds: ClassVar[dict[str, str]] = {
        **dict.fromkeys(("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT",
                         "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"), "integer"),
        **dict.fromkeys(("FLOAT", "DOUBLE", "REAL"), "float"),
        "BOOLEAN": "bool",
        **dict.fromkeys(("VARCHAR", "STRING", "TEXT"), "text"),
    }
    # Type name prefixes: parameterised and nested types.
    type_prefixes: ClassVar[tuple[tuple[str, str], ...]] = (
        ("DECIMAL", "decimal"),
        ("VARCHAR(", "text"),
        ("ENUM(", "enum"),
        ("STRUCT", "nested"),
        ("MAP", "nested"),
        ("UNION", "nested"),
    )
    # Function names that differ between engines; templates use ``fn.<key>``.
    functions: ClassVar[dict[str, str]] = {
        "ln": "ln",
        "exp": "exp",
        "greatest": "greatest",
        "pi": "pi()",
    }

    def regex(self, pattern: str) -> str:
        """A token pattern as written for DuckDB's regular expressions (RE2, see
        :func:`sqlnb.text.translate_pattern`) in this engine's own syntax: DuckDB's as it is.
        """
        return pattern

    def kind(self, sql_type: str | None) -> str:
        """The kind of a column type: one of ``TYPE_KINDS``."""
        if sql_type is None:
            return "other"
        upper = sql_type.upper()
        if upper in self.type_kinds:
            return self.type_kinds[upper]
        if upper.endswith("]"):  # lists and arrays
            return "nested"
        for prefix, kind in self.type_prefixes:
            if upper.startswith(prefix):
                return kind
        return "other"

    def is_numeric(self, sql_type: str | None) -> bool:
        """Integers, floating point, decimals and booleans (``True`` counts as 1)."""
        return self.kind(sql_type) in NUMERIC_KINDS

    def ident(self, name: str) -> str:
        """Quote one identifier. The only way an identifier enters a statement."""
        if not isinstance(name, str):
            raise TypeError(f"identifier must be a string, got {type(name).__name__}")
        if name == "" or "\x00" in name:
            raise ValueError(f"invalid identifier {name!r}")
        q = self.identifier_quote
        return q + name.replace(q, q + q) + q

    def qualified(self, name: str) -> str:
        """Quote a possibly dotted relation name (``schema.table``), part by part."""
        return ".".join(self.ident(part) for part in name.split("."))

    def field(self, struct: str, name: str) -> str:
        """A field of a struct-valued name (a macro's row argument): ``("r")."name"``.

        The parentheses make it a field access rather than a table-qualified column, which
        DuckDB also resolves inside a macro's subqueries.
        """
        return "(" + self.ident(struct) + ")." + self.ident(name)

    def column(self, table: str, name: str) -> str:
        """A column qualified by its table's alias: ``"t"."name"``."""
        return self.ident(table) + "." + self.ident(name)

    def string(self, value: str) -> str:
        if "\x00" in value:
            raise ValueError("string literal contains a NUL byte")
        return "'" + value.replace("'", "''") + "'"

    def comment(self, text: Any) -> str:
        """``text`` made safe inside a ``--`` line comment or a ``/* */`` block comment.

        DuckDB ends a line comment at ``\\n`` or ``\\r``; every other control, line or
        paragraph separator character (Python's ``splitlines`` set and more) becomes a
        space too, so a comment stays one line whoever reads the script. ``*/`` and
        ``/*`` are split so the text can neither close nor open a block comment.
        """
        flat = "".join(
            " " if unicodedata.category(ch)[0] in "CZ" else ch for ch in str(text)
        )
        return _COMMENT_DELIMITERS.sub(r"\g<0> ", flat)

    def number(self, value: float) -> str:
        """A DOUBLE literal that round-trips exactly (no DECIMAL parsing)."""
        value = float(value)
        if math.isnan(value):
            return "CAST('nan' AS DOUBLE)"
        if math.isinf(value):
            return "CAST('inf' AS DOUBLE)" if value > 0 else "CAST('-inf' AS DOUBLE)"
        # Scientific notation makes DuckDB read a DOUBLE, and repr's digits round-trip.
        text = repr(value)
        if "e" not in text and "E" not in text:
            text += "e0"
        return text

    def lit(self, value: Any, sql_type: str | None = None) -> str:
        """Render a Python value as a literal, optionally cast to ``sql_type``."""
        if isinstance(value, Expression):
            return str(value)
        if value is None:
            text = "NULL"
        elif isinstance(value, bool):
            text = "TRUE" if value else "FALSE"
        elif isinstance(value, int):
            text = str(int(value))
        elif isinstance(value, float):
            text = self.number(value)
        elif isinstance(value, decimal.Decimal):
            text = self.string(str(value))
        elif isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
            text = self.string(value.isoformat())
        elif isinstance(value, str):
            text = self.string(value)
        elif hasattr(value, "item"):  # numpy scalar
            return self.lit(value.item(), sql_type)
        else:
            raise TypeError(f"cannot render {type(value).__name__} as a SQL literal")
        if sql_type is not None:
            return f"CAST({text} AS {self.type_name(sql_type)})"
        return text

    def doubles(self, values: Any) -> str:
        """A list of doubles as one constant: a string cast to ``DOUBLE[]``, which the
        engine parses once, where a list of literals is one constant per number to bind
        (a wide categorical model's statement planned in seconds). ``repr`` gives the
        shortest digits that read back as the same double (``inf``, ``nan`` included)."""
        return _double_list(self, tuple(map(float, values)))

    def lits(self, values: Any) -> str:
        """Literals of ``values``, comma-separated (a category list: one call, not one
        filter call per category in a template)."""
        return _joined_literals(self, tuple(values))

    def file_lit(self, path: str) -> str:
        """One file's path as a string literal for a reader that expands glob patterns
        (DuckDB's ``read_parquet``): ``*``, ``?`` and ``[`` are each escaped as a
        one-character class, so the literal names that file and no other.

        >>> print(DUCKDB.file_lit("/exports/run[1]/model*.parquet"))
        '/exports/run[[]1]/model[*].parquet'
        """
        return self.lit(re.sub(r"([*?\[])", r"[\1]", path))

    def type_name(self, sql_type: str) -> str:
        """How this engine spells a column type recorded in a model's metadata (DuckDB's
        names: the models are fitted in DuckDB); ``ValueError`` if it has none."""
        return sql_type

    def column_type(self, sql_type: str) -> str:
        """The name this engine describes a column of a metadata type by (what a fit on it
        records, and what a table's DDL may spell); ``ValueError`` if it has none."""
        return self.type_name(sql_type)

    def portable_type(self, sql_type: str) -> str:
        """A type recorded in a model's metadata as DuckDB spells it (what an export
        writes): DuckDB's names are DuckDB's."""
        return sql_type

    def has_type(self, sql_type: str) -> bool:
        """Whether a column type of a model's metadata can be spelt in this dialect."""
        try:
            self.type_name(sql_type)
        except ValueError:
            return False
        return True


DUCKDB = Dialect()


@functools.lru_cache(maxsize=256)
def _double_list(dialect: Dialect, values: tuple[float, ...]) -> str:
    """``Dialect.doubles``, remembered: predict, the macros and ``to_sql`` write the same
    lists."""
    return f"CAST({dialect.string('[' + ', '.join(map(repr, values)) + ']')} AS DOUBLE[])"


@functools.lru_cache(maxsize=64)
def _joined_literals(dialect: Dialect, values: tuple[Any, ...]) -> str:
    """``Dialect.lits``, remembered: every class of a model writes the same categories."""
    return ", ".join(dialect.lit(v) for v in values)


class SparkDialect(Dialect):
    r"""Spark SQL (4.x): backtick identifiers, string literals in which a backslash is an
    escape character, and Spark's type names. See docs/spark.md.

    >>> print(SPARK.ident("we`ird"), SPARK.lit("it's a \\ path"))
    `we``ird` 'it\'s a \\ path'
    >>> SPARK.kind("bigint"), SPARK.kind("decimal(10,2)"), SPARK.kind("array<string>")
    ('integer', 'decimal', 'nested')
    >>> SPARK.type_name("VARCHAR"), SPARK.type_name("UBIGINT")
    ('STRING', 'DECIMAL(20,0)')
    """

    name = "spark"
    title = "Spark SQL"
    stored_scoring = "functions"
    joins_lookups = False
    identifier_quote = "`"
    # As Spark describes columns (DataFrame.dtypes, DESCRIBE) and as its SQL spells them.
    type_kinds: ClassVar[dict[str, str]] = {
        **dict.fromkeys(("TINYINT", "BYTE", "SMALLINT", "SHORT", "INT", "INTEGER", "BIGINT",
                         "LONG"), "integer"),
        **dict.fromkeys(("FLOAT", "REAL", "DOUBLE"), "float"),
        "BOOLEAN": "bool",
        "STRING": "text",
        "VARIANT": "nested",
    }
    type_prefixes: ClassVar[tuple[tuple[str, str], ...]] = (
        ("DECIMAL", "decimal"),
        ("DEC(", "decimal"),
        ("NUMERIC", "decimal"),
        ("VARCHAR(", "text"),
        ("CHAR(", "text"),
        ("STRING COLLATE", "text"),
        ("ARRAY<", "nested"),
        ("MAP<", "nested"),
        ("STRUCT<", "nested"),
    )
    # DuckDB type names with a different Spark spelling. Unsigned integers widen to the
    # next signed type that holds every value (UBIGINT and HUGEINT to decimals).
    duckdb_types: ClassVar[dict[str, str]] = {
        "VARCHAR": "STRING",
        "TEXT": "STRING",
        "INTEGER": "INT",
        "HUGEINT": "DECIMAL(38,0)",
        "UTINYINT": "SMALLINT",
        "USMALLINT": "INT",
        "UINTEGER": "BIGINT",
        "UBIGINT": "DECIMAL(20,0)",
        "REAL": "FLOAT",
        "TIMESTAMP": "TIMESTAMP_NTZ",  # Spark's TIMESTAMP is in the session's time zone
    }
    # DuckDB types Spark can hold, spelt the same way by both.
    shared_types = frozenset({"TINYINT", "SMALLINT", "BIGINT", "FLOAT", "DOUBLE", "BOOLEAN",
                              "DATE"})

    def type_name(self, sql_type: str) -> str:
        upper = sql_type.upper()
        if upper in self.duckdb_types:
            return self.duckdb_types[upper]
        if upper.startswith("ENUM("):  # an ENUM's values are text
            return "STRING"
        if upper in self.shared_types or re.fullmatch(r"DECIMAL\(\d+, ?\d+\)", upper):
            return upper
        if self.kind(upper) in ("integer", "float", "bool", "text"):  # a Spark name already
            return upper
        raise ValueError(f"the type {sql_type} has no Spark SQL equivalent")

    # Spark's type names (as DataFrame.dtypes spells them) with another DuckDB spelling.
    spark_to_duckdb: ClassVar[dict[str, str]] = {
        "STRING": "VARCHAR", "INT": "INTEGER", "LONG": "BIGINT", "SHORT": "SMALLINT",
        "BYTE": "TINYINT", "TIMESTAMP_NTZ": "TIMESTAMP", "TIMESTAMP": "TIMESTAMP WITH TIME ZONE",
    }

    def column_type(self, sql_type: str) -> str:
        """As Spark describes a column (``DataFrame.dtypes``: lowercase), so a model
        imported into Spark records the names a fit on Spark records.

        >>> SPARK.column_type("VARCHAR"), SPARK.column_type("TIMESTAMP")
        ('string', 'timestamp_ntz')
        """
        return self.type_name(sql_type).lower()

    def portable_type(self, sql_type: str) -> str:
        """A type recorded in a model's metadata as DuckDB spells it (what an export
        writes): Spark's lowercase names are translated, DuckDB's pass unchanged.

        >>> SPARK.portable_type("string"), SPARK.portable_type("decimal(10,2)")
        ('VARCHAR', 'DECIMAL(10,2)')
        """
        if sql_type != sql_type.lower():
            return sql_type
        return self.spark_to_duckdb.get(sql_type.upper(), sql_type.upper())

    def regex(self, pattern: str) -> str:
        r"""The RE2 pattern in Java's syntax, matching what RE2 matches: ``(?d)`` makes
        ``\n`` the only line terminator (``.``, ``^`` and ``$`` treat ``\r``, ``\u0085``,
        ``\u2028`` and ``\u2029`` as RE2 does), ``(?u)`` folds case the Unicode way under
        ``(?i)`` (as RE2), and each ``\b``/``\B`` outside a character class becomes RE2's
        ASCII word boundary written with look-around (Java 17's ``\b`` is Unicode-aware);
        a named group ``(?P<name>…)`` becomes a plain one (Java spells names otherwise).

        >>> print(SPARK.regex(r"\bab\b"))
        (?du)(?:(?<=[0-9A-Za-z_])(?![0-9A-Za-z_])|(?<![0-9A-Za-z_])(?=[0-9A-Za-z_]))ab(?:(?<=[0-9A-Za-z_])(?![0-9A-Za-z_])|(?<![0-9A-Za-z_])(?=[0-9A-Za-z_]))
        """
        out, i, in_class = [], 0, False
        while i < len(pattern):
            char = pattern[i]
            if char == "\\" and i + 1 < len(pattern):
                escaped = pattern[i + 1]
                if not in_class and escaped in "bB":
                    out.append(_ASCII_BOUNDARY if escaped == "b" else _ASCII_NON_BOUNDARY)
                else:
                    out.append(pattern[i:i + 2])
                i += 2
                continue
            named = _NAMED_GROUP.match(pattern, i) if not in_class else None
            if named:  # Java's group names allow no _: the group is taken by number anyway
                out.append("(")
                i = named.end()
                continue
            if char == "[" and not in_class:
                in_class = True
                out.append(char)
                for lead in ("^", "]"):  # a class's literal ] (first, after any ^)
                    if pattern[i + 1:i + 2] == lead:
                        out.append(lead if lead == "^" else r"\]")
                        i += 1
            else:
                in_class = in_class and char != "]"
                out.append(char)
            i += 1
        return "(?du)" + "".join(out)

    def ident(self, name: str) -> str:
        """As for DuckDB, with backticks; a name holding ``${`` is refused (see ``string``):
        a backticked name has no escape that could hide it."""
        if isinstance(name, str) and "${" in name:
            raise ValueError(f"Spark SQL would substitute a variable into the name {name!r}")
        return super().ident(name)

    def doubles(self, values: Any) -> str:
        return "array(" + ", ".join(self.lit(float(v)) for v in values) + ")"

    def string(self, value: str) -> str:
        # Spark unescapes a literal's backslash sequences (\n, \', \\ …): every backslash
        # and quote is escaped, so the text arrives as written. Spark also substitutes
        # ${name} (its settings, environment variables) anywhere in a statement's text
        # before parsing it: a dollar sign is written as the escape \u0024. Other
        # characters, line breaks included, stand in a literal as they are.
        if "\x00" in value:
            raise ValueError("string literal contains a NUL byte")
        escaped = value.replace("\\", "\\\\").replace("'", "\\'").replace("$", "\\u0024")
        return "'" + escaped + "'"

    def comment(self, text: Any) -> str:
        """As for DuckDB, and: a backslash ending the text is followed by a space (in Spark
        a backslash right before the line break continues a ``--`` comment on the next
        line), and ``${`` is split (Spark would substitute a variable there)."""
        flat = super().comment(text).replace("${", "$ {")
        return flat + " " if flat.endswith("\\") else flat


# A named group as Python and RE2 write it.
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")
# RE2's \b and \B (ASCII word characters), in Java's syntax.
_ASCII_WORD = "[0-9A-Za-z_]"
_ASCII_BOUNDARY = (f"(?:(?<={_ASCII_WORD})(?!{_ASCII_WORD})|(?<!{_ASCII_WORD})(?={_ASCII_WORD}))")
_ASCII_NON_BOUNDARY = (f"(?:(?<={_ASCII_WORD})(?={_ASCII_WORD})|(?<!{_ASCII_WORD})(?!{_ASCII_WORD}))")

SPARK = SparkDialect()
DIALECTS: dict[str, Dialect] = {"duckdb": DUCKDB, "spark": SPARK}


def same_type(first: str, second: str) -> bool:
    """Whether two type names of a model's metadata or tables name the same type, each
    as DuckDB spells it or as Spark describes a column (a model fitted on Spark records
    Spark's lowercase names, an export DuckDB's): compared as DuckDB spells them, so
    ``string`` is ``VARCHAR`` but Spark's ``timestamp`` (in a time zone) is not DuckDB's
    ``TIMESTAMP``.

    >>> same_type("string", "VARCHAR"), same_type("int", "INTEGER"), same_type("DOUBLE", "double")
    (True, True, True)
    >>> same_type("timestamp", "TIMESTAMP"), same_type("string", "BIGINT")
    (False, False)
    """
    def spelt(sql_type: str) -> str:
        return SPARK.portable_type(sql_type).replace(" ", "").upper()

    return spelt(first) == spelt(second)


def dialect_named(name: Any) -> Dialect:
    """The dialect called ``name`` (``"duckdb"`` or ``"spark"``).

    >>> dialect_named("spark").name
    'spark'
    """
    if not isinstance(name, str) or name not in DIALECTS:
        from ..errors import InvalidParameterError

        raise InvalidParameterError(
            f"dialect must be one of {', '.join(map(repr, DIALECTS))}, got {name!r}"
        )
    return DIALECTS[name]
