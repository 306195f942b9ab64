"""The sqlnb command, driven in a subprocess on Parquet files made here; scikit-learn is
the oracle for what it fits and predicts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from sklearn import metrics
from sklearn.datasets import load_iris
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import GaussianNB, MultinomialNB

import sqlnb as sqlnb_api

ROOT = Path(__file__).resolve().parents[1]
SPECIES = np.array(["setosa", "versicolor", "virginica"])
FEATURES = ["sepal_length", "sepal_width", "petal_length", "petal_width"]


def sqlnb(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the command as the console script does (``python -m sqlnb`` is its twin)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "sqlnb", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)


def ok(*args: str, cwd: Path) -> str:
    result = sqlnb(*args, cwd=cwd)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture
def iris(tmp_path):
    """iris.parquet (all rows) and first.parquet / rest.parquet (a split of them)."""
    X, y = load_iris(return_X_y=True)
    frame = pd.DataFrame(X, columns=FEATURES).assign(species=SPECIES[y])
    frame.to_parquet(tmp_path / "iris.parquet")
    frame.iloc[::3].to_parquet(tmp_path / "first.parquet")
    frame.drop(frame.index[::3]).to_parquet(tmp_path / "rest.parquet")
    return tmp_path, X, SPECIES[y]


def read(path: Path) -> pd.DataFrame:
    return duckdb.sql(f"SELECT * FROM '{path}'").df()


def test_fit_then_predict_to_parquet_equals_scikit_learn(iris):
    where, X, y = iris
    ok("fit", "models.duckdb", "flowers", "iris.parquet", "--target", "species", cwd=where)
    ok("predict", "models.duckdb", "flowers", "iris.parquet", "-o", "scored.parquet",
       cwd=where)
    scored = read(where / "scored.parquet")
    assert scored["prediction"].tolist() == GaussianNB().fit(X, y).predict(X).tolist()
    assert scored.columns.tolist() == [*FEATURES, "species", "prediction"]


def test_predict_proba_to_csv_equals_scikit_learn(iris):
    where, X, y = iris
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "species", cwd=where)
    ok("predict", "m.duckdb", "flowers", "iris.parquet", "--proba", "-o", "p.csv", cwd=where)
    scored = read(where / "p.csv")
    expected = GaussianNB().fit(X, y).predict_proba(X)
    got = scored[[f"proba_{s}" for s in SPECIES]].to_numpy()
    np.testing.assert_allclose(got, expected, atol=1e-9)
    assert scored["prediction"].tolist() == SPECIES[expected.argmax(axis=1)].tolist()


def test_predict_without_output_shows_the_first_rows(iris):
    where, _, _ = iris
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "species", cwd=where)
    shown = ok("predict", "m.duckdb", "flowers", "iris.parquet", "--limit", "2", cwd=where)
    lines = [line for line in shown.splitlines() if "setosa" in line]
    assert len(lines) == 2  # the first two rows of iris are setosa, predicted setosa
    assert all(line.count("setosa") == 2 for line in lines)


def test_fit_with_features_family_and_params(iris):
    where, X, y = iris
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "species", "--family", "gaussian",
       "--features", "petal_length,petal_width", "--param", "var_smoothing=0.01", cwd=where)
    ok("predict", "m.duckdb", "flowers", "iris.parquet", "--proba", "-o", "p.parquet",
       cwd=where)
    got = read(where / "p.parquet")[[f"proba_{s}" for s in SPECIES]].to_numpy()
    expected = GaussianNB(var_smoothing=0.01).fit(X[:, 2:], y).predict_proba(X[:, 2:])
    np.testing.assert_allclose(got, expected, atol=1e-9)


def test_evaluate_json_equals_scikit_learn_metrics(iris):
    where, X, y = iris
    ok("fit", "m.duckdb", "flowers", "first.parquet", "-t", "species", cwd=where)
    report = json.loads(ok("evaluate", "m.duckdb", "flowers", "rest.parquet", "--json",
                           cwd=where))
    train = np.arange(len(y)) % 3 == 0
    oracle = GaussianNB().fit(X[train], y[train])
    predicted = oracle.predict(X[~train])
    assert report["accuracy"] == pytest.approx(metrics.accuracy_score(y[~train], predicted),
                                               abs=1e-12)
    assert report["confusion_matrix"] == metrics.confusion_matrix(y[~train], predicted).tolist()
    assert report["log_loss"] == pytest.approx(
        metrics.log_loss(y[~train], oracle.predict_proba(X[~train])), rel=1e-9)


def test_evaluate_prints_accuracy_and_writes_a_plot(iris):
    where, X, y = iris
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "species", cwd=where)
    result = sqlnb("evaluate", "m.duckdb", "flowers", "iris.parquet", "--plot", "ev.png",
                   cwd=where)
    accuracy = metrics.accuracy_score(y, GaussianNB().fit(X, y).predict(X))
    assert result.returncode == 0, result.stderr
    assert f"accuracy {accuracy:.6g}" in result.stdout
    assert (where / "ev.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_partial_fit_twice_equals_fit_on_both(iris):
    where, X, y = iris
    ok("partial-fit", "m.duckdb", "flowers", "first.parquet", "-t", "species", cwd=where)
    ok("partial-fit", "m.duckdb", "flowers", "rest.parquet", "-t", "species", cwd=where)
    ok("predict", "m.duckdb", "flowers", "iris.parquet", "--proba", "-o", "p.parquet",
       cwd=where)
    got = read(where / "p.parquet")[[f"proba_{s}" for s in SPECIES]].to_numpy()
    np.testing.assert_allclose(got, GaussianNB().fit(X, y).predict_proba(X), atol=1e-9)


def test_forget_equals_fit_on_the_rest(iris):
    where, X, y = iris
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "species", cwd=where)
    ok("forget", "m.duckdb", "flowers", "first.parquet", "-t", "species", cwd=where)
    ok("predict", "m.duckdb", "flowers", "iris.parquet", "--proba", "-o", "p.parquet",
       cwd=where)
    rest = np.arange(len(y)) % 3 != 0
    got = read(where / "p.parquet")[[f"proba_{s}" for s in SPECIES]].to_numpy()
    expected = GaussianNB().fit(X[rest], y[rest]).predict_proba(X)
    np.testing.assert_allclose(got, expected, atol=1e-9)


def test_export_then_import_into_another_file_predicts_the_same(iris):
    where, _, _ = iris
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "species", cwd=where)
    assert ok("export", "m.duckdb", "flowers", "moved", cwd=where).startswith(
        "exported flowers to ")
    assert ok("import", "other.duckdb", "moved", "--name", "copy", cwd=where) == (
        "imported copy (gaussian): 3 classes, 4 features\n")
    for database, model in (("m.duckdb", "flowers"), ("other.duckdb", "copy")):
        ok("predict", database, model, "iris.parquet", "--proba", "-o", f"{model}.parquet",
           cwd=where)
    assert read(where / "copy.parquet").equals(read(where / "flowers.parquet"))
    result = sqlnb("import", "other.duckdb", "moved", "--name", "copy", cwd=where)
    assert result.returncode == 1
    assert "pass replace=True" in result.stderr


def exported_rows(folder: Path) -> int:
    return duckdb.sql(f"SELECT sum(n) FROM '{folder / 'class_stats.parquet'}'").fetchall()[0][0]


def test_export_overwrite_replaces_an_export_but_not_a_directory_with_other_files(iris):
    where, _, _ = iris
    ok("fit", "m.duckdb", "flowers", "first.parquet", "-t", "species", cwd=where)
    ok("export", "m.duckdb", "flowers", "moved", cwd=where)
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "species", cwd=where)
    ok("export", "m.duckdb", "flowers", "moved", "--overwrite", cwd=where)
    assert exported_rows(where / "moved") == 150
    (where / "moved" / "README.txt").write_text("mine")
    result = sqlnb("export", "m.duckdb", "flowers", "moved", "--overwrite", cwd=where)
    assert result.returncode == 1
    assert "'README.txt'" in result.stderr and "move those out" in result.stderr
    assert (where / "moved" / "README.txt").read_text() == "mine"
    assert exported_rows(where / "moved") == 150


def test_show_lists_the_models_of_a_file(iris):
    where, _, _ = iris
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "species", cwd=where)
    ok("fit", "m.duckdb", "petals", "first.parquet", "-t", "species", "--features",
       "petal_length", cwd=where)
    listing = ok("show", "m.duckdb", cwd=where)
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:7]]
            for line in listing.splitlines() if line.startswith("│")}
    assert rows == {"flowers": ["gaussian", "species", "3", "150", "4"],
                    "petals": ["gaussian", "species", "3", "50", "1"]}


def test_show_model_gives_priors_features_and_top_features(iris):
    where, _, _ = iris
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "species", cwd=where)
    shown = ok("show", "m.duckdb", "flowers", "--top", "1", "--plot", "model.png", cwd=where)
    cells = [[c.strip() for c in line.split("│")[1:-1]]
             for line in shown.splitlines() if line.startswith("│")]
    assert ["setosa", "0.333333", "50", "50"] in cells
    assert ["petal_width", "DOUBLE", "gaussian"] in cells
    assert sum(1 for c in cells if len(c) == 5 and c[1] == "1") == 3  # one top feature each
    assert (where / "model.png").stat().st_size > 0


def test_sql_prints_a_select_that_scores_like_scikit_learn(iris):
    where, X, y = iris
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "species", cwd=where)
    statement = ok("sql", "m.duckdb", "flowers", "--source",
                   f"read_parquet('{where / 'iris.parquet'}')", cwd=where)
    predictions = [row[-1] for row in duckdb.connect().sql(statement).fetchall()]
    assert predictions == GaussianNB().fit(X, y).predict(X).tolist()


def test_text_fit_equals_count_vectorizer_and_multinomial(tmp_path):
    docs = pd.DataFrame({
        "body": ["cheap pills now", "meeting at noon", "cheap cheap offer", "lunch at noon",
                 "offer ends now", "agenda for the meeting"],
        "label": ["spam", "ham", "spam", "ham", "spam", "ham"],
    })
    docs.to_parquet(tmp_path / "mail.parquet")
    ok("fit", "m.duckdb", "spam", "mail.parquet", "-t", "label", "--family", "multinomial",
       "--text", "body", "--param", "alpha=0.5", cwd=tmp_path)
    ok("predict", "m.duckdb", "spam", "mail.parquet", "--proba", "-o", "p.parquet",
       cwd=tmp_path)
    counts = CountVectorizer().fit_transform(docs["body"])
    expected = MultinomialNB(alpha=0.5).fit(counts, docs["label"]).predict_proba(counts)
    got = read(tmp_path / "p.parquet")[["proba_ham", "proba_spam"]].to_numpy()
    np.testing.assert_allclose(got, expected, atol=1e-9)


def test_evaluate_a_text_model_equals_scikit_learn(tmp_path):
    train = pd.DataFrame({
        "body": ["cheap pills now", "meeting at noon", "cheap cheap offer", "lunch at noon",
                 "offer ends now", "agenda for the meeting"],
        "label": ["spam", "ham", "spam", "ham", "spam", "ham"],
    })
    holdout = pd.DataFrame({"body": ["cheap lunch", "noon offer now", "meeting now"],
                            "label": ["spam", "ham", "ham"]})
    train.to_parquet(tmp_path / "train.parquet")
    holdout.to_parquet(tmp_path / "holdout.parquet")
    ok("fit", "m.duckdb", "spam", "train.parquet", "-t", "label", "-f", "multinomial",
       "--text", "body", cwd=tmp_path)
    report = json.loads(ok("evaluate", "m.duckdb", "spam", "holdout.parquet", "--json",
                           cwd=tmp_path))
    vectorizer = CountVectorizer().fit(train["body"])
    oracle = MultinomialNB().fit(vectorizer.transform(train["body"]), train["label"])
    counts = vectorizer.transform(holdout["body"])
    assert report["accuracy"] == pytest.approx(
        metrics.accuracy_score(holdout["label"], oracle.predict(counts)), abs=1e-12)
    assert report["log_loss"] == pytest.approx(
        metrics.log_loss(holdout["label"], oracle.predict_proba(counts)), rel=1e-9)


def test_group_by_fits_one_model_per_group(iris):
    where, X, y = iris
    frame = read(where / "iris.parquet").assign(site=np.arange(len(y)) % 2)
    frame.to_parquet(where / "sites.parquet")
    ok("fit", "m.duckdb", "flowers", "sites.parquet", "-t", "species", "--group-by", "site",
       cwd=where)
    ok("predict", "m.duckdb", "flowers", "sites.parquet", "-o", "p.parquet", cwd=where)
    scored = read(where / "p.parquet")
    for site in (0, 1):
        rows = (np.arange(len(y)) % 2) == site
        expected = GaussianNB().fit(X[rows], y[rows]).predict(X[rows]).tolist()
        assert scored[scored["site"] == site]["prediction"].tolist() == expected


def test_labels_that_look_like_markup_are_shown_as_they_are(tmp_path):
    frame = pd.DataFrame({"y": ["[bold]a[/bold]", "[/x] :smile:"] * 3,
                          "x": [1.0, 5.0, 1.5, 5.5, 0.5, 6.0]})
    frame.to_parquet(tmp_path / "odd.parquet")
    ok("fit", "m.duckdb", "odd", "odd.parquet", "-t", "y", cwd=tmp_path)
    shown = ok("show", "m.duckdb", "odd", cwd=tmp_path)
    assert "[bold]a[/bold]" in shown
    assert "[/x] :smile:" in shown


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("args, message", [
    (["fit", "m.duckdb", "x", "nowhere.parquet", "-t", "species"],
     "No files found that match the pattern"),
    (["fit", "m.duckdb", "x", "iris.parquet", "-t", "colour"],
     "target column 'colour' is not in the source"),
    (["fit", "m.duckdb", "x", "iris.parquet", "-t", "species", "--features", "petal,sepal"],
     "feature column(s) not in the source: ['petal', 'sepal']"),
    (["fit", "m.duckdb", "x", "iris.parquet", "-t", "species", "--param", "alpha=1"],
     "gaussian naive Bayes has no hyperparameter alpha"),
    (["fit", "m.duckdb", "x", "iris.parquet", "-t", "species", "--param", "alpha"],
     "--param takes name=value, got 'alpha'"),
    (["fit", "m.duckdb", "x", "iris.parquet", "-t", "species", "-f", "multinomial",
      "--param", "alpha=-1"], "alpha"),
    (["predict", "absent.duckdb", "x", "iris.parquet"],
     "database file 'absent.duckdb' does not exist"),
    (["fit", "m.duckdb", "x", "iris.parquet"], "Missing option '--target'"),
    (["fit", "no/such/folder/m.duckdb", "x", "iris.parquet", "-t", "species"],
     "of the database file does not exist: create it first"),
    (["fit", "m.duckdb", "x", "iris.parquet", "-t", "species", "--param", "con=other"],
     "--param con= is not a hyperparameter: use the DB argument"),
    (["fit", "m.duckdb", "x", "iris.parquet", "-t", "species", "--param", "progress=true"],
     "--param progress= is not a hyperparameter: use --progress/--no-progress"),
    (["search", "m.duckdb", "x", "iris.parquet", "-t", "species", "-g",
      "var_smoothing=[0.1]", "--param", "family=auto"],
     "--param family= is not a hyperparameter: use --family"),
    *[(["fit", "m.duckdb", "x", "iris.parquet", "-t", "species", "--text", "species",
        "--text-option", f"{name}=x"], f"--text-option {name}= is not a text option")
      for name in ("target", "text", "source")],
    (["partial-fit", "m.duckdb", "x", "iris.parquet", "-t", "species", "--text", "species",
      "--text-option", "weight=w"], "--text-option weight= is not a text option"),
    (["fit", "m.duckdb", "x", "iris.parquet", "-t", "species", "--group-by", ""],
     "--group-by needs column names, got ''"),
    (["search", "m.duckdb", "x", "iris.parquet", "-t", "species", "-g",
      "var_smoothing=[0.1]", "--group-by", " , "], "--group-by needs column names"),
    (["show", "iris.parquet"],
     "'iris.parquet' is not a DuckDB database file (it is a Parquet file)"),
    (["fit", "iris.parquet", "x", "iris.parquet", "-t", "species"],
     "'iris.parquet' is not a DuckDB database file"),
])
def test_bad_input_prints_one_line_and_exits_non_zero(iris, args, message):
    where, _, _ = iris
    result = sqlnb(*args, cwd=where)
    assert result.returncode != 0
    assert result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_refused_options_leave_no_new_database_file(iris):
    where, _, _ = iris
    for option in (["--group-by", ""], ["--param", "con=x"]):
        result = sqlnb("fit", "new.duckdb", "x", "iris.parquet", "-t", "species", *option,
                       cwd=where)
        assert result.returncode == 1
        assert not (where / "new.duckdb").exists()


def test_evaluate_on_a_source_without_rows_is_one_line(iris):
    where, _, _ = iris
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "species", cwd=where)
    read(where / "iris.parquet").head(0).to_parquet(where / "none.parquet")
    result = sqlnb("evaluate", "m.duckdb", "flowers", "none.parquet", cwd=where)
    assert result.returncode == 1
    assert result.stderr == ("sqlnb: error: there are no labelled rows to evaluate: the "
                             "source has no rows, or its target column is NULL in every "
                             "row\n")


def test_parquet_file_is_left_as_it_was_when_named_as_the_database(iris):
    where, _, _ = iris
    before = (where / "iris.parquet").read_bytes()
    assert sqlnb("fit", "iris.parquet", "x", "first.parquet", "-t", "species",
                 cwd=where).returncode == 1
    assert (where / "iris.parquet").read_bytes() == before


def test_unknown_model_names_the_models_there(iris):
    where, _, _ = iris
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "species", cwd=where)
    result = sqlnb("predict", "m.duckdb", "flower", "iris.parquet", cwd=where)
    assert result.returncode == 1
    assert result.stderr == ("sqlnb: error: no model named 'flower' in this database "
                             "(models: flowers)\n")


def test_predict_source_without_a_feature_is_one_line(iris):
    where, _, _ = iris
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "species", cwd=where)
    read(where / "iris.parquet").drop(columns="petal_width").to_parquet(where / "less.parquet")
    result = sqlnb("predict", "m.duckdb", "flowers", "less.parquet", cwd=where)
    assert result.returncode == 1
    assert result.stderr.startswith("sqlnb: error: the source lacks feature column(s) "
                                    "['petal_width']")


def test_debug_shows_the_traceback(iris):
    where, _, _ = iris
    result = sqlnb("--debug", "fit", "m.duckdb", "x", "iris.parquet", "-t", "colour", cwd=where)
    assert result.returncode == 1
    assert "Traceback (most recent call last)" in result.stderr
    assert "UnknownColumnError" in result.stderr


def test_a_failed_fit_leaves_no_new_database_file(iris):
    where, _, _ = iris
    result = sqlnb("fit", "new.duckdb", "x", "iris.parquet", "-t", "colour", cwd=where)
    assert result.returncode == 1
    assert not (where / "new.duckdb").exists()


HOLDER = """
import sys, duckdb
con = duckdb.connect(sys.argv[1])
con.execute("CREATE TABLE IF NOT EXISTS winner AS SELECT 42 AS answer")
if sys.argv[2] == "hold":
    print("holding", flush=True)
    sys.stdin.readline()
con.close()
"""


def _another_process_opens(path: Path, hold: bool) -> subprocess.Popen:
    """Another process opens ``path`` (creating it if missing) and writes a table in it; with
    ``hold`` it keeps the file (and DuckDB's lock on it) until told to let go."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path),
                               "hold" if hold else "write"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if hold:
        assert holder.stdout.readline().strip() == "holding"
    else:
        assert holder.wait(timeout=120) == 0
    return holder


def _fit_in_process(monkeypatch, where: Path, *args: str) -> int:
    """``sqlnb fit`` run in this process (so a test can step in before it opens the file)."""
    from sqlnb import cli

    monkeypatch.chdir(where)
    with pytest.raises(SystemExit) as stopped:
        cli.main(["fit", *args])
    return stopped.value.code


def _winner(path: Path) -> list[tuple]:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute("SELECT answer FROM winner").fetchall()


def test_a_fit_that_loses_the_race_for_a_new_file_leaves_the_winners_file(iris, monkeypatch):
    """Another process opens the new file between this command's check that it is missing
    and its own open: this command fails (it cannot take DuckDB's lock) and must not remove
    the file the other process holds."""
    where, _, _ = iris
    path, holders = where / "new.duckdb", []
    real_connect = sqlnb_api.connect

    def connect_after_another_process(database, **options):
        if os.path.abspath(database) == str(path) and not holders:
            holders.append(_another_process_opens(path, hold=True))
        return real_connect(database, **options)

    monkeypatch.setattr(sqlnb_api, "connect", connect_after_another_process)
    code = _fit_in_process(monkeypatch, where, str(path), "m", "iris.parquet", "-t", "species")
    assert code == 1
    assert path.exists()
    holders[0].communicate("done\n", timeout=120)
    assert holders[0].returncode == 0
    assert _winner(path) == [(42,)]


def test_a_new_file_written_by_another_process_before_the_lock_is_kept(iris, monkeypatch):
    """This command created the file, but another process opened and wrote it before this
    command's connection took the lock: the file is no longer this command's to remove."""
    where, _, _ = iris
    path, written = where / "new.duckdb", []
    real_connect = sqlnb_api.connect

    def connect_after_another_process(database, **options):
        if os.path.abspath(database) == str(path) and not written:
            written.append(_another_process_opens(path, hold=False))
        return real_connect(database, **options)

    monkeypatch.setattr(sqlnb_api, "connect", connect_after_another_process)
    code = _fit_in_process(monkeypatch, where, str(path), "m", "iris.parquet", "-t", "colour")
    assert code == 1  # no column "colour"
    assert _winner(path) == [(42,)]


def test_fits_racing_to_create_one_file_keep_every_winners_model(iris):
    """Several fits start on one new database file at once: the file survives, and every
    fit that reported success has its model in it, fitted as scikit-learn fits it (the
    others fail on DuckDB's lock and remove nothing)."""
    where, X, y = iris
    parts = {f"m{i}": np.arange(len(y)) % 4 != i for i in range(4)}
    frame = pd.DataFrame(X, columns=FEATURES).assign(species=y)
    for name, rows in parts.items():
        frame[rows].to_parquet(where / f"{name}.parquet", index=False)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = {name: subprocess.Popen([sys.executable, "-m", "sqlnb", "fit", "race.duckdb", name,
                                    f"{name}.parquet", "-t", "species", "--no-progress"],
                                   cwd=where, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
            for name in parts}
    results = {name: (run.wait(timeout=600), run.stderr.read()) for name, run in runs.items()}
    for run in runs.values():
        run.stdout.close()
        run.stderr.close()
    winners = [name for name, (code, _) in results.items() if code == 0]
    assert winners, results
    for name, (code, stderr) in results.items():
        assert code == 0 or "lock" in stderr.lower(), stderr
    con = duckdb.connect(str(where / "race.duckdb"), read_only=True)
    assert sorted(m["model"] for m in sqlnb_api.list_models(con)) == sorted(winners)
    for name in winners:
        model = sqlnb_api.load(con, name)
        got = np.array(model.predict_proba(frame[FEATURES]).fetchnumpy()[
            f"proba_{SPECIES[0]}"])
        expected = GaussianNB().fit(X[parts[name]], y[parts[name]]).predict_proba(X)
        np.testing.assert_allclose(got, expected[:, 0], atol=1e-9)
    con.close()


def test_a_failed_fit_keeps_the_earlier_model(iris):
    where, X, y = iris
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "species", cwd=where)
    assert sqlnb("fit", "m.duckdb", "flowers", "iris.parquet", "-t", "colour",
                 cwd=where).returncode == 1
    ok("predict", "m.duckdb", "flowers", "iris.parquet", "-o", "p.parquet", cwd=where)
    assert read(where / "p.parquet")["prediction"].tolist() == \
        GaussianNB().fit(X, y).predict(X).tolist()


def test_search_prints_grid_search_cvs_means_and_refits_the_best(iris):
    from sklearn.model_selection import GridSearchCV, PredefinedSplit

    where, X, y = iris
    folds = np.arange(len(y)) % 3
    read(where / "iris.parquet").assign(fold=folds).to_parquet(where / "folds.parquet")
    report = json.loads(ok("search", "m.duckdb", "flowers", "folds.parquet", "-t", "species",
                           "--grid", "var_smoothing=[1e-9,0.5,2.0]", "--cv", "fold",
                           "--scoring", "accuracy,neg_log_loss", "--json", cwd=where))
    grid = {"var_smoothing": [1e-9, 0.5, 2.0]}
    oracle = GridSearchCV(GaussianNB(), grid, cv=PredefinedSplit(folds),
                          scoring=["accuracy", "neg_log_loss"], refit="accuracy").fit(X, y)
    got = [c["mean_test_neg_log_loss"] for c in report["candidates"]]
    np.testing.assert_allclose(got, oracle.cv_results_["mean_test_neg_log_loss"], atol=1e-9)
    assert report["best_params"] == oracle.best_params_
    ok("predict", "m.duckdb", "flowers", "iris.parquet", "--proba", "-o", "p.parquet",
       cwd=where)
    got = read(where / "p.parquet")[[f"proba_{s}" for s in SPECIES]].to_numpy()
    np.testing.assert_allclose(got, oracle.best_estimator_.predict_proba(X), atol=1e-9)


def test_search_by_group_scores_as_grid_search_cv_of_one_model_per_group(iris):
    from sklearn.model_selection import GridSearchCV, PredefinedSplit

    from tests.test_search import PerGroup

    where, X, y = iris
    folds = np.arange(len(y)) % 3
    sides = np.where(np.arange(len(y)) % 2 == 0, "east", "west")
    read(where / "iris.parquet").assign(fold=folds, side=sides).to_parquet(
        where / "sides.parquet")
    report = json.loads(ok("search", "m.duckdb", "flowers", "sides.parquet", "-t", "species",
                           "--features", ",".join(FEATURES), "--group-by", "side",
                           "--grid", "var_smoothing=[1e-9,0.5]", "--cv", "fold",
                           "--scoring", "neg_log_loss", "--json", cwd=where))
    oracle = GridSearchCV(PerGroup(GaussianNB()), {"estimator__var_smoothing": [1e-9, 0.5]},
                          cv=PredefinedSplit(folds), scoring="neg_log_loss")
    oracle.fit(np.column_stack([sides, X]).astype(object), y)
    got = [c["mean_test_neg_log_loss"] for c in report["candidates"]]
    np.testing.assert_allclose(got, oracle.cv_results_["mean_test_score"], atol=1e-9)


def test_search_over_a_text_column_scores_as_grid_search_cv_over_the_pipeline(tmp_path):
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.model_selection import GridSearchCV, PredefinedSplit
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import Pipeline

    from tests.test_search_text import _corpus

    frame = _corpus(seed=3)
    frame.to_parquet(tmp_path / "mail.parquet")
    report = json.loads(ok("search", "m.duckdb", "mail", "mail.parquet", "-t", "y",
                           "-f", "multinomial", "--text", "body",
                           "--text-option", "ngram_range=[1,2]",
                           "--grid", "alpha=[0.1,1.0]", "--grid", "min_df=[1,2]",
                           "--cv", "fold", "--json", cwd=tmp_path))
    oracle = GridSearchCV(Pipeline([("vec", CountVectorizer(ngram_range=(1, 2))),
                                    ("nb", MultinomialNB())]),
                          {"nb__alpha": [0.1, 1.0], "vec__min_df": [1, 2]},
                          cv=PredefinedSplit(frame["fold"].to_numpy())).fit(frame["body"],
                                                                            frame["y"])
    got = [c["mean_test_accuracy"] for c in report["candidates"]]
    np.testing.assert_allclose(got, oracle.cv_results_["mean_test_score"], atol=1e-9)
