"""The Spark SQL engine: statements run through a SparkSession (classic or Connect).

Models live in the session's catalog as versioned tables; see ``docs/spark.md``.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import (
    InvalidDataError,
    InvalidParameterError,
    UnknownColumnError,
    UnsupportedError,
)
from .base import Capabilities, Engine
from .dialects import SPARK
from .source import Source

_spark_names = itertools.count()
# Files a Spark source reads with the DataFrame reader, by suffix (compressed ones too).
_SPARK_READERS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "csv",
                  ".json": "json", ".ndjson": "json"}
_VERSION_SUFFIX = "__v"
_NEXT_SUFFIX = "__next"  # what an upsert writes before it takes the version's name


class SparkEngine(Engine):
    """An engine over a SparkSession (pyspark 4, the ``spark`` extra).

    Statements run one at a time through ``spark.sql``; results are Spark DataFrames,
    evaluated lazily, with the columns DuckDB's relations have. Sources are catalog tables
    and views, Parquet/CSV/JSON paths and globs, Spark DataFrames and pandas DataFrames
    (the last three registered as uniquely named temporary views, dropped as soon as the
    statement reading them is analysed: a DataFrame keeps its analysed plan).

    Spark has no multi-statement transactions, no ``INSERT ... ON CONFLICT`` and no
    macros (``capabilities``); a statistics table is rewritten as a new table version
    (:meth:`versioned`) and switched to when it is complete. ``database`` is the Spark
    database (schema) that holds what the engine writes, by default the session's
    current one. See docs/spark.md.

    >>> engine = SparkEngine(spark, database="sqlnb")  # doctest: +SKIP
    >>> engine.fetch("SELECT 1 + 1")                    # doctest: +SKIP
    [(2,)]
    """

    dialect = SPARK
    capabilities = Capabilities(upsert=False, transactions=False, temp_tables=False,
                                duckdb_only=False, list_lambdas=False)

    def __init__(self, session: Any, database: str | None = None) -> None:
        from pyspark.errors import AnalysisException, PySparkException

        self.connection = session
        # a Spark Connect session (the client of a remote server), else a classic one
        self.connect = type(session).__module__.startswith("pyspark.sql.connect")
        if database is not None and (not isinstance(database, str) or not database):
            raise InvalidParameterError(
                f"database must be the name of a Spark database, got {database!r}")
        self.database = database or session.catalog.currentDatabase()
        self.missing_relation_errors = (AnalysisException,)
        self.unreadable_errors = (AnalysisException,)
        self.invalid_argument_errors = (PySparkException,)
        self._writes: contextlib.ExitStack | None = None  # the versions a write stages
        self._after_switch: list[Callable[[], None]] = []  # (see after_write)
        # during a write: the catalog as first read (the names of tables and views, those
        # of views, read only if asked, functions), kept
        # current through the DDL the write itself runs (see _note), so it is read once
        self._known: dict[str, str] | None = None
        self._known_views: set[str] | None = None
        self._known_functions: set[str] | None = None
        self._keeps_catalog = False
        self._carried: set[str] | None = None  # the tables a staged write carries over
        self._prelude = False  # a writer's reads before its write keep the catalog
        # reads made ahead of their callers, by text (see prefetch)
        self._prefetched: dict[str, tuple[list[str], list[tuple]]] = {}
        self._dry: DryRun | None = None  # a dry run under way (see rolled_back)
        # scripts a write runs only if one of its statements names what they create (defer)
        self._deferred: list[tuple[list[str], str]] = []  # (names created, script)

    # ------------------------------------------------------------------ statements
    def execute(self, sql: str) -> None:
        """Run a script: Spark takes one statement per call, so it is split at the
        semicolons that end statements (not those inside literals, names or comments)."""
        for statement in split_statements(sql):
            if self._dry is not None:
                self._dry.statements.append(statement)
                if self._dry.leaves(statement, self.database):
                    continue  # what the write would change of the catalog as it was
            if self._absent(statement):
                continue  # dropping what the write's catalog knows is not there
            try:
                self._sql(statement)
            except BaseException:
                self._forget_catalog()
                raise
            self._note(statement)

    def _sql(self, statement: str, **kwargs: Any) -> Any:
        """``spark.sql(statement)``, after any deferred script (:meth:`defer`) creating a
        relation that ``statement`` names."""
        if self._deferred:
            lowered = statement.lower()
            wanted = [entry for entry in self._deferred
                      if any(name in lowered for name in entry[0])]
            for entry in wanted:
                self._deferred.remove(entry)
                self.execute(entry[1])
        return self.connection.sql(statement, **kwargs)

    def defer(self, script: str) -> None:
        """Keep ``script`` (statements creating views) for the first statement of the
        current write that names one of the views it creates: none may, a write's reads
        being answered from a copy of its statistics (:meth:`read_tables`). Forgotten when
        the write ends; outside a write, run at once."""
        names = []
        for statement in split_statements(script):
            found = _CATALOG_CHANGE.match(_CODE_START.sub("", statement))
            if found is None or found.group("verb").upper() != "CREATE":
                self.execute(script)  # (not only views created: nothing to defer)
                return
            names.append(_names_in(found.group("names"))[0][1].lower())
        if self._writes is None or not names:
            self.execute(script)
        else:
            self._deferred.append((names, script))

    def _absent(self, statement: str) -> bool:
        """Whether ``statement`` is a ``DROP … IF EXISTS`` of a table, view or function of
        the engine's database that the catalog a write keeps (see :meth:`_note`) does not
        have: a statement with nothing to do, left out."""
        if self._known is None or not self._keeps_catalog:
            return False
        text = _CODE_START.sub("", statement)
        found = _CATALOG_CHANGE.match(text)
        if (found is None or found.group("verb").upper() != "DROP"
                or not re.search(r"\bIF\s+EXISTS\b", text[:found.start("names")], re.IGNORECASE)):
            return False
        names = _names_in(found.group("names"))
        if len(names) != 1 or (names[0][0] or "").lower() != self.database.lower():
            return False
        name = names[0][1].lower()
        if found.group("kind").upper() == "FUNCTION":
            return self._known_functions is not None and name not in self._known_functions
        return name not in self._known

    def _forget_catalog(self) -> None:
        self._known, self._known_views, self._known_functions = None, None, None

    def _note(self, statement: str) -> None:
        """Keep the catalog a write read current through ``statement`` (one it ran): a
        table, view or function of the engine's database it created, dropped or renamed;
        a statement of another kind that may change the catalog forgets it (read again)."""
        if self._known is None and self._known_functions is None:
            return
        text = _CODE_START.sub("", statement)
        if _NO_CATALOG_CHANGE.match(text):
            return
        found = _CATALOG_CHANGE.match(text)
        if found is not None and re.search(r"\bTEMPORARY\b", text[:found.start("kind")],
                                           re.IGNORECASE):
            return  # a view or function of the session: none of the database's
        names = [] if found is None else _names_in(found.group("names"))
        if found is None or any(db is None for db, _ in names):
            self._forget_catalog()  # (a name without its database: the session's current)
            return
        if any((db or "").lower() != self.database.lower() for db, _ in names):
            return  # another database's
        verb, kind = found.group("verb").upper(), found.group("kind").upper()
        lowered = [name.lower() for _, name in names]
        if kind == "FUNCTION":
            if self._known_functions is not None:
                (self._known_functions.add if verb == "CREATE"
                 else self._known_functions.discard)(lowered[0])
            return
        if self._known is None:
            return
        tables, views = self._known, self._known_views
        if views is None:
            views = set()  # (not read: nothing to keep current)
        if verb == "CREATE":
            tables[lowered[0]] = names[0][1]
            if kind == "VIEW":
                views.add(lowered[0])
        elif verb == "DROP":
            tables.pop(lowered[0], None)
            if kind == "VIEW":
                views.discard(lowered[0])
        elif len(names) == 2:  # ALTER TABLE a RENAME TO b
            tables.pop(lowered[0], None)
            tables[lowered[1]] = names[1][1]
            if lowered[0] in views:
                views.discard(lowered[0])
                views.add(lowered[1])
        else:
            self._forget_catalog()

    def fetch(self, sql: str, parameters: list[Any] | None = None) -> list[tuple]:
        """The rows of ``sql``; ``parameters`` bind to its ``?`` markers."""
        if parameters is None and sql in self._prefetched:
            return self._prefetched.pop(sql)[1]
        return [tuple(row) for row in self._sql(sql, args=parameters).collect()]

    def fetch_with_names(self, sql: str) -> tuple[list[str], list[tuple]]:
        if sql in self._prefetched:
            return self._prefetched.pop(sql)
        frame = self._sql(sql)
        return list(frame.columns), [tuple(row) for row in frame.collect()]

    def fetch_together(self, queries: list[str]) -> list[tuple[list[str], list[tuple]]]:
        """One statement for several small reads: each query's rows gathered as an array of
        structs (numbered in the query's order, so that its ORDER BY holds), each a column
        of the one row it returns (``catalog/versions.sql#together``)."""
        if len(queries) < 2 or all(query in self._prefetched for query in queries):
            return [self.fetch_with_names(query) for query in queries]
        return [(names, rows) for _, names, rows in
                self._together([query.rstrip().rstrip(";") for query in queries])]

    def _together(self, queries: list[str]) -> list[tuple[Any, list[str], list[tuple]]]:
        """Run ``queries`` as one statement (``catalog/versions.sql#together``): per query,
        the struct type of its rows, its column names and its rows in the query's order."""
        frame = self._sql(self.render("catalog/versions.sql#together", queries=queries))
        found = []
        for field, rows in zip(frame.schema.fields, frame.first()):
            element = field.dataType.elementType
            ordered = [tuple(r)[1:] for r in sorted(rows, key=lambda r: r[0])]
            found.append((element, list(element.fieldNames())[1:], ordered))
        return found

    def prefetch(self, queries: list[str]) -> None:
        """Read ``queries`` now, in one statement (:meth:`fetch_together`), for the
        ``fetch``/``fetch_with_names`` of the same text that follow (each answered once).
        If that statement fails, nothing is kept: each read then runs when asked, in the
        caller's order, so the error is the one the caller's own checks raise first."""
        queries = [q for q in dict.fromkeys(queries) if q not in self._prefetched]
        if len(queries) < 2:
            return
        try:
            found = self.fetch_together(queries)
        except Exception:  # noqa: BLE001 - asked again one by one, where it is raised
            return
        self._prefetched.update(zip(queries, found))

    def read_tables(self, queries: list[str], tables: dict[str, str]
                    ) -> tuple[list[tuple[list[str], list[tuple]]], dict[str, Any]]:
        """One statement (``catalog/versions.sql#together``): the rows of ``queries`` and
        every row of each of ``tables`` (local name -> quoted table), the latter as Arrow
        tables with the Arrow types of their Spark columns. A query over a view that
        joins, groups or numbers rows costs Spark a job per stage; the same query over a
        copy in the driver (``engines.duckdb.of_tables``) costs none."""
        import pyarrow as pa
        from pyspark.sql.pandas.types import to_arrow_schema

        reads = [query.rstrip().rstrip(";") for query in queries]
        reads += [self.render("catalog/versions.sql#rows", table=table)
                  for table in tables.values()]
        together = self._together(reads)
        found = [(names, rows) for _, names, rows in together[:len(queries)]]
        copies = {local: pa.Table.from_pylist([dict(zip(names, r)) for r in rows],
                                              schema=to_arrow_schema(
                                                  type(element)(element.fields[1:])))
                  for local, (element, names, rows) in zip(tables, together[len(queries):])}
        return found, copies

    def prefill(self, answers: dict[str, tuple[list[str], list[tuple]]]) -> None:
        self._prefetched.update(answers)

    def forget_prefetched(self) -> None:
        """Drop what :meth:`prefetch` read and no read took (the end of a write)."""
        self._prefetched.clear()

    def relation(self, sql: str) -> Any:
        """A Spark DataFrame: nothing runs until an action (``collect``, ``write``…)."""
        return self._sql(sql)

    def arrow(self, sql: str) -> Any:
        return self._sql(sql).toArrow()

    def table(self, name: str) -> str:
        """``name`` in the engine's database, quoted: ```db`.`name```. Spark's session
        catalog names tables with letters, digits and ``_`` only: another name (a model's,
        which prefixes its tables' names) is refused before anything is written."""
        if not re.fullmatch(r"[A-Za-z0-9_]+", name):
            raise InvalidParameterError(
                f"{name!r} cannot name a table in Spark's catalog, which allows only letters, "
                "digits and _ in table names: name the model with those only")
        return self.dialect.ident(self.database) + "." + self.dialect.ident(name)

    # ------------------------------------------------------------------ sources
    def source(self, obj: Any) -> Source:
        """A FROM-clause fragment for ``obj`` and its columns with Spark's type names."""
        registered = None
        if isinstance(obj, str) and not _spark_reader(obj) and not _looks_like_path(obj):
            sql = self.dialect.qualified(obj)
        else:
            frame = self._frame(obj)
            registered = f"__sqlnb_source_{os.getpid()}_{next(_spark_names)}"
            frame.createOrReplaceTempView(registered)
            # the view's columns are the frame's: no statement to ask them
            return Source(sql=self.dialect.ident(registered), columns=dict(frame.dtypes),
                          registered=registered)
        try:
            query = self.render("catalog/versions.sql#columns", table=sql)
            columns = dict(self.connection.sql(query).dtypes)
        except self.missing_relation_errors as exc:
            if registered:
                self.connection.catalog.dropTempView(registered)
            raise UnknownColumnError(
                f"cannot read source {obj!r}: {str(exc).splitlines()[0]}") from exc
        return Source(sql=sql, columns=columns, registered=registered)

    def _frame(self, obj: Any) -> Any:
        """A Spark DataFrame reading ``obj`` (a path, a list of paths, a DataFrame)."""
        from pyspark.sql import DataFrame

        if isinstance(obj, DataFrame):
            return obj
        if type(obj).__module__.split(".")[0] == "pandas":
            return self.connection.createDataFrame(obj)
        paths = [obj] if isinstance(obj, (str, os.PathLike)) else obj
        if not (isinstance(paths, (list, tuple)) and paths
                and all(isinstance(p, (str, os.PathLike)) for p in paths)):
            raise InvalidDataError(
                "a Spark source must be a table or view name, a Parquet/CSV/JSON path or glob "
                f"(or a list of them), a Spark DataFrame or a pandas DataFrame; got "
                f"{type(obj).__name__}")
        paths = [os.fspath(p) for p in paths]
        reader = _spark_reader(paths[0]) or "parquet"
        options = {"header": True, "inferSchema": True} if reader == "csv" else {}
        if paths[0].lower().endswith((".tsv", ".tsv.gz")):
            options["sep"] = "\t"
        try:
            return getattr(self.connection.read.options(**options), reader)(*paths)
        except self.missing_relation_errors as exc:
            raise UnknownColumnError(
                f"cannot read source {obj!r}: {str(exc).splitlines()[0]}") from exc

    def lazy(self, source: Source, sql: str, parameters: list[Any] | None = None) -> Any:
        """The DataFrame of ``sql``. In a classic session the source's temporary view is
        dropped at once (the DataFrame holds the analysed plan, which no longer needs the
        view's name); through Spark Connect, where the server analyses the statement only
        when it runs, the view lives as long as the DataFrame's plan (:meth:`hold`)."""
        try:
            result = self._sql(sql, args=parameters)
        except BaseException:
            self.release(source)
            raise
        return self.hold(result, source)

    def hold(self, result: Any, *sources: Source) -> Any:
        if not self.connect:
            for source in sources:
                self.release(source)
            return result
        # A Connect DataFrame is a plan sent at each action; what is derived from it
        # (select, where…) embeds that plan object, so the views go when it does.
        views = [s.registered for s in sources if s.registered is not None]
        for source in sources:
            source.registered = None  # the finalizer's now, not the caller's to release
        if views:
            finalizer = weakref.finalize(getattr(result, "_plan", result), _drop_temp_views,
                                         self.connection, views)
            finalizer.atexit = False  # the session is gone by then, and its views with it
        return result

    def release(self, source: Source) -> None:
        if self._prelude and self._writes is None:  # a writer gave up before its write
            self._prelude = self._keeps_catalog = False
            self._forget_catalog()
        if source.registered is not None:
            self.connection.catalog.dropTempView(source.registered)
            source.registered = None

    # ------------------------------------------------------------------ atomicity
    def in_transaction(self) -> bool:
        return False  # Spark SQL has no transactions

    def refuse_open_transaction(self, what: str = "this call", *, scratch: bool = False) -> None:
        """Nothing to refuse: a Spark session never has a transaction open. A writer calls
        this before its first read: the catalog it reads from here on is kept for its
        write (:meth:`transaction`), so it is read once per write, not once before and
        once inside it."""
        if self._writes is None:
            self._forget_catalog()
            self._keeps_catalog = self._prelude = True

    @contextlib.contextmanager
    def transaction(self, what: str = "this call", *, join: bool = False,
                    checked: bool = False) -> Iterator[None]:
        """No transaction: each statement commits on its own. What must be atomic is
        written as new table versions (:meth:`stage`), switched to when the block ends
        and dropped if it raises. A block inside another one joins it."""
        if self._writes is not None:
            yield
            return
        if not self._prelude:  # (else kept from the writer's reads just before)
            self._forget_catalog()
        self._prelude = False
        self._keeps_catalog = True
        try:
            self._after_switch = []
            with contextlib.ExitStack() as writes:
                self._writes = writes
                try:
                    yield
                finally:
                    self._writes = None
            while self._after_switch:  # (the block switched to every staged version)
                self._after_switch.pop(0)()
        finally:  # (after what the write's switch runs)
            self._keeps_catalog = False
            self._forget_catalog()
            self._prefetched.clear()
            self._deferred.clear()

    def after_write(self, callback: Callable[[], None]) -> None:
        """Inside :meth:`transaction`: ``callback`` runs once the block has switched to
        every version it staged (not if it raises); outside one, now."""
        if self._writes is None:
            callback()
        else:
            self._after_switch.append(callback)

    def stage(self, names: list[str], done: Callable[[bool], None]) -> int:
        """Inside :meth:`transaction`: the tables ``names`` (the last one the switch, see
        :meth:`versioned_together`) get a new version number, returned; the caller creates
        each ``version_table(name, k)``. When the transaction's block ends the views are
        switched to them (or, if it raised, they are dropped); then ``done(switched)`` runs.
        """
        if self._writes is None:
            raise RuntimeError("SparkEngine.stage needs an open engine.transaction()")

        def finished(exc_type: Any, exc: Any, tb: Any) -> bool:
            done(exc_type is None)
            return False

        self._writes.push(finished)
        targets = self._writes.enter_context(self.versioned_together(names))
        version = targets[names[-1]]
        return int(version[version.rindex(_VERSION_SUFFIX) + len(_VERSION_SUFFIX):-1])

    def relations(self, names: list[str], macro_names: list[str]) -> dict[str, str]:
        """As for DuckDB, from the catalog: a view switched between table versions is
        ``VERSIONED``; a SQL function of the database (the scoring functions, asked only
        of ``macro_names``) is ``FUNCTION``."""
        tables = self._catalog()
        functions = self._functions() if macro_names else set()
        found: dict[str, str] = {}
        for name in names:
            if name in tables and self._version_tables(name, tables):
                found[name] = "VERSIONED"  # (the views over versions; no need to ask)
            elif name in tables:
                found[name] = "VIEW" if name in self._views() else "TABLE"
            elif name in macro_names and name in functions:
                found[name] = "FUNCTION"
        return found

    def _functions(self) -> set[str]:
        """The (lowercased) names of the SQL functions of the engine's database. Spark
        lists them qualified (``catalog.database.name``, the name as written, dots and
        all): the prefix is cut at the database's name."""
        if self._known_functions is not None:
            return set(self._known_functions)
        database = self.dialect.ident(self.database)
        prefix = "." + self.database.lower() + "."
        found = set()
        for row in self.connection.sql(self.render("catalog/versions.sql#functions", database=database)).collect():
            qualified = row[0].lower()
            if prefix in qualified:
                found.add(qualified[qualified.index(prefix) + len(prefix):])
        if self._keeps_catalog:  # a write keeps it (see _note)
            self._known_functions = set(found)
        return found

    def _catalog(self) -> dict[str, str]:
        """The names of the tables and views in the engine's database (lowercased: as
        written), temporary views included: one cheap statement (``Catalog.listTables``
        reads every table's metadata), run once per write (which then keeps it current,
        see :meth:`_note`)."""
        if self._known is not None:
            return self._known
        database = self.dialect.ident(self.database)
        tables = {row[1].lower(): row[1] for row in self.connection.sql(
            self.render("catalog/versions.sql#tables", database=database)).collect()}
        if self._keeps_catalog:
            self._known = tables
        return tables

    def _views(self) -> set[str]:
        """Those of :meth:`_catalog`'s names that are views: read only when a name is
        asked whose kind its versions do not tell (kept as the catalog is)."""
        if self._known_views is not None:
            return self._known_views
        database = self.dialect.ident(self.database)
        views = {row[1].lower() for row in self.connection.sql(
            self.render("catalog/versions.sql#views", database=database)).collect()}
        if self._keeps_catalog and self._known is not None:
            self._known_views = views
        return views

    def column_names(self, table: str) -> set[str]:
        query = self.render("catalog/versions.sql#columns", table=self.table(table))
        try:
            return set(self.connection.sql(query).columns)
        except self.missing_relation_errors:
            return set()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        yield

    @contextlib.contextmanager
    def rolled_back(self, what: str = "this call") -> Iterator[DryRun]:
        """A dry run: the block's write runs for real, as one :meth:`transaction`, on what
        it stages (new table versions, scratch tables), and every statement it runs or
        would run is kept in order (``DryRun.statements``), the switch at its end
        included. A statement that would change what the catalog held when the dry run
        began (switch a model's view, drop its old version, replace its parameter views,
        drop or create its functions) is kept but not run; a function is never created.
        At the end, raising or not, what the dry run created is dropped again
        (``DryRun.created`` names its tables), so the catalog is as it was.

        >>> with engine.rolled_back("fit_sql") as dry:   # doctest: +SKIP
        ...     model.fit("rows", "y")
        >>> dry.statements                                # doctest: +SKIP
        """
        if self._dry is not None or self._writes is not None:
            raise UnsupportedError(f"{what} is a dry run, which cannot run inside a write")
        dry = DryRun(before=self._listing())
        self._dry = dry
        try:
            with self.transaction(what):
                yield dry
        finally:
            self._dry = None
            self._discard(dry)

    def _listing(self) -> dict[str, str]:
        """The engine's database as it is now (never the kept catalog of a write): every
        table, view and function, lowercased name -> kind (``TABLE``, ``VIEW``,
        ``TEMPORARY VIEW``, ``FUNCTION``)."""
        database = self.dialect.ident(self.database)
        found: dict[str, str] = {}
        for row in self.connection.sql(self.render("catalog/versions.sql#tables",
                                                   database=database)).collect():
            found[row[1].lower()] = "TEMPORARY VIEW" if row[2] else "TABLE"
        for row in self.connection.sql(self.render("catalog/versions.sql#views",
                                                   database=database)).collect():
            if not row[2]:
                found[row[1].lower()] = "VIEW"
        found.update(dict.fromkeys(self._functions(), "FUNCTION"))  # (no write: read now)
        return found

    def _discard(self, dry: DryRun) -> None:
        """Drop what the dry run ``dry`` left that was not there when it began (its
        tables are named in ``dry.created``); the catalog of the write is read again."""
        self._forget_catalog()
        left = {name: kind for name, kind in self._listing().items()
                if name not in dry.before}
        dry.created = [self.table(name) for name, kind in sorted(left.items())
                       if kind == "TABLE"]
        for name, kind in sorted(left.items()):
            if kind == "TEMPORARY VIEW":
                self.connection.catalog.dropTempView(name)
                continue
            macro = {"TABLE": "drop", "VIEW": "drop_view", "FUNCTION": "drop_function"}[kind]
            self.connection.sql(self.render(f"catalog/versions.sql#{macro}",
                                            table=self.table(name)))

    # ------------------------------------------------------------------ versions
    def current_version(self, name: str) -> int | None:
        """The version the view ``name`` reads (``name__v<k>``), or None if there is none."""
        if name.lower() not in self._catalog() or not self._version_tables(name):
            return None
        versions = [v for v, t in self._version_tables(name)
                    if not t.lower().endswith(_NEXT_SUFFIX)]
        if len(versions) == 1:  # the only version there is: the one the view reads
            return versions[0]
        text = " ".join(str(v) for v in self.connection.sql(
            self.render("catalog/versions.sql#show", table=self.table(name))).first())
        quoted = self.dialect.ident(name + _VERSION_SUFFIX)[:-1]  # `name__v, then digits`
        found = re.findall(re.escape(quoted) + r"(\d+)`", text, flags=re.IGNORECASE)
        return int(found[-1]) if found else None

    def versions(self, name: str) -> list[int]:
        """Every table version of ``name`` in the database, current or left over."""
        return sorted({v for v, _ in self._version_tables(name)})

    def _version_tables(self, name: str, tables: dict[str, str] | None = None
                        ) -> list[tuple[int, str]]:
        """Every table of a version of ``name``: (version, table name), the scratch tables
        an upsert writes (``name__v<k>__next``) included. ``tables``: the catalog's names,
        if read already."""
        prefix = (name + _VERSION_SUFFIX).lower()
        found = []
        for lower, table in (self._catalog() if tables is None else tables).items():
            rest = lower[len(prefix):].removesuffix(_NEXT_SUFFIX)
            if lower.startswith(prefix) and rest.isdigit():
                found.append((int(rest), table))
        return found

    @contextlib.contextmanager
    def versioned(self, name: str) -> Iterator[str]:
        """Write a new version of the table ``name``: the block creates the table whose
        quoted name it is given (``CREATE TABLE <it> AS ...``); when the block ends, the
        view ``name`` is switched to it in one statement and older versions are dropped.
        If the block raises, the view still reads the previous version and the partial
        one is dropped; a version a killed writer left behind is dropped by the next write.

        >>> with engine.versioned("m_class_stats") as new:   # doctest: +SKIP
        ...     engine.execute(engine.render("my_statistics.sql", into=new))
        """
        with self.versioned_together([name]) as targets:
            yield targets[name]

    @contextlib.contextmanager
    def versioned_together(self, names: list[str]) -> Iterator[dict[str, str]]:
        """:meth:`versioned` for tables that change together (a model's statistics and
        its metadata): the block creates every new version (by name, quoted), the last
        name last. They share one version number, and the view of the last name is the
        switch: readers that take the version from it (:meth:`current_version`) and read
        :meth:`version_table` see every table of one write, never a mix. The other views
        follow it; a failure before the switch leaves every view on the old version.
        """
        switch = names[-1]
        current = self.current_version(switch)
        # each view reads the newest version of its table up to the switch's (a table an
        # earlier write carried over keeps its older number); the others are a failed or
        # killed earlier write's
        found = {name: self._version_tables(name) for name in names}
        live = {name: max((v for v, t in tables if not t.lower().endswith(_NEXT_SUFFIX)
                           and current is not None and v <= current), default=None)
                for name, tables in found.items()}
        stale = {name: [(v, t) for v, t in tables if v != live[name]
                        or t.lower().endswith(_NEXT_SUFFIX)] for name, tables in found.items()}
        for tables in stale.values():
            for _, table in tables:
                self.execute(self.render("catalog/versions.sql#drop", table=self.table(table)))
        new = max([current or 0, *(v for vs in stale.values() for v, _ in vs)]) + 1
        targets = {name: self.version_table(name, new) for name in names}
        carried: set[str] = set()
        self._carried = carried
        try:
            yield targets
        except BaseException:
            with contextlib.suppress(Exception):
                for target in targets.values():
                    self.execute(self.render("catalog/versions.sql#drop", table=target))
            raise
        finally:
            self._carried = None
        # the switch: one statement, so readers of the view see the old or the new version
        switched = [name for name in [switch, *names[:-1]] if name not in carried]
        for name in switched:
            if (live[name] is None and name.lower() in self._catalog()
                    and name.lower() not in self._views()):
                # the model's table of a write without versions (a model of parts): a
                # view cannot replace a table, so it goes first
                self.execute(self.render("catalog/versions.sql#drop", table=self.table(name)))
            self.execute(self.render("catalog/versions.sql#switch", view=self.table(name),
                                     table=targets[name]))
        for name in switched:
            old = live[name]
            if old is not None:
                self.execute(self.render("catalog/versions.sql#drop",
                                         table=self.version_table(name, old)))

    def carry(self, name: str) -> bool:
        """Inside :meth:`stage`'s write: keep the table ``name`` as its view reads it now (the
        write did not change it) instead of a new version; False where it cannot be carried
        (a name the write does not stage, or a new model's)."""
        carried = self._carried
        if carried is None or name.lower() not in self._catalog():
            return False
        carried.add(name)
        return True

    def drop_stale_views(self, names: list[str]) -> None:
        """Drop the views ``<name>__v<k>`` of ``names`` that a killed writer left behind
        (a staged write's scratch parameter views, see ``Pipeline.stage``)."""
        prefixes = [(name + _VERSION_SUFFIX).lower() for name in names]
        for view in sorted(self._catalog()):
            if any(view.startswith(p) and view[len(p):].isdigit() for p in prefixes):
                self.execute(self.render("catalog/versions.sql#drop_view", table=self.table(view)))

    def scratch_table(self, table: str) -> str:
        """The quoted name an upsert writes the new contents of ``table`` (quoted, from
        :meth:`table`) under before they take its name (``sql.upsert``'s ``into``)."""
        return table[:-1] + _NEXT_SUFFIX + table[-1]

    def version_table(self, name: str, version: int, *, scratch: bool = False) -> str:
        """The quoted name of version ``version`` of the table ``name`` (``scratch``: the
        table an upsert writes before it replaces that version)."""
        return self.table(f"{name}{_VERSION_SUFFIX}{version}{_NEXT_SUFFIX if scratch else ''}")


class DryRun:
    """What a dry run (:meth:`SparkEngine.rolled_back`) ran or would have run, in order
    (``statements``), and, once it is over, the tables it created and dropped again
    (``created``, quoted): those a script of the statements leaves behind."""

    def __init__(self, before: dict[str, str]) -> None:
        self.before = before  # the catalog when it began: lowercased name -> kind
        self.statements: list[str] = []
        self.created: list[str] = []

    def leaves(self, statement: str, database: str) -> bool:
        """Whether the dry run leaves ``statement`` out (keeps it, runs it not): it would
        create a function, or change a table, view or function that was there before
        (a name of another database counts as one). A temporary view is the session's
        scratch, and a table named ``__sqlnb_…`` a write's (its batch, shifts or terms,
        which an update may leave for the next to overwrite): those run, so that the dry
        run's checks and reads see the batch it scans, not one an earlier write left."""
        text = _CODE_START.sub("", statement)
        written = _WRITTEN.match(text)
        if written is not None:
            names = _names_in(written.group("names"))
        elif _NO_CATALOG_CHANGE.match(text):
            return False
        else:
            found = _CATALOG_CHANGE.match(text)
            if found is None:
                return True  # a statement of another shape: not run
            if found.group("kind").upper() == "FUNCTION" and found.group("verb").upper() == "CREATE":
                return True
            if re.search(r"\bTEMPORARY\b", text[:found.start("kind")], re.IGNORECASE):
                return False
            names = _names_in(found.group("names"))
        return any((db is not None and db.lower() != database.lower())
                   or (name.lower() in self.before and not name.startswith(_SCRATCH))
                   for db, name in names)


# The prefix of the scratch tables a write creates and drops (context.RELATIONS' batch,
# shifts and terms, the batches of parts and groups): never a model's answers.
_SCRATCH = "__sqlnb_"
# The start of a statement's code (its leading comments and whitespace), and the shapes of
# the statements a write runs that change the catalog, or cannot (see SparkEngine._note).
_CODE_START = re.compile(r"\A(?:\s+|--[^\r\n]*|/\*.*?\*/)*", re.DOTALL)
_NO_CATALOG_CHANGE = re.compile(r"(?:SELECT|WITH|INSERT|TRUNCATE|SHOW|DESCRIBE|EXPLAIN)\b",
                                re.IGNORECASE)
_NAME = r"(?:`(?:[^`]|``)+`|\w+)(?:\s*\.\s*(?:`(?:[^`]|``)+`|\w+))*"
_CATALOG_CHANGE = re.compile(
    r"(?P<verb>CREATE|DROP|ALTER)\s+(?:OR\s+REPLACE\s+)?(?:TEMPORARY\s+)?"
    r"(?P<kind>TABLE|VIEW|FUNCTION)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?"
    rf"(?P<names>{_NAME}(?:\s+RENAME\s+TO\s+{_NAME})?)(?=[\s(;]|\Z)",
    re.IGNORECASE)
# Statements that write rows into an existing table (a dry run runs them only on its own).
_WRITTEN = re.compile(rf"(?:INSERT\s+(?:INTO|OVERWRITE)(?:\s+TABLE)?|TRUNCATE\s+TABLE)\s+"
                      rf"(?P<names>{_NAME})", re.IGNORECASE)
_PART = re.compile(r"`((?:[^`]|``)+)`|(\w+)")


def _names_in(text: str) -> list[tuple[str | None, str]]:
    """The (database or None, name) pairs of one or two names (``a RENAME TO b``)."""
    pairs = []
    for name in re.split(r"\s+RENAME\s+TO\s+", text, flags=re.IGNORECASE):
        parts = [(q.replace("``", "`") if q else w) for q, w in _PART.findall(name)]
        pairs.append((parts[-2] if len(parts) > 1 else None, parts[-1]))
    return pairs


def split_statements(sql: str) -> list[str]:
    """The statements of a Spark SQL script, without their final semicolons; a semicolon
    inside a string literal (where a backslash escapes the next character), a backticked
    name or a comment does not end a statement. Empty statements are left out.

    >>> split_statements("SELECT ';' AS a; -- x; y\\nSELECT `b;`;")
    ["SELECT ';' AS a", '-- x; y\\nSELECT `b;`']
    """
    statements, start, i, n = [], 0, 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"":
            i += 1
            while i < n and sql[i] != ch:
                i += 2 if sql[i] == "\\" else 1
        elif ch == "`":
            i += 1
            while i < n and sql[i] != "`":
                i += 1
        elif sql.startswith("--", i):
            while i < n and sql[i] not in "\r\n":
                i += 2 if sql[i] == "\\" else 1  # a final backslash continues the comment
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 1
        elif ch == ";":
            statements.append(sql[start:i])
            start = i + 1
        i += 1
    statements.append(sql[start:])
    return [s.strip() for s in statements if _has_code(s)]


def _has_code(statement: str) -> bool:
    """Whether a statement holds more than whitespace and comments."""
    without = re.sub(r"/\*.*?\*/", " ", statement, flags=re.DOTALL)
    without = re.sub(r"--[^\r\n]*", " ", without)
    return bool(without.strip())


def _spark_reader(path: str) -> str | None:
    lower = path.lower()
    for suffix, reader in _SPARK_READERS.items():
        if lower.endswith((suffix, suffix + ".gz", suffix + ".zst", suffix + ".snappy")):
            return reader
    return None


def _looks_like_path(text: str) -> bool:
    """A string naming files rather than a table: a URL, a directory or a glob."""
    return "://" in text or "/" in text or os.sep in text or any(c in text for c in "*?[")


def _drop_temp_views(session: Any, views: list[str]) -> None:
    """Drop the temporary views a collected Connect result read; a session already
    stopped has none left to drop."""
    for view in views:
        try:
            session.catalog.dropTempView(view)
        except Exception:  # noqa: BLE001 - the session or its server is gone
            return
