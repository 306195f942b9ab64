"""The ``sqlnb`` command: fit, score, evaluate and inspect models in a DuckDB file.

Sources are read where they are (a table or view of the database, or a Parquet/CSV path
or glob). Tables and progress are drawn with Rich on a terminal; plots are PNG files drawn
by :mod:`sqlnb.plot`. Bad input prints one line on standard error and exits with status 1
(``sqlnb --debug ...`` shows the traceback). See ``docs/cli.md``.

Install with ``pip install 'sqlnb[cli]'``; the command uses only sqlnb's public Python API.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from typing import Any

import click
import duckdb
from rich.console import Console
from rich.table import Table
from rich.text import Text

import sqlnb
import sqlnb.explain
import sqlnb.plot
from sqlnb import diagnostics
from sqlnb.errors import InvalidParameterError, ModelNotFoundError, SqlnbError

FAMILIES = ("gaussian", "multinomial", "complement", "bernoulli", "categorical", "poisson",
            "auto")
WRITERS = {".parquet": "write_parquet", ".pq": "write_parquet", ".csv": "write_csv"}
PLOT_DPI = 110

# Wide tables stay whole when the output goes to a file or a pipe (Rich assumes 80 columns).
# Labels and names are shown as they are: no Rich markup or emoji codes read into them.
out = Console(highlight=False, markup=False, emoji=False,
              width=None if sys.stdout.isatty() else 200)
_state: dict[str, Any] = {"debug": False}


class CliError(SqlnbError):
    """A problem with the command line itself (a missing file, a bad option value)."""


# ---------------------------------------------------------------------------- helpers
def _split(values: tuple[str, ...]) -> list[str] | None:
    """Comma-separated and repeated option values, as one list (None when absent)."""
    names = [name.strip() for value in values for name in value.split(",") if name.strip()]
    return names or None


def _parse_pairs(pairs: tuple[str, ...], option: str) -> dict[str, Any]:
    """``name=value`` pairs; values are read as JSON when they parse (numbers, lists,
    true/false/null), otherwise kept as text."""
    parsed: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip():
            raise CliError(f"{option} takes name=value, got {pair!r}")
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = text
        parsed[name.strip()] = value
    return parsed


# What the command itself sets on a model, never a --param: the option to use instead.
_SET_BY_COMMAND = {"name": "the MODEL argument", "con": "the DB argument",
                   "family": "--family", "progress": "--progress/--no-progress"}


def _hyperparameters(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``--param`` pairs, refusing the names the command sets itself."""
    parsed = _parse_pairs(pairs, "--param")
    for name in parsed:
        if name in _SET_BY_COMMAND:
            raise CliError(f"--param {name}= is not a hyperparameter: use "
                           f"{_SET_BY_COMMAND[name]}")
    return parsed


def _text_options(pairs: tuple[str, ...], method: Any) -> dict[str, Any]:
    """``--text-option`` pairs, refusing the names of ``method``'s own arguments (the
    source, target, text column, …), which the command passes itself."""
    parsed = _parse_pairs(pairs, "--text-option")
    own = [p.name for p in inspect.signature(method).parameters.values()
           if p.kind is not p.VAR_KEYWORD and p.name != "self"]
    for name in parsed:
        if name in own:
            raise CliError(f"--text-option {name}= is not a text option (CountVectorizer's, "
                           "such as ngram_range or lowercase): the command's arguments and "
                           "options set it")
    return parsed


def _groups(group_by: tuple[str, ...]) -> list[str] | None:
    """The ``--group-by`` columns; an option given with no column name is refused."""
    groups = _split(group_by)
    if group_by and not groups:
        raise CliError(f"--group-by needs column names, got {', '.join(map(repr, group_by))}")
    return groups


def _refuse_other_files(database: str) -> None:
    """An existing DB that is not a DuckDB database file (DuckDB would open a Parquet or
    CSV file as an in-memory database with a view over it, and lose what is written)."""
    try:
        with open(database, "rb") as file:
            header = file.read(12)
    except OSError:
        return  # a directory, unreadable…: DuckDB says what is wrong
    if len(header) < 12 or header[8:12] == b"DUCK":
        return  # (an empty file is not a database either: DuckDB says so)
    kind = " (it is a Parquet file)" if header.startswith(b"PAR1") else ""
    raise CliError(f"{database!r} is not a DuckDB database file{kind}: DB is the DuckDB "
                   "file that holds the models; a Parquet or CSV file is a SOURCE")


def _connect(database: str, *, create: bool = False, read_only: bool = False
             ) -> duckdb.DuckDBPyConnection:
    if os.path.isfile(database):
        _refuse_other_files(database)
    created = None
    if not os.path.exists(database):
        if not create:
            raise CliError(f"database file {database!r} does not exist")
        created = _create_new(database)  # None: another process created it first
    con = sqlnb.connect(database, read_only=read_only)
    _state["con"] = con
    # ours to remove again if the command fails: only while it is the file this process
    # created, unchanged until its connection took DuckDB's lock (another process may have
    # opened and written it in between)
    if created is not None and _identity(database) == created:
        _state["created"] = (database, created[:2])
    sqlnb.progress.silence_duckdb(con)
    _interrupt_on_ctrl_c(con)
    return con


def _identity(path: str) -> tuple[int, int, int, int] | None:
    """Which file is at ``path`` (device, inode) and whether it changed (size, mtime)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns


def _create_new(database: str) -> tuple[int, int, int, int] | None:
    """Create ``database`` as an empty DuckDB database, only if no file is at that path: the
    file is made in a private sibling directory and hard-linked into place, which fails if
    another process (another ``sqlnb fit``) got there first. The new file's identity, or
    None when it was not this process that created it."""
    folder = os.path.dirname(os.path.abspath(database))
    if not os.path.isdir(folder):
        raise CliError(f"the folder {folder!r} of the database file does not exist: create "
                       "it first")
    scratch = tempfile.mkdtemp(prefix=".sqlnb-new-", dir=folder)
    try:
        staged = os.path.join(scratch, "new.duckdb")
        sqlnb.connect(staged).close()
        made = _identity(staged)
        try:
            os.link(staged, database)
        except FileExistsError:
            return None
        except OSError:  # a file system without hard links: create exclusively, then fill
            try:
                handle = os.open(database, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            except FileExistsError:
                return None
            with os.fdopen(handle, "wb") as copy, open(staged, "rb") as empty:
                shutil.copyfileobj(empty, copy)
                copy.flush()
                found = os.fstat(copy.fileno())
            made = (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns)
        return made
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _interrupt_on_ctrl_c(con: duckdb.DuckDBPyConnection) -> None:
    """Make Ctrl-C stop the running query at once. DuckDB looks for a signal only between
    some steps of a query, so a thread woken by the signal interrupts the connection; the
    query's error then takes the abort path, with the transaction rolled back in order
    (a KeyboardInterrupt raised in the middle of that could stop the rollback itself). A
    second Ctrl-C raises KeyboardInterrupt at once."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except ValueError:  # not the main thread (the command run from other code)
        os.close(read_end)
        os.close(write_end)
        return

    def on_ctrl_c(signum: int, frame: Any) -> None:
        if _state.get("interrupted"):
            raise KeyboardInterrupt
        _state["interrupted"] = True

    signal.signal(signal.SIGINT, on_ctrl_c)

    def watch() -> None:
        while True:
            try:
                received = os.read(read_end, 64)
                if signal.SIGINT in received:
                    con.interrupt()
            except (OSError, duckdb.Error):  # the connection is closed: nothing to stop
                return

    threading.Thread(target=watch, name="sqlnb-interrupt", daemon=True).start()


def _discard_created() -> None:
    """A command that failed leaves no new database file behind: the file is removed only
    if this process created it and still holds it (its connection has DuckDB's lock, and
    the same file is at the path), so a file another process opened is never touched."""
    created = _state.pop("created", None)
    con = _state.pop("con", None)
    if con is None:
        return
    try:
        if created is not None:
            with contextlib.suppress(OSError):  # left in place; the command's error stands
                _remove_own(con, *created)
    finally:
        con.close()


def _remove_own(con: duckdb.DuckDBPyConnection, database: str,
                identity: tuple[int, int]) -> None:
    """Remove the database file ``con`` holds, while it still holds it (no other process can
    have opened it meanwhile); the write-ahead log is folded in first, so that closing the
    connection afterwards touches no file at that path (another process may have created
    a new database there by then)."""
    with contextlib.suppress(duckdb.Error):
        con.rollback()  # whatever the failed command left open
    try:
        con.checkpoint()
    except duckdb.Error:
        return  # left in place rather than removed with a log still open
    if (_identity(database) or ())[:2] != identity:
        return
    with contextlib.suppress(FileNotFoundError):
        os.remove(database + ".wal")  # first: once the path is free, a new one may be made
    os.remove(database)


def _load(con: duckdb.DuckDBPyConnection, name: str, progress: bool) -> sqlnb.NaiveBayes:
    try:
        model = sqlnb.load(con, name)
    except ModelNotFoundError:
        names = [m["model"] for m in sqlnb.list_models(con)]
        known = f" (models: {', '.join(names)})" if names else " (it has no models)"
        raise ModelNotFoundError(f"no model named {name!r} in this database{known}") from None
    model.progress = progress
    return model


def _exists(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    return any(m["model"] == name for m in sqlnb.list_models(con))


def _summary(con: duckdb.DuckDBPyConnection, name: str) -> dict[str, Any]:
    return next(m for m in sqlnb.list_models(con) if m["model"] == name)


def _save(figure: Any, path: str) -> None:
    if not path.lower().endswith((".png", ".svg", ".pdf")):
        raise CliError(f"--plot needs a .png, .svg or .pdf file name, got {path!r}")
    figure.savefig(path, dpi=PLOT_DPI)
    click.echo(f"plot written to {path}", err=True)


def _text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return "NULL" if value is None else str(value)


def _table(title: str | None, columns: list[str], rows: list[tuple], **kwargs: Any) -> Table:
    table = Table(title=None if title is None else Text(title), title_justify="left", **kwargs)
    for column in columns:
        table.add_column(Text(column))
    for row in rows:
        table.add_row(*(Text(_text(v)) for v in row))
    return table


# ---------------------------------------------------------------------------- the group
class _Group(click.Group):
    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_paragraph()
        formatter.write_text("DB is a DuckDB file; SOURCE a table of it or a Parquet/CSV "
                             "path or glob, read in place. See docs/cli.md.")


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show the full traceback of an error.")
@click.version_option(sqlnb.__version__, prog_name="sqlnb")
def cli(debug: bool) -> None:
    """Naive Bayes models that live in a DuckDB file, from the shell."""
    _state["debug"] = debug


progress_option = click.option(
    "--progress/--no-progress", default=True,
    help="Show a progress bar on a terminal (never when stderr is not a terminal).")


def _fit_options(function: Any) -> Any:
    options = [
        click.argument("database", metavar="DB"),
        click.argument("model"),
        click.argument("source"),
        click.option("--target", "-t", required=True, help="The label column."),
        click.option("--family", "-f", type=click.Choice(FAMILIES), default=None,
                     help="The model family (fit: default gaussian; a later partial-fit "
                          "keeps the model's)."),
        click.option("--features", multiple=True, metavar="A,B,...",
                     help="Feature columns (default: every other column)."),
        click.option("--weight", "-w", default=None, help="A sample-weight column."),
        click.option("--text", default=None, help="A text column, tokenised in SQL."),
        click.option("--group-by", "group_by", multiple=True, metavar="COL",
                     help="Fit one model per group of these columns."),
        click.option("--param", "-p", "params", multiple=True, metavar="NAME=VALUE",
                     help="A hyperparameter, e.g. alpha=0.5 or priors=[0.3,0.7]."),
        click.option("--text-option", "text_options", multiple=True, metavar="NAME=VALUE",
                     help="A CountVectorizer option for --text, e.g. ngram_range=[1,2]."),
        progress_option,
    ]
    for option in reversed(options):
        function = option(function)
    return function


def _report_fit(con: duckdb.DuckDBPyConnection, action: str, model: sqlnb.NaiveBayes,
                started: float) -> None:
    summary = _summary(con, model.name)
    out.print(f"{action} {model.name} ({summary['family']}): {summary['n_classes']} classes, "
              f"{summary['n_rows']} rows, {summary['n_features']} features "
              f"in {time.monotonic() - started:.2f} s")


def _check_text(text: str | None, text_options: dict[str, Any]) -> None:
    if text_options and text is None:
        raise CliError("--text-option needs --text COLUMN")


@cli.command(short_help="Fit a model on a source (DB created if missing).")
@_fit_options
def fit(database: str, model: str, source: str, target: str, family: str | None,
        features: tuple[str, ...], weight: str | None, text: str | None,
        group_by: tuple[str, ...], params: tuple[str, ...], text_options: tuple[str, ...],
        progress: bool) -> None:
    """Fit MODEL on SOURCE (replacing any earlier fit); DB is created if missing."""
    options = _text_options(text_options, sqlnb.NaiveBayes.fit)
    _check_text(text, options)
    hyper = _hyperparameters(params)
    groups = _groups(group_by)
    started = time.monotonic()
    con = _connect(database, create=True)
    nb = sqlnb.NaiveBayes(model, con=con, family=family or "gaussian", progress=progress,
                          **hyper)
    kwargs: dict[str, Any] = {"weight": weight}
    if text is not None:
        kwargs.update(text=text, **options)
    else:
        kwargs["features"] = _split(features)
    if groups:
        kwargs["group_by"] = groups if len(groups) > 1 else groups[0]
    nb.fit(source, target, **kwargs)
    _report_fit(con, "fitted", nb, started)


@cli.command(short_help="Cross-validate a grid of hyperparameters; refit the best.")
@click.argument("database", metavar="DB")
@click.argument("model")
@click.argument("source")
@click.option("--target", "-t", required=True, help="The label column.")
@click.option("--family", "-f", type=click.Choice(FAMILIES), default="gaussian",
              show_default=True, help="The model family.")
@click.option("--features", multiple=True, metavar="A,B,...",
              help="Feature columns (default: every other column).")
@click.option("--weight", "-w", default=None, help="A sample-weight column.")
@click.option("--text", default=None,
              help="A text column, tokenised in SQL (each fold gets its own vocabulary).")
@click.option("--text-option", "text_options", multiple=True, metavar="NAME=VALUE",
              help="A fixed CountVectorizer option for --text, e.g. ngram_range=[1,2].")
@click.option("--grid", "-g", "grid", multiple=True, required=True, metavar="NAME=[V,...]",
              help="A hyperparameter and its values, e.g. alpha=[0.1,1.0]; repeatable.")
@click.option("--param", "-p", "params", multiple=True, metavar="NAME=VALUE",
              help="A fixed hyperparameter, e.g. fit_prior=false.")
@click.option("--cv", default="5", show_default=True, metavar="K|COLUMN",
              help="A number of folds (hashed), or a column of fold ids.")
@click.option("--group-by", "group_by", multiple=True, metavar="COL",
              help="Cross-validate a per-group model (one model per group of these columns).")
@click.option("--scoring", "-s", multiple=True, metavar="A,B,...",
              help="Scorers (default accuracy); the first one chooses the best.")
@click.option("--refit/--no-refit", default=True, show_default=True,
              help="Fit MODEL on every row with the best candidate.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@progress_option
def search(database: str, model: str, source: str, target: str, family: str,
           features: tuple[str, ...], weight: str | None, text: str | None,
           text_options: tuple[str, ...], grid: tuple[str, ...],
           params: tuple[str, ...], cv: str, group_by: tuple[str, ...],
           scoring: tuple[str, ...], refit: bool, as_json: bool, progress: bool) -> None:
    """Cross-validate every candidate of the grid on SOURCE (two scans), print each
    candidate's mean scores, and with --refit fit MODEL with the best one."""
    options = _text_options(text_options, sqlnb.NaiveBayes.search)
    _check_text(text, options)
    hyper = _hyperparameters(params)
    groups = _groups(group_by)
    values = _parse_pairs(grid, "--grid")
    for name, value in values.items():
        if not isinstance(value, list):
            raise CliError(f"--grid {name}= needs a list of values, e.g. {name}=[0.1,1.0]")
    scorers = _split(scoring) or ["accuracy"]
    con = _connect(database, create=refit)
    nb = sqlnb.NaiveBayes(model, con=con, family=family, progress=progress, **hyper)
    result = nb.search(source, target, features=_split(features) if text is None else None,
                       weight=weight, text=text,
                       group_by=(groups if len(groups) > 1 else groups[0]) if groups else None,
                       param_grid=values, cv=int(cv) if cv.isdigit() else cv,
                       scoring=scorers, refit=refit, **options)
    columns = ["params", *[f"{kind}_test_{s}" for s in scorers for kind in ("mean", "rank")]]
    rows = result.cv_results_.select(*[duckdb.ColumnExpression(c) for c in columns]).fetchall()
    if as_json:
        click.echo(json.dumps({"best_params": result.best_params_,
                               "best_score": result.best_score_,
                               "candidates": [dict(zip(columns, row)) for row in rows]},
                              default=str, indent=2))
        return
    out.print(_table(f"search {model}: {result.n_splits_} folds", columns, rows))
    out.print(f"best {result.best_params_} ({scorers[0]} {result.best_score_:.6g})"
              + (f"; {model} refitted" if refit else ""))


@cli.command("partial-fit", short_help="Fold one more batch into a model.")
@_fit_options
def partial_fit(database: str, model: str, source: str, target: str, family: str | None,
                features: tuple[str, ...], weight: str | None, text: str | None,
                group_by: tuple[str, ...], params: tuple[str, ...],
                text_options: tuple[str, ...], progress: bool) -> None:
    """Fold SOURCE into MODEL (created on the first call); equals a fit on all batches."""
    options = _text_options(text_options, sqlnb.NaiveBayes.partial_fit)
    _check_text(text, options)
    hyper = _hyperparameters(params)
    if group_by:
        raise CliError("partial-fit does not take --group-by (fit per-group models with fit)")
    started = time.monotonic()
    con = _connect(database, create=True)
    if _exists(con, model):
        nb = _load(con, model, progress)
        stored = nb.meta["family"]
        if family is not None and family != stored:
            raise CliError(f"model {model!r} is a {stored} model; drop --family or use fit")
        if hyper:
            raise CliError(f"model {model!r} exists: its hyperparameters are fixed "
                           "(use fit to change them)")
    else:
        nb = sqlnb.NaiveBayes(model, con=con, family=family or "gaussian", progress=progress,
                              **hyper)
    if text is not None:
        nb.partial_fit(source, target, weight=weight, text=text, **options)
    else:
        nb.partial_fit(source, target, features=_split(features), weight=weight)
    _report_fit(con, "updated", nb, started)


@cli.command(short_help="Unlearn rows the model learned.")
@_fit_options
def forget(database: str, model: str, source: str, target: str, family: str | None,
           features: tuple[str, ...], weight: str | None, text: str | None,
           group_by: tuple[str, ...], params: tuple[str, ...], text_options: tuple[str, ...],
           progress: bool) -> None:
    """Unlearn SOURCE's rows from MODEL exactly (they must have been learned)."""
    if text is not None or text_options or group_by or params or family:
        raise CliError("forget takes only --target, --features and --weight")
    started = time.monotonic()
    con = _connect(database)
    nb = _load(con, model, progress)
    nb.forget(source, target, features=_split(features), weight=weight)
    _report_fit(con, "forgot rows of", nb, started)


@cli.command(short_help="Score a source: to a file, or the first rows on screen.")
@click.argument("database", metavar="DB")
@click.argument("model")
@click.argument("source")
@click.option("--output", "-o", "output", default=None, metavar="OUT.parquet|OUT.csv",
              help="Write every row with its prediction to this file (default: show the "
                   "first rows).")
@click.option("--proba", is_flag=True, help="One probability column per class as well.")
@click.option("--limit", "-n", default=10, show_default=True,
              help="Rows shown on the terminal (without --output).")
@progress_option
def predict(database: str, model: str, source: str, output: str | None, proba: bool,
            limit: int, progress: bool) -> None:
    """Score SOURCE with MODEL: the rows with a prediction column appended."""
    writer = None
    if output is not None:
        suffix = os.path.splitext(output.lower())[1]
        writer = WRITERS.get(suffix)
        if writer is None:
            raise CliError(f"--output must end in .parquet, .pq or .csv, got {output!r}")
    con = _connect(database, read_only=True)
    nb = _load(con, model, progress)
    scored = _scored_with_proba(nb, source) if proba else nb.predict(source)
    if writer is None:
        shown = scored.limit(limit)
        out.print(_table(None, shown.columns, shown.fetchall()))
        return
    started = time.monotonic()
    with sqlnb.progress.track(con, f"predict {model}", enabled=progress):
        getattr(scored, writer)(output)
    click.echo(f"predictions written to {output} in {time.monotonic() - started:.2f} s",
               err=True)


def _scored_with_proba(nb: sqlnb.NaiveBayes, source: str) -> duckdb.DuckDBPyRelation:
    """The source's rows, their prediction, then one probability column per class."""
    probabilities = nb.predict_proba(source)
    names = [f"proba_{label}" for label in nb.classes_]
    scored = nb.predict(probabilities)
    columns = [c for c in scored.columns if c not in names and c != "prediction"]
    return scored.select(*[duckdb.ColumnExpression(c) for c in [*columns, "prediction", *names]])


@cli.command(short_help="Accuracy, per-class metrics, log loss, confusion; --plot.")
@click.argument("database", metavar="DB")
@click.argument("model")
@click.argument("source")
@click.option("--target", "-t", default=None, help="The label column (default: the "
              "model's target).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--plot", default=None, metavar="FILE.png",
              help="Draw the confusion matrices and a reliability diagram.")
@click.option("--bins", default=10, show_default=True, help="Bins of the reliability diagram.")
@progress_option
def evaluate(database: str, model: str, source: str, target: str | None, as_json: bool,
             plot: str | None, bins: int, progress: bool) -> None:
    """Accuracy, per-class precision/recall/F1, log loss and confusion of MODEL on SOURCE."""
    if plot is not None and not plot.lower().endswith((".png", ".svg", ".pdf")):
        raise CliError(f"--plot needs a .png, .svg or .pdf file name, got {plot!r}")
    con = _connect(database, read_only=True)
    nb = _load(con, model, progress)
    try:
        report = nb.evaluate(source, target)
    except InvalidParameterError:  # text models: metrics over their scored rows instead
        with sqlnb.progress.track(con, f"evaluate {model}", enabled=progress):
            report = sqlnb.evaluate(con, _scored_with_proba(nb, source), target or nb.target,
                                    proba={label: f"proba_{label}" for label in nb.classes_})
    if as_json:
        click.echo(json.dumps(report, default=str, indent=2))
    else:
        _print_report(report)
    if plot is not None:
        with sqlnb.progress.track(con, f"reliability {model}", enabled=progress):
            curve = diagnostics.model_reliability(nb, source, target, bins=bins)
        _save(sqlnb.plot.evaluation(report, curve), plot)


def _print_report(report: dict[str, Any]) -> None:
    loss = "" if report["log_loss"] is None else f", log loss {report['log_loss']:.6g}"
    out.print(f"{report['n']} rows: accuracy {report['accuracy']:.6g}, macro F1 "
              f"{report['macro_f1']:.6g}, weighted F1 {report['weighted_f1']:.6g}{loss}")
    rows = zip(report["labels"], report["precision"], report["recall"], report["f1"],
               report["support"])
    out.print(_table("per class", ["class", "precision", "recall", "f1", "support"],
                     list(rows)))
    labels = [str(label) for label in report["labels"]]
    matrix = [(label, *row) for label, row in zip(labels, report["confusion_matrix"])]
    out.print(_table("confusion matrix (rows: true, columns: predicted)", ["", *labels],
                     matrix))


@cli.command(short_help="The models in a file, or one model in detail; --plot.")
@click.argument("database", metavar="DB")
@click.argument("model", required=False)
@click.option("--top", "-k", default=5, show_default=True, help="Top features per class.")
@click.option("--plot", default=None, metavar="FILE.png",
              help="Draw the priors, feature distributions and top features (with MODEL).")
@click.option("--feature", "plot_features", multiple=True, metavar="COL",
              help="Features to draw with --plot (default: the first three).")
def show(database: str, model: str | None, top: int, plot: str | None,
         plot_features: tuple[str, ...]) -> None:
    """The models in DB, or one MODEL: classes, priors, features, top features."""
    if plot is not None and not plot.lower().endswith((".png", ".svg", ".pdf")):
        raise CliError(f"--plot needs a .png, .svg or .pdf file name, got {plot!r}")
    con = _connect(database, read_only=True)
    if model is None:
        if plot is not None:
            raise CliError("--plot needs a MODEL")
        models = sqlnb.list_models(con)
        if not models:
            out.print(f"{database}: no sqlnb models")
            return
        out.print(_table(f"models in {database}",
                         ["model", "family", "target", "classes", "rows", "features",
                          "fitted at"],
                         [(m["model"], m["family"], m["target"], m["n_classes"], m["n_rows"],
                           m["n_features"], m["fitted_at"].isoformat(sep=" ",
                                                                     timespec="seconds"))
                          for m in models]))
        return
    nb = _load(con, model, False)
    summary = _summary(con, model)
    out.print(f"model {model}: {summary['family']}, target {summary['target']!r}, "
              f"{summary['n_rows']} rows, fitted at "
              f"{summary['fitted_at'].isoformat(sep=' ', timespec='seconds')}")
    priors = diagnostics.class_priors(nb)
    out.print(_table("classes", ["class", "prior", "rows", "weight"],
                     [(p["class"], p["prior"], p["n"], p["weight"]) for p in priors]))
    out.print(_table("features", ["feature", "type", "family"],
                     [(f["name"], f["type"], nb.families_[f["name"]])
                      for f in nb.meta["features"]]))
    rows = nb.top_features(top).fetchall()
    out.print(_table(f"top {top} features per class", ["class", "rank", "feature",
                                                      "category", "score"], rows))
    if plot is not None:
        _save(sqlnb.plot.overview(nb, features=_split(plot_features), k=top), plot)


@cli.command(short_help="Why each prediction: top feature contributions; --plot.")
@click.argument("database", metavar="DB")
@click.argument("model")
@click.argument("source")
@click.option("--top", "-k", default=3, show_default=True,
              help="Features per row (0: every row x class x feature term).")
@click.option("--row", "-r", default=None, type=int,
              help="Only this input row (numbered from 0); the row the plot draws.")
@click.option("--output", "-o", "output", default=None, metavar="OUT.parquet|OUT.csv",
              help="Write the explanation of every row to this file (default: show the "
                   "first rows).")
@click.option("--limit", "-n", default=10, show_default=True,
              help="Rows of the explanation shown on the terminal (without --output).")
@click.option("--plot", default=None, metavar="FILE.png",
              help="Draw a waterfall of the contributions for --row (default: row 0).")
@progress_option
def explain(database: str, model: str, source: str, top: int, row: int | None,
            output: str | None, limit: int, plot: str | None, progress: bool) -> None:
    """Explain MODEL's predictions on SOURCE: per row, the features that most favour the
    predicted class over the runner-up (see docs/explain.md)."""
    if plot is not None and not plot.lower().endswith((".png", ".svg", ".pdf")):
        raise CliError(f"--plot needs a .png, .svg or .pdf file name, got {plot!r}")
    if top < 0:
        raise CliError(f"--top must be 0 or more, got {top}")
    writer = None
    if output is not None:
        writer = WRITERS.get(os.path.splitext(output.lower())[1])
        if writer is None:
            raise CliError(f"--output must end in .parquet, .pq or .csv, got {output!r}")
    con = _connect(database, read_only=True)
    nb = _load(con, model, progress)
    explained = nb.explain(source, top=top or None, row=row)
    if writer is not None:
        with sqlnb.progress.track(con, f"explain {model}", enabled=progress):
            getattr(explained, writer)(output)
        click.echo(f"explanation written to {output}", err=True)
    else:
        shown = explained.limit(limit)
        out.print(_table(None, shown.columns, shown.fetchall()))
    if plot is not None:
        _save(sqlnb.plot.waterfall(sqlnb.explain.row_breakdown(nb, source, row or 0)), plot)


@cli.command(short_help="Has the data moved: per-feature drift from the model; --plot.")
@click.argument("database", metavar="DB")
@click.argument("model")
@click.argument("source")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@click.option("--plot", default=None, metavar="FILE.png",
              help="Draw the drift of every feature, the largest first.")
@click.option("--by-class", is_flag=True,
              help="Also one row per feature and class (SOURCE has the target column).")
@click.option("--bins", "psi_bins", type=int, default=None, metavar="K",
              help="Also the PSI of Gaussian features over K bins of equal probability "
                   "under the model's law (10 is the usual choice).")
@progress_option
def drift(database: str, model: str, source: str, as_json: bool, plot: str | None,
          by_class: bool, psi_bins: int | None, progress: bool) -> None:
    """Compare SOURCE with what MODEL learned, feature by feature, in one scan of SOURCE
    (see docs/explain.md for the methods and the thresholds in use)."""
    if plot is not None and not plot.lower().endswith((".png", ".svg", ".pdf")):
        raise CliError(f"--plot needs a .png, .svg or .pdf file name, got {plot!r}")
    con = _connect(database, read_only=True)
    nb = _load(con, model, progress)
    found = nb.drift(source, by_class=by_class, bins=psi_bins)
    with sqlnb.progress.track(con, f"drift {model}", enabled=progress):
        columns, rows = found.columns, found.fetchall()
    records = [dict(zip(columns, r)) for r in rows]
    if as_json:
        click.echo(json.dumps(records, default=str, indent=2))
    else:
        out.print(_table(f"drift of {source} from {model}", columns, rows))
    if plot is not None:
        _save(sqlnb.plot.drift([r for r in records if r["class"] is None]), plot)


@cli.command(short_help="Print a self-contained SELECT that scores with a model.")
@click.argument("database", metavar="DB")
@click.argument("model")
@click.option("--source", "-s", default="source", show_default=True,
              help="SQL of the relation to score: a table, read_parquet('...') or a query.")
@click.option("--output", "-o", type=click.Choice(["predict", "predict_proba", "proba",
                                                    "log_proba", "joint", "explain"]),
              default="predict", show_default=True)
@click.option("--top", type=int, default=None,
              help="With --output explain: the k features behind each prediction.")
def sql(database: str, model: str, source: str, output: str, top: int | None) -> None:
    """Print one self-contained SELECT that scores (or explains) a relation with MODEL."""
    con = _connect(database, read_only=True)
    click.echo(_load(con, model, False).to_sql(source=source, output=output, top=top))


@cli.command("export", short_help="Write a model to a directory: Parquet + model.json.")
@click.argument("database", metavar="DB")
@click.argument("model")
@click.argument("path", metavar="DIR")
@click.option("--overwrite", is_flag=True, help="Replace an earlier export at DIR.")
def export(database: str, model: str, path: str, overwrite: bool) -> None:
    """Write MODEL to the directory DIR (its statistics as Parquet files and model.json),
    for `sqlnb import` into another database file."""
    con = _connect(database, read_only=True)
    folder = _load(con, model, False).export(path, overwrite=overwrite)
    out.print(f"exported {model} to {folder}")


@cli.command("import", short_help="Load an exported model (DB created if missing).")
@click.argument("database", metavar="DB")
@click.argument("path", metavar="DIR")
@click.option("--name", default=None, help="The model's name in DB (default: as exported).")
@click.option("--replace", is_flag=True, help="Replace a model of that name in DB.")
def import_model(database: str, path: str, name: str | None, replace: bool) -> None:
    """Load the model exported to DIR into DB, checking every file first."""
    con = _connect(database, create=True)
    nb = sqlnb.import_model(con, path, name=name, replace=replace)
    summary = _summary(con, nb.name)
    out.print(f"imported {nb.name} ({summary['family']}): {summary['n_classes']} classes, "
              f"{summary['n_features']} features")


# ---------------------------------------------------------------------------- entry point
def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else text


def _interrupted(exc: BaseException | None) -> bool:
    """Whether DuckDB stopped a query on Ctrl-C (it raises an error of its own then,
    not KeyboardInterrupt), possibly wrapped by sqlnb."""
    while exc is not None:
        if isinstance(exc, duckdb.InterruptException) or (
                type(exc) is RuntimeError and str(exc) == "Query interrupted"):
            return True
        exc = exc.__cause__
    return False


def main(argv: list[str] | None = None) -> None:
    """Run the command line (the ``sqlnb`` console script)."""
    _state["debug"] = "--debug" in (sys.argv[1:] if argv is None else argv)
    try:
        try:
            cli.main(args=argv, prog_name="sqlnb", standalone_mode=False)
        except BaseException as exc:
            _discard_created()
            if _interrupted(exc):  # Ctrl-C during a query: the abort path, as elsewhere
                raise click.Abort() from exc
            raise
        _state.pop("created", None)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.Abort:
        click.echo("sqlnb: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:  # usage errors: a missing argument, a bad choice
        if _state["debug"]:
            raise
        click.echo(f"sqlnb: error: {_one_line(exc.format_message())} "
                   "(see sqlnb --help)", err=True)
        sys.exit(exc.exit_code)
    except (SqlnbError, duckdb.Error, OSError, ValueError, KeyError, LookupError) as exc:
        if _state["debug"]:
            raise
        click.echo(f"sqlnb: error: {_one_line(exc)}", err=True)
        sys.exit(1)
    except Exception as exc:
        if _state["debug"]:
            raise
        click.echo(f"sqlnb: error: {type(exc).__name__}: {_one_line(exc)} "
                   "(run with --debug for the traceback)", err=True)
        sys.exit(1)


__all__ = ["cli", "main"]
