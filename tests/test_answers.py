"""No silent wrong answers: row order, consistent reads, literal values, types compared by
value, output-column clashes, sample weights and argument validation."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import flat

import sqlnb
from sqlnb import errors

# Enough rows, and threads, for DuckDB to scan in parallel and finish joins out of order.
MANY = 300_000


@pytest.fixture
def parallel():
    con = duckdb.connect()
    con.execute("SET threads = 4")
    con.execute(
        f"CREATE TABLE big AS SELECT i AS id, i % 7 AS store, (hash(i) % 1000) / 100.0 AS x, "
        f"CAST(hash(i * 3) % 5 AS INTEGER) AS k, 'w' || (i % 3) || ' w' || (hash(i) % 4) AS body, "
        f"CAST(hash(i + 1) % 2 AS INTEGER) AS y FROM range({MANY}) r(i)")
    yield con
    con.close()


def ids(relation):
    return relation.fetchnumpy()["id"]


@pytest.mark.parametrize("output", ["predict", "predict_proba"])
def test_per_group_scoring_keeps_the_source_row_order(parallel, output):
    model = sqlnb.NaiveBayes("stores", con=parallel)
    model.fit(parallel.sql("SELECT store, x, y FROM big"), "y", group_by="store")
    scored = getattr(model, output)("big")
    np.testing.assert_array_equal(ids(scored), np.arange(MANY))


def test_plain_and_mixed_scoring_keep_the_source_row_order(parallel):
    plain = sqlnb.NaiveBayes("plain", con=parallel).fit(
        parallel.sql("SELECT x, y FROM big"), "y")
    np.testing.assert_array_equal(ids(plain.predict_proba("big")), np.arange(MANY))
    mixed = sqlnb.NaiveBayes("mixed", con=parallel, family="auto", integers="categorical")
    mixed.fit(parallel.sql("SELECT x, k, y FROM big"), "y")
    np.testing.assert_array_equal(ids(mixed.predict("big")), np.arange(MANY))


def test_text_scoring_keeps_the_source_row_order(parallel):
    model = sqlnb.NaiveBayes("text", con=parallel, family="multinomial")
    model.fit(parallel.sql("SELECT body, y FROM big LIMIT 1000"), "y", text="body")
    np.testing.assert_array_equal(ids(model.predict("big")), np.arange(MANY))


# Every character str.splitlines() breaks at (and so would a Jinja `indent` filter).
LINE_BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028",
               "\u2029"]


@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("unseen", ["smooth", "error"])
def test_macros_score_categories_and_names_with_line_breaks_as_predict_does(grouped, unseen):
    con = duckdb.connect()
    categories = [f"a{brk}b" for brk in LINE_BREAKS]
    column = "colour\nname\u2028x"
    con.execute(f"""CREATE TABLE t AS
                    SELECT list_extract(?, 1 + i % {len(categories)}) AS "{column}",
                        i % 2 AS store, CAST(hash(i) % 2 AS INTEGER) AS y
                    FROM range(400) r(i)""",
                [categories])
    model = sqlnb.NaiveBayes("lines", con=con, family="categorical", alpha=0.5, unseen=unseen)
    model.fit("t", "y", group_by="store" if grouped else None)
    expected = model.predict_proba("t").fetchall()
    # every category was seen at fit: the macros must find each one (no error, same numbers)
    via_macro = con.sql("SELECT lines_predict_proba(t) AS p FROM t").fetchall()
    assert flat((r[0]["0"], r[0]["1"]) for r in via_macro) == pytest.approx(
        flat((r[-2], r[-1]) for r in expected), abs=1e-12)


# --------------------------------------------------------------------------- sample weights
def weighted_table(con, weights):
    con.execute("CREATE OR REPLACE TABLE w AS SELECT * FROM (VALUES "
                + ", ".join(f"({i % 2}, {float(i)}, ?)" for i in range(len(weights)))
                + ") v(y, x, w)", weights)
    return "w"


@pytest.mark.parametrize("family", ["gaussian", "multinomial", "categorical", "auto"])
@pytest.mark.parametrize("weights, message", [
    ([1.0, -0.5, 2.0, 1.0], "negative"),
    ([0.0, 0.0, 0.0, 0.0], "at least one non-zero"),
    ([1.0, float("nan"), 2.0, 1.0], "NaN"),
    ([1.0, None, 2.0, 1.0], "NULL"),
    ([1.0, float("inf"), 2.0, 1.0], "infinity"),
])
def test_invalid_sample_weights_are_refused_and_change_nothing(con, family, weights, message):
    # scikit-learn: check_array refuses NaN and infinity, _check_sample_weight all-zero
    # weights; sqlnb also refuses negative weights (a negative count) and NULL.
    table = weighted_table(con, weights)
    model = sqlnb.NaiveBayes("wm", con=con, family=family)
    calls = [lambda: model.fit(table, "y", weight="w")]
    if family != "auto":  # (mixed models have no partial_fit)
        calls.append(lambda: model.partial_fit(table, "y", weight="w"))
    for call in calls:
        with pytest.raises(errors.InvalidDataError, match=message):
            call()
    assert con.sql("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'wm%'"
                   ).fetchall() == [(0,)]


def test_text_and_long_fits_refuse_negative_weights(con):
    con.execute("CREATE TABLE docs AS SELECT * FROM (VALUES ('a b', 0, 1.0), ('b c', 1, -1.0))"
                " v(body, y, w)")
    model = sqlnb.NaiveBayes("tm", con=con, family="multinomial")
    with pytest.raises(errors.InvalidDataError, match="negative"):
        model.fit("docs", "y", text="body", weight="w")
    con.execute("CREATE TABLE cells AS SELECT * FROM (VALUES (1, 'a', 1), (2, 'b', 1)) "
                "v(document, feature, value)")
    con.execute("CREATE TABLE labels AS SELECT * FROM (VALUES (1, 0, 0.0), (2, 1, 0.0)) "
                "v(document, y, w)")
    with pytest.raises(errors.InvalidDataError, match="non-zero"):
        model.fit_long("cells", "y", labels="labels", weight="w")


def test_zero_weights_on_some_rows_are_still_accepted(con):
    table = weighted_table(con, [1.0, 0.0, 2.0, 1.0, 0.0, 3.0])
    model = sqlnb.NaiveBayes("zm", con=con, family="multinomial").fit(table, "y", weight="w")
    assert model.classes_ == [0, 1]


# ----------------------------------------------------------------------- argument validation
@pytest.mark.parametrize("family, params, message", [
    ("multinomial", {"alpha": "1"}, r"'alpha' parameter of multinomial .* Got '1'"),
    ("categorical", {"min_categories": -3}, r"'min_categories' .* int in the range \[1, inf\)"),
    ("categorical", {"min_categories": 0}, r"'min_categories'"),
    ("bernoulli", {"fit_prior": "no"}, r"'fit_prior' .* 'bool'. Got 'no'"),
    ("complement", {"norm": 1}, r"'norm' .* 'bool'"),
    ("multinomial", {"force_alpha": "yes"}, r"'force_alpha'"),
    ("gaussian", {"var_smoothing": float("nan")}, r"'var_smoothing'"),
    ("gaussian", {"priors": "0.5"}, r"'priors'"),
    ("bernoulli", {"binarize": -1.0}, r"'binarize'"),
    ("categorical", {"unseen": "skip"}, r"'unseen'"),
    ("poisson", {"missing": "drop"}, r"'missing'"),
    ("auto", {"alpha": "1"}, r"'alpha' parameter of auto"),
    ("auto", {"integers": "bernoulli"}, r"'integers'"),
])
def test_hyperparameters_follow_scikit_learns_constraints(family, params, message):
    with pytest.raises(errors.InvalidParameterError, match=message):
        sqlnb.NaiveBayes("m", family=family, **params)


def test_scikit_learn_refuses_the_same_hyperparameters():
    from sklearn.naive_bayes import BernoulliNB, CategoricalNB, MultinomialNB

    X, y = np.array([[0, 1], [1, 0]]), np.array([0, 1])
    for estimator in (MultinomialNB(alpha="1"), CategoricalNB(min_categories=-3),
                      BernoulliNB(fit_prior="no")):
        with pytest.raises(ValueError, match="parameter of"):
            estimator.fit(X, y)


def test_valid_hyperparameters_are_accepted():
    sqlnb.NaiveBayes("m", family="categorical", min_categories=np.int64(3), alpha=0)
    sqlnb.NaiveBayes("m", family="multinomial", alpha=[0.5, 1], fit_prior=np.bool_(False))
    sqlnb.NaiveBayes("m", family="bernoulli", binarize=None)


def test_a_string_of_features_is_not_read_as_its_letters(con):
    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i * 1.0 AS x, i * 2.0 AS z "
                "FROM range(10) r(i)")
    model = sqlnb.NaiveBayes("m", con=con)
    with pytest.raises(errors.InvalidParameterError, match=r"features=\['xz'\]"):
        model.fit("t", "y", features="xz")
    with pytest.raises(errors.InvalidParameterError, match="list of column names"):
        model.partial_fit("t", "y", features="xz")


@pytest.mark.parametrize("flag", ["binary", "lowercase", "tfidf"])
def test_text_flags_must_be_booleans(con, flag):
    con.execute("CREATE TABLE docs AS SELECT * FROM (VALUES ('a b', 0), ('b c', 1)) v(body, y)")
    model = sqlnb.NaiveBayes("tm", con=con, family="multinomial")
    with pytest.raises(errors.InvalidParameterError, match=f"{flag} must be True or False"):
        model.fit("docs", "y", text="body", **{flag: "no"})


def test_sql_macros_flag_must_be_a_boolean():
    with pytest.raises(errors.InvalidParameterError, match="sql_macros"):
        sqlnb.NaiveBayes("m", sql_macros="no")


# ------------------------------------------------------------------- output-column clashes
@pytest.fixture
def fitted(con):
    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i * 1.0 AS x, 'w' || (i % 3) AS body, "
                "i % 2 AS store FROM range(20) r(i)")
    return con, sqlnb.NaiveBayes("m", con=con).fit("t", "y", features=["x"])


@pytest.mark.parametrize("column, method", [
    ("prediction", "predict"),
    ("Prediction", "predict"),  # DuckDB's names are case-insensitive
    ("proba_1", "predict_proba"),
    ("log_proba_0", "predict_log_proba"),
    ("jll_1", "predict_joint_log_proba"),
    ("__sqlnb_max", "predict"),
    ("__sqlnb_jll_0", "predict_proba"),
])
def test_a_source_column_the_output_would_replace_is_an_error(fitted, column, method):
    con, model = fitted
    clashing = con.sql(f'SELECT *, 42 AS "{column}" FROM t')
    with pytest.raises(errors.InvalidDataError, match=f"column '{column}'"):
        getattr(model, method)(clashing)


def test_the_suggested_rename_lets_a_clashing_source_be_scored(fitted):
    con, model = fitted
    clashing = con.sql("SELECT *, 42 AS prediction FROM t")
    with pytest.raises(errors.InvalidDataError) as caught:
        model.predict(clashing)
    assert "RENAME" in str(caught.value)
    renamed = con.sql("SELECT * RENAME (prediction AS old_prediction) FROM clashing")
    rows = model.predict(renamed).fetchall()
    assert [r[-2:] for r in rows] == [(42, r[-1]) for r in model.predict("t").fetchall()]


def test_columns_that_merely_resemble_outputs_are_kept(fitted):
    con, model = fitted
    scored = model.predict_proba(con.sql("SELECT *, 1 AS proba_2, 2 AS prediction FROM t"))
    assert scored.columns == ["y", "x", "body", "store", "proba_2", "prediction", "proba_0",
                              "proba_1"]


def test_per_group_and_text_scoring_refuse_clashing_columns(fitted):
    con, _ = fitted
    grouped = sqlnb.NaiveBayes("g", con=con).fit("t", "y", features=["x"], group_by="store")
    text = sqlnb.NaiveBayes("tx", con=con, family="multinomial").fit("t", "y", text="body")
    for model in (grouped, text):
        with pytest.raises(errors.InvalidDataError, match="'prediction'"):
            model.predict(con.sql("SELECT *, 0 AS prediction FROM t"))


# ----------------------------------------------------------------- categories by value
@pytest.fixture
def coded(con):
    rng = np.random.default_rng(3)
    n = 200
    frame = pd.DataFrame({"k": rng.integers(0, 4, n), "flag": rng.random(n) < 0.4,
                          "store": rng.integers(0, 2, n)})
    frame["y"] = np.where(rng.random(n) < 0.7, frame["k"] % 2, 1 - frame["k"] % 2)
    return frame


@pytest.mark.parametrize("grouped", [False, True])
def test_a_float_coded_copy_of_an_integer_category_scores_as_the_integers(con, coded, grouped):
    model = sqlnb.NaiveBayes("cat", con=con, family="categorical", unseen="error")
    model.fit(coded, "y", features=["k", "flag"], group_by="store" if grouped else None)
    expected = model.predict_proba(coded).fetchall()
    floats = coded.astype({"k": float})
    floats.loc[0, "k"] = np.nan  # what pandas does to an integer column with a gap
    with pytest.warns(errors.CoercedValuesWarning, match="'k' was BIGINT at fit but is DOUBLE"):
        scored = model.predict_proba(floats).fetchall()
    assert flat(scored[1:]) == pytest.approx(flat(expected[1:]), abs=1e-12)
    # the NaN is a missing value: row 0 is scored on 'flag' alone
    alone = sqlnb.NaiveBayes("flag_only", con=con, family="categorical", unseen="error")
    alone.fit(coded, "y", features=["flag"], group_by="store" if grouped else None)
    assert scored[0][-2:] == pytest.approx(alone.predict_proba(coded).fetchall()[0][-2:])


def test_zeros_and_ones_score_as_a_boolean_category(con, coded):
    model = sqlnb.NaiveBayes("cat", con=con, family="categorical", unseen="error")
    model.fit(coded, "y", features=["k", "flag"])
    expected = model.predict(coded).fetchall()
    as_ints = coded.astype({"flag": int})
    with pytest.warns(errors.CoercedValuesWarning, match="'flag' was BOOLEAN"):
        assert model.predict(as_ints).fetchall() == [
            tuple(int(v) if i == 1 else v for i, v in enumerate(r)) for r in expected]


def test_a_mixed_model_compares_its_categorical_codes_by_value(con, coded):
    model = sqlnb.NaiveBayes("mix", con=con, family="auto", integers="categorical")
    model.fit(coded[["k", "y"]], "y")
    expected = model.predict_log_proba(coded[["k"]]).fetchall()
    with pytest.warns(errors.CoercedValuesWarning):
        scored = model.predict_log_proba(coded[["k"]].astype(float)).fetchall()
    assert flat(r[1:] for r in scored) == pytest.approx(flat(r[1:] for r in expected), abs=1e-12)


@pytest.mark.parametrize("column, values, message", [
    ("k", [1.5, 2.0], r"'k' .* 1 value\(s\) \(e.g. 1.5\) are no BIGINT category"),
    ("flag", [0, 2], r"'flag' .* \(e.g. 2\) are no BOOLEAN category"),
])
def test_values_the_category_type_cannot_hold_are_an_error(con, coded, column, values,
                                                            message):
    model = sqlnb.NaiveBayes("cat", con=con, family="categorical")
    model.fit(coded, "y", features=["k", "flag"])
    frame = coded.head(2).copy()
    frame[column] = values
    with pytest.raises(errors.InvalidDataError, match=message):
        model.predict(frame)


# ------------------------------------------------------------------------ consistent reads
def refit_during_reads(model, after_reads, refit):
    """Make ``refit()`` run right after ``model``'s ``after_reads``-th read statement: a
    writer committing between two of the reader's statements, deterministically."""
    done = []
    reads = []

    def counted(original):
        def fetch(sql, *args, **kwargs):
            rows = original(sql, *args, **kwargs)
            if not sql.lstrip().startswith("--"):
                return rows  # not one of the model's statements (templates say what they do)
            reads.append(sql)
            if len(reads) == after_reads and not done:
                done.append(sql)
                refit()
            return rows
        return fetch

    # every read of the model's own statements (its engine runs them all): rows, or rows
    # with column names (meta)
    model.engine.fetch = counted(model.engine.fetch)
    model.engine.fetch_with_names = counted(model.engine.fetch_with_names)
    return done


OLD = ("SELECT i % 3 AS y, CAST(i % 3 * 2 + i % 5 AS DOUBLE) AS x, i % 2 AS store "
       "FROM range(60) r(i)")
NEW = ("SELECT CASE WHEN i % 2 = 0 THEN 'even' ELSE 'odd' END AS y, CAST(i AS DOUBLE) AS x, "
       "i % 2 AS store FROM range(40) r(i)")


@pytest.mark.parametrize("group_by", [None, "store"])
@pytest.mark.parametrize("after", [1, 2, 3])
def test_scoring_reads_one_version_of_a_model_another_cursor_refits(con, group_by, after):
    reader, writer = con.cursor(), con.cursor()
    sqlnb.NaiveBayes("m", con=writer).fit(writer.sql(OLD), "y", group_by=group_by)
    reference = sqlnb.NaiveBayes("reference", con=writer)
    reference.fit(writer.sql(OLD), "y", group_by=group_by)
    model = sqlnb.NaiveBayes("m", con=reader)  # nothing read yet: predict reads it all
    done = refit_during_reads(model, after, lambda: sqlnb.NaiveBayes("m", con=writer).fit(
        writer.sql(NEW), "y", group_by=group_by))
    scored = model.predict_proba(reader.sql(OLD)).fetchall()
    assert len(done) == 1  # the refit did happen between two reads
    assert model.classes_ == [0, 1, 2]
    assert flat(scored) == pytest.approx(
        flat(reference.predict_proba(writer.sql(OLD)).fetchall()), abs=1e-12)
    assert sqlnb.load(reader, "m").classes_ == ["even", "odd"]  # the refit did commit


def test_reads_inside_a_callers_transaction_leave_it_open(con):
    sqlnb.NaiveBayes("m", con=con).fit(con.sql(OLD), "y")
    con.begin()
    con.execute("CREATE TABLE pending AS SELECT 1 AS x")
    sqlnb.load(con, "m").predict(con.sql(OLD)).fetchall()
    con.commit()
    assert con.sql("SELECT x FROM pending").fetchall() == [(1,)]


def test_a_text_scoring_relation_refuses_to_mix_with_a_later_refit(con):
    reader, writer = con.cursor(), con.cursor()
    writer.execute("CREATE TABLE docs AS SELECT * FROM (VALUES ('apple berry', 0), "
                   "('berry cherry', 1), ('cherry date', 2)) v(body, y)")
    sqlnb.NaiveBayes("tm", con=writer, family="multinomial").fit("docs", "y", text="body")
    scored = sqlnb.NaiveBayes("tm", con=reader, family="multinomial").predict_proba("docs")
    before = scored.fetchall()
    assert len(before) == 3
    sqlnb.NaiveBayes("tm", con=writer, family="multinomial").fit(
        writer.sql("SELECT body, y % 2 AS y FROM docs"), "y", text="body")
    with pytest.raises(duckdb.Error, match="refitted after this scoring relation was made"):
        scored.fetchall()


@pytest.mark.parametrize("estimator", ["GaussianNB", "MultinomialNB", "CategoricalNB"])
@pytest.mark.parametrize("weights", [[1.0, np.nan, 1.0, 1.0], [1.0, np.inf, 1.0, 1.0],
                                     [0.0, 0.0, 0.0, 0.0]])
def test_the_scikit_learn_facade_refuses_weights_as_scikit_learn_does(estimator, weights):
    import sklearn.naive_bayes

    import sqlnb.sklearn

    X, y = np.array([[0, 1], [1, 0], [1, 1], [0, 0]]), np.array([0, 1, 1, 0])
    with pytest.raises(ValueError) as expected:
        getattr(sklearn.naive_bayes, estimator)().fit(X, y, sample_weight=weights)
    with pytest.raises(errors.InvalidDataError) as caught:
        getattr(sqlnb.sklearn, estimator)().fit(X, y, sample_weight=weights)
    assert str(caught.value) == str(expected.value)


def test_the_scikit_learn_facade_refuses_negative_weights():
    from sqlnb.sklearn import MultinomialNB

    X, y = np.array([[0, 1], [1, 0], [1, 1], [0, 0]]), np.array([0, 1, 1, 0])
    with pytest.raises(errors.InvalidDataError, match="Negative values in data passed to "
                                                      "`sample_weight`"):
        MultinomialNB().fit(X, y, sample_weight=[1.0, -1.0, 1.0, 1.0])


def test_a_string_of_classes_is_not_read_as_its_letters(con):
    con.execute("CREATE TABLE t AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y, "
                "i * 1.0 AS x FROM range(10) r(i)")
    with pytest.raises(errors.InvalidParameterError, match=r"classes=\['ab'\]"):
        sqlnb.NaiveBayes("m", con=con).partial_fit("t", "y", classes="ab")


def test_evaluate_compares_categories_by_value_too(con, coded):
    model = sqlnb.NaiveBayes("cat", con=con, family="categorical", unseen="error")
    model.fit(coded, "y", features=["k", "flag"])
    expected = model.evaluate(coded)
    with pytest.warns(errors.CoercedValuesWarning):
        scored = model.evaluate(coded.astype({"k": float}))
    # log_loss is a parallel sum: its last bits depend on how many threads add it up
    assert scored.pop("log_loss") == pytest.approx(expected.pop("log_loss"), rel=1e-12)
    assert scored == expected
