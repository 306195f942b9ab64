"""Per-group text models: ``fit(source, target, text=..., group_by=...)``.

Each group's model equals a text model fitted on that group's rows alone (same analyzer
options, its own vocabulary); a row of a group no fit saw, or of a NULL group, is scored
by the pooled model over every row. The oracle: scikit-learn's vectorizer + naive Bayes
fitted per group (and once on every row for the pooled model); probabilities within 1e-9,
predictions identical.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest

import sqlnb
from sqlnb.errors import (
    InvalidDataError,
    InvalidParameterError,
    UnknownColumnError,
)
from tests.test_text import make_corpus, sklearn_pipeline

TOL = {"rtol": 1e-9, "atol": 1e-9}


def with_groups(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Shops a, b and c (c has no 'news' document) and a few rows of no shop."""
    rng = np.random.default_rng(seed)
    shop = rng.choice(np.array(["a", "b", "c"], dtype=object), len(frame))
    shop[(shop == "c") & (frame["label"] == "news").to_numpy()] = "a"
    shop[rng.random(len(frame)) < 0.05] = None
    return frame.assign(shop=shop)


@pytest.fixture(scope="module")
def corpus() -> tuple[pd.DataFrame, pd.DataFrame]:
    train = with_groups(make_corpus(240, 21), 1)
    test = with_groups(make_corpus(90, 22), 2)
    test.loc[test.index[:6], "shop"] = "unseen"
    return train, test


@pytest.fixture()
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    yield connection
    connection.close()


def reference(family: str, options: dict, train: pd.DataFrame, test: pd.DataFrame,
              classes: list[str]) -> np.ndarray:
    """Probabilities per class of ``classes``: each test row by its shop's pipeline (0 for
    a class the shop never saw), the pooled one for other shops and no shop."""
    def proba(rows: pd.DataFrame, scored: pd.DataFrame) -> np.ndarray:
        vectorizer, nb = sklearn_pipeline(family, options, {})
        nb.fit(vectorizer.fit_transform(rows["body"]), rows["label"])
        out = np.zeros((len(scored), len(classes)))
        out[:, [classes.index(c) for c in nb.classes_]] = nb.predict_proba(
            vectorizer.transform(scored["body"]))
        return out

    result = proba(train, test)
    for shop in set(train["shop"].dropna()):
        rows = (test["shop"] == shop).to_numpy()
        if rows.any():
            result[rows] = proba(train[train["shop"] == shop], test[rows])
    return result


def scores(model: sqlnb.NaiveBayes, table: str) -> tuple[list[str], np.ndarray]:
    frame = model.predict_proba(table).df().sort_values("row")
    predicted = model.predict(table).df().sort_values("row")["prediction"].tolist()
    return predicted, frame[[f"proba_{c}" for c in model.classes_]].to_numpy()


def load(con, corpus) -> None:
    for name, frame in zip(("train", "test"), corpus):
        con.register("frame", frame.reset_index(drop=True))
        con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT *, row_number() OVER () AS row "
                    "FROM frame")
        con.unregister("frame")


def assert_as_reference(model, family, options, train, test) -> None:
    want = reference(family, options, train, test, model.classes_)
    predicted, proba = scores(model, "test")
    np.testing.assert_allclose(proba, want, **TOL)
    assert predicted == [model.classes_[i] for i in want.argmax(axis=1)]


@pytest.mark.parametrize("family, options", [
    ("multinomial", {}),
    ("complement", {"tfidf": True, "ngram_range": (1, 2), "stop_words": "english"}),
    ("bernoulli", {"min_df": 2, "binary": True}),
])
def test_each_group_scores_as_a_text_model_of_its_rows(con, corpus, family, options):
    load(con, corpus)
    model = sqlnb.NaiveBayes("shops", con=con, family=family)
    model.fit("train", "label", text="body", group_by="shop", **options)
    train, test = corpus
    assert_as_reference(model, family, options, train, test)
    # a class shop c never saw has probability 0 there
    c_rows = model.predict_proba("test").df().query("shop == 'c'")
    assert len(c_rows) and (c_rows["proba_news"] == 0).all()
    assert_as_reference(sqlnb.load(con, "shops"), family, options, train, test)
    metrics = model.evaluate("test")
    want = reference(family, options, train, test, model.classes_)
    accuracy = np.mean(np.array(model.classes_)[want.argmax(axis=1)] == test["label"])
    assert metrics["accuracy"] == pytest.approx(accuracy, rel=1e-12)


def macro_scores(con, name: str, table: str, classes: list[str]
                 ) -> tuple[list, np.ndarray, np.ndarray]:
    """The model's scoring macros on each row of ``table`` (row order): the predictions,
    the probabilities and the joint log-likelihoods."""
    rows = con.sql(f"SELECT {name}_predict(t), {name}_predict_proba(t), "
                   f"{name}_joint_log_likelihood(t) FROM {table} t ORDER BY row").fetchall()
    return ([r[0] for r in rows], np.array([[r[1][c] for c in classes] for r in rows]),
            np.array([r[2] for r in rows]))


def assert_macros_as_predict(model: sqlnb.NaiveBayes, table: str = "test") -> None:
    """The scoring macros (row and table) give what predict* gives."""
    predicted, proba = scores(model, table)
    got = macro_scores(model.con, model.name, table, model.classes_)
    assert got[0] == predicted
    np.testing.assert_allclose(got[1], proba, **TOL)
    joint = model.predict_joint_log_proba(table).df().sort_values("row")
    np.testing.assert_allclose(got[2], joint[[f"jll_{c}" for c in model.classes_]], **TOL)
    table_macro = model.con.sql(f"SELECT * FROM {model.name}_score('{table}')").df()
    assert table_macro["prediction"].tolist() == predicted  # (in the table's order)


@pytest.mark.parametrize("family, options", [
    ("multinomial", {}),
    ("complement", {"tfidf": True, "ngram_range": (1, 2), "stop_words": "english"}),
    ("bernoulli", {"min_df": 2, "binary": True}),
])
def test_macros_and_to_sql_score_each_row_by_its_groups_model(con, corpus, family, options):
    """<name>_predict(row)… and to_sql's statement route each row as predict does: its
    shop's model, the pooled one for an unseen shop or none (scikit-learn per shop); the
    explain macro and to_sql(output="explain") give model.explain's rows."""
    load(con, corpus)
    train, test = corpus
    model = sqlnb.NaiveBayes("shops", con=con, family=family)
    model.fit("train", "label", text="body", group_by="shop", **options)
    classes = model.classes_
    want = reference(family, options, train, test, classes)
    predicted, proba, joint = macro_scores(con, "shops", "test", classes)
    np.testing.assert_allclose(proba, want, **TOL)
    assert predicted == [classes[i] for i in want.argmax(axis=1)]
    assert np.isneginf(joint[(test["shop"] == "c").to_numpy(), classes.index("news")]).all()
    assert_macros_as_predict(model)

    bare = duckdb.connect()  # no model there: every group's parameters are in the statement
    bare.register("test", con.sql("SELECT * FROM test").df())
    statement = model.to_sql("test", output="predict_proba")
    assert "shops_" not in statement.split("\n", 3)[3]  # (the header names the model)
    got = bare.sql(statement).df()
    assert got["row"].tolist() == list(range(1, len(test) + 1))  # the source's order
    np.testing.assert_allclose(got[[f"proba_{c}" for c in classes]].to_numpy(), want, **TOL)
    assert got["prediction"].tolist() == predicted
    jll = bare.sql(model.to_sql("test", output="joint")).df()[[f"jll_{c}" for c in classes]]
    np.testing.assert_allclose(jll.to_numpy(), joint, **TOL)

    order = "ORDER BY row_number, class, feature"
    expected = model.explain("test").order("row_number, class, feature").fetchall()
    for got_rows in (bare.sql(f"SELECT * FROM ({model.to_sql('test', output='explain')}) "
                              f"{order}").fetchall(),
                     con.sql(f"SELECT * FROM shops_explain('test') {order}").fetchall()):
        assert [r[:3] for r in got_rows] == [r[:3] for r in expected]
        np.testing.assert_allclose([r[3:] for r in got_rows], [r[3:] for r in expected],
                                   **TOL)
    top = bare.sql(model.to_sql("test", output="explain", top=2)).fetchall()
    assert [r[:3] + r[5:] for r in top] == [
        r[:3] + r[5:] for r in model.explain("test", top=2).fetchall()]
    bare.close()


def routed_terms(family: str, options: dict, train: pd.DataFrame, test: pd.DataFrame,
                 classes: list[str]) -> tuple[list[dict], np.ndarray]:
    """scikit-learn's view of each test row under the model that scores it (its shop's,
    the pooled one for another shop or none): per row, {(class, term): the term's part of
    the class's joint log-likelihood}, and the joint log-likelihoods (-inf for a class the
    shop never saw)."""
    parts: list[dict] = [{} for _ in range(len(test))]
    joint = np.full((len(test), len(classes)), -np.inf)

    def fill(rows: pd.DataFrame, chosen: np.ndarray) -> None:
        vectorizer, nb = sklearn_pipeline(family, options, {})
        nb.fit(vectorizer.fit_transform(rows["body"]), rows["label"])
        X = vectorizer.transform(test["body"][chosen]).tocsr()
        if family == "bernoulli":  # present terms (binarize=0.0): log p - log(1 - p)
            X.data = (X.data > 0).astype(float)
            coef = nb.feature_log_prob_ - np.log1p(-np.exp(nb.feature_log_prob_))
        else:
            coef = nb.feature_log_prob_
        terms = vectorizer.get_feature_names_out()
        at = [classes.index(c) for c in nb.classes_]
        joint[np.flatnonzero(chosen)[:, None], at] = nb.predict_joint_log_proba(X)
        for i, r in enumerate(np.flatnonzero(chosen)):
            row = X.getrow(i)
            for j, x in zip(row.indices, row.data):
                for c, label in enumerate(nb.classes_):
                    parts[r][label, terms[j]] = x * coef[c, j]

    shops = set(train["shop"].dropna())
    fill(train, ~test["shop"].isin(shops).to_numpy())
    for shop in shops:
        fill(train[train["shop"] == shop], (test["shop"] == shop).to_numpy())
    return parts, joint


@pytest.mark.parametrize("family, options", [
    ("multinomial", {}),
    ("complement", {"tfidf": True, "ngram_range": (1, 2)}),
    ("bernoulli", {"min_df": 2, "binary": True}),
])
def test_explain_each_row_by_the_model_that_scores_it(con, corpus, family, options):
    """Each row is explained by its shop's model (the pooled one for an unseen shop or no
    shop): its terms are scikit-learn's (the vectorizer value times the coefficient of
    the model fitted on that shop's rows), log_prior + its terms is predict_joint_log_proba
    for every class, and top=k ranks them as a NumPy reference does."""
    load(con, corpus)
    train, test = corpus
    model = sqlnb.NaiveBayes("shops", con=con, family=family)
    model.fit("train", "label", text="body", group_by="shop", **options)
    classes = model.classes_
    parts, joint = routed_terms(family, options, train, test, classes)
    assert test["shop"].isna().any() and (test["shop"] == "unseen").any()

    rows = model.explain("test").fetchall()
    sums: dict = {}
    priors: dict = {}
    for row, label, feature, log_likelihood, log_prior in rows:
        assert log_likelihood == pytest.approx(parts[row][label, feature], rel=1e-9, abs=1e-9)
        sums[row, label] = sums.get((row, label), 0.0) + log_likelihood
        priors.setdefault((row, label), log_prior)
    assert {(r, f) for r, label, f, _, _ in rows} == {
        (r, f) for r, found in enumerate(parts) for _, f in found}
    got = model.predict_joint_log_proba("test").df().sort_values("row")
    got = got[[f"jll_{c}" for c in classes]].to_numpy()
    np.testing.assert_allclose(got, joint, **TOL)  # the scores explained are scikit-learn's
    explained = {r for r, _ in sums}
    routes = {"unseen": 0, "none": 0, "c": 0}
    for r in explained:
        shop = test["shop"].iloc[r]
        key = "none" if pd.isna(shop) else shop if shop in routes else None
        if key:
            routes[key] += 1
        for c, label in enumerate(classes):
            if np.isinf(got[r, c]):  # a class the row's shop never saw: no terms
                assert (r, label) not in sums and shop == "c"
            else:
                assert priors[r, label] + sums[r, label] == pytest.approx(
                    got[r, c], rel=1e-9, abs=1e-9)
    assert all(routes.values()), routes  # unseen, NULL and shop c rows all explained
    assert len(explained) > len(test) * 0.8

    k = 3
    top = model.explain("test", top=k).fetchall()
    by_row: dict = {}
    for row, rank, feature, _, contribution, prediction, runner_up in top:
        by_row.setdefault(row, []).append((rank, feature, contribution, prediction, runner_up))
    assert set(by_row) == explained
    for r, ranked in by_row.items():
        order = np.argsort(-joint[r], kind="stable")
        first, second = classes[order[0]], classes[order[1]]
        if not np.isinf(joint[r, order[1]]) and joint[r, order[0]] - joint[r, order[1]] < 1e-9:
            continue  # a tie that rounding may break either way
        contributions = {f: v - parts[r].get((second, f), 0.0)
                         for (label, f), v in parts[r].items() if label == first}
        want = sorted(contributions.values(), reverse=True)[:k]
        assert [rank for rank, *_ in ranked] == list(range(1, len(want) + 1))
        np.testing.assert_allclose([c for _, _, c, _, _ in ranked], want, **TOL)
        for _, feature, contribution, prediction, runner_up in ranked:
            assert contribution == pytest.approx(contributions[feature], rel=1e-9, abs=1e-9)
            assert (prediction, runner_up) == (first, second)

    r = int(test.index.get_indexer([test[test["shop"] == "unseen"].index[0]])[0])
    assert sorted(model.explain("test", row=r).fetchall()) == sorted(
        x for x in rows if x[0] == r)
    assert model.explain("test", row=r, top=k).fetchall() == [
        x for x in sorted(top) if x[0] == r]
    con.execute("CREATE TABLE no_shop_column AS SELECT body FROM test")
    with pytest.raises(UnknownColumnError, match="shop"):
        model.explain("no_shop_column")
    drift = model.drift("test").fetchall()  # the pooled model's term shares
    assert [d[0] for d in drift] == ["body"]


def test_updates_add_groups_and_forgetting_a_group_drops_its_model(con, corpus):
    load(con, corpus)
    train, test = corpus
    con.execute("CREATE TABLE first AS SELECT * FROM train WHERE shop IS DISTINCT FROM 'c'")
    con.execute("CREATE TABLE shop_c AS SELECT * FROM train WHERE shop = 'c'")
    model = sqlnb.NaiveBayes("shops", con=con, family="multinomial")
    model.partial_fit("first", "label", text="body", group_by="shop")
    model.partial_fit("shop_c", "label", text="body")  # group_by may be left out
    # shop c's model is fitted on its rows; the pooled model keeps the first vocabulary
    c_test = test[test["shop"] == "c"]
    want = reference("multinomial", {}, train[train["shop"] == "c"], c_test, model.classes_)
    got = model.predict_proba("test").df().sort_values("row").query("shop == 'c'")
    np.testing.assert_allclose(got[[f"proba_{c}" for c in model.classes_]].to_numpy(),
                               want, **TOL)
    # forgetting all of shop c drops its model: its rows are scored by the pooled model
    plain = sqlnb.NaiveBayes("plain", con=con, family="multinomial")
    plain.partial_fit("first", "label", text="body").partial_fit("shop_c", "label", text="body")
    model.forget("shop_c", "label", text="body", group_by="shop")
    plain.forget("shop_c", "label", text="body")
    pooled = plain.predict_proba("test").df().sort_values("row").query("shop == 'c'")
    got = model.predict_proba("test").df().sort_values("row").query("shop == 'c'")
    np.testing.assert_allclose(got[[f"proba_{c}" for c in model.classes_]].to_numpy(),
                               pooled[[f"proba_{c}" for c in plain.classes_]].to_numpy(), **TOL)
    groups = con.sql("SELECT shop FROM shops_text_groups ORDER BY 1").fetchall()
    assert groups == [("a",), ("b",)]
    assert_macros_as_predict(model)  # the macros follow the updates
    with pytest.raises(InvalidDataError, match="never learned"):
        model.forget("shop_c", "label", text="body")


def test_merge_equals_a_fit_on_the_union_group_by_group(con, corpus):
    """Shop c only in the second model: its merged model is a copy of that one's."""
    load(con, corpus)
    train, test = corpus
    con.execute("CREATE TABLE first AS SELECT * FROM train WHERE row % 2 = 0 AND "
                "shop IS DISTINCT FROM 'c'")
    con.execute("CREATE TABLE second AS SELECT * FROM train WHERE row % 2 = 1")
    first = sqlnb.NaiveBayes("first_m", con=con, family="complement")
    first.fit("first", "label", text="body", group_by="shop")
    second = sqlnb.NaiveBayes("second_m", con=con, family="complement")
    second.fit("second", "label", text="body", group_by="shop")
    row = train.index + 1  # (row numbers start at 1)
    union = pd.concat([train[row % 2 == 1], train[(row % 2 == 0) & (train["shop"] != "c")]])
    merged = sqlnb.merge(con, [first, "second_m"], into="merged")
    assert_as_reference(merged, "complement", {}, union, test)
    assert_macros_as_predict(merged)
    first.merge(second)  # into one of them: its groups keep their numbers
    assert_as_reference(first, "complement", {}, union, test)
    assert_macros_as_predict(first)
    assert con.sql("SELECT group_index, shop FROM first_m_text_groups ORDER BY 1").fetchall() \
        == [(0, "a"), (1, "b"), (2, "c")]


def relations(con, prefix: str) -> list[str]:
    return [r[0] for r in con.sql(
        "SELECT table_name FROM duckdb_tables() WHERE starts_with(table_name, $p) "
        "UNION ALL SELECT view_name FROM duckdb_views() WHERE starts_with(view_name, $p) "
        "ORDER BY 1", params={"p": prefix}).fetchall()]


def test_a_refit_or_drop_removes_the_group_models(con, corpus):
    load(con, corpus)
    model = sqlnb.NaiveBayes("shops", con=con, family="multinomial")
    model.fit("train", "label", text="body", group_by="shop")
    assert "shops_text_group_2_vocabulary" in relations(con, "shops_")
    model.fit("train", "label", text="body")
    assert not [r for r in relations(con, "shops_") if "group" in r]
    model.fit("train", "label", text="body", group_by="shop")
    model.drop()
    assert relations(con, "shops") == []


def statistics(con, name: str) -> dict[str, list]:
    """Every table of model ``name`` but its metadata row (statistics, vocabularies,
    analyzers, the table of groups), each in its stored order."""
    tables = [r[0] for r in con.sql(
        "SELECT table_name FROM duckdb_tables() WHERE starts_with(table_name, $p) "
        "AND NOT ends_with(table_name, '_meta') ORDER BY 1", params={"p": name + "_"}).fetchall()]
    return {t: con.sql(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in tables}


def test_export_then_import_is_the_same_model(con, corpus, tmp_path):
    """The imported model has the same statistics to the bit, group by group (a forget
    that emptied a group leaves a gap in the group numbers, kept), scores as the
    exported one and as scikit-learn per shop, has its macros, and updates alike."""
    load(con, corpus)
    train, test = corpus
    options = {"tfidf": True, "ngram_range": (1, 2)}
    model = sqlnb.NaiveBayes("shops", con=con, family="complement")
    model.fit("train", "label", text="body", group_by="shop", **options)
    elsewhere = duckdb.connect()
    elsewhere.register("test", con.sql("SELECT * FROM test").df())
    imported = sqlnb.import_model(elsewhere, model.export(tmp_path / "shops"))
    assert statistics(elsewhere, "shops") == statistics(con, "shops")
    assert_as_reference(imported, "complement", options, train, test)
    assert scores(imported, "test")[0] == scores(model, "test")[0]
    # (sums in another order may differ in the last bit: see docs/exchange.md)
    np.testing.assert_allclose(scores(imported, "test")[1], scores(model, "test")[1],
                               rtol=0, atol=1e-12)
    assert_macros_as_predict(imported)

    con.execute("CREATE TABLE shop_b AS SELECT * FROM train WHERE shop = 'b'")
    elsewhere.register("shop_b", con.sql("SELECT * FROM shop_b").df())
    model.forget("shop_b", "label", text="body")  # group b (1) goes: groups 0 and 2 left
    imported.forget("shop_b", "label", text="body")
    # (the tf-idf weights forgotten are summed in the engine's order: equal to ~1e-15)
    np.testing.assert_allclose(scores(imported, "test")[1], scores(model, "test")[1],
                               rtol=0, atol=1e-12)
    again = sqlnb.import_model(elsewhere, model.export(tmp_path / "shops", overwrite=True),
                               name="again")
    assert elsewhere.sql("SELECT group_index, shop FROM again_text_groups ORDER BY 1"
                         ).fetchall() == [(0, "a"), (2, "c")]
    np.testing.assert_allclose(scores(again, "test")[1], scores(model, "test")[1],
                               rtol=0, atol=1e-12)
    elsewhere.close()


def test_what_per_group_text_models_refuse(con, corpus):
    load(con, corpus)
    model = sqlnb.NaiveBayes("shops", con=con, family="multinomial")
    model.fit("train", "label", text="body", group_by="shop")
    before = scores(model, "test")
    with pytest.raises(InvalidParameterError, match="same group columns"):
        model.partial_fit("train", "label", text="body", group_by="label")
    con.execute("CREATE TABLE no_shop AS SELECT * REPLACE (NULL::VARCHAR AS shop) FROM train")
    with pytest.raises(InvalidDataError, match="NULL in every labelled row"):
        model.fit("no_shop", "label", text="body", group_by="shop")
    plain = sqlnb.NaiveBayes("plain", con=con, family="multinomial")
    plain.fit("train", "label", text="body")
    with pytest.raises(InvalidParameterError, match="without group_by"):
        plain.partial_fit("train", "label", text="body", group_by="shop")
    with pytest.raises(InvalidParameterError, match="of the same group columns"):
        sqlnb.merge(con, [model, plain], into="both")
    after = scores(model, "test")  # the refused calls changed nothing
    assert after[0] == before[0]
    # (sums in another order may differ in the last bit)
    np.testing.assert_allclose(after[1], before[1], rtol=0, atol=1e-12)


def test_groups_of_several_columns_of_any_key_type(con, corpus):
    """Two group columns, one of them an integer; unlabelled rows train nothing."""
    train, _ = corpus
    frame = train.assign(year=np.arange(len(train)) % 2 + 2024, shop=train["shop"].fillna("a"))
    frame.loc[frame.index[:5], "label"] = None
    con.register("frame", frame)
    model = sqlnb.NaiveBayes("shops", con=con, family="multinomial")
    model.fit("frame", "label", text="body", group_by=["shop", "year"])
    got = model.predict_proba("frame").df()
    labelled = frame.dropna(subset=["label"])
    for (shop, year), rows in labelled.groupby(["shop", "year"]):
        scored = ((frame["shop"] == shop) & (frame["year"] == year)).to_numpy()
        want = reference("multinomial", {}, rows, frame[scored], model.classes_)
        np.testing.assert_allclose(
            got[scored][[f"proba_{c}" for c in model.classes_]].to_numpy(), want, **TOL)
    # the macros and to_sql route by both columns too
    frame = frame.assign(row=np.arange(len(frame)) + 1)
    con.register("frame", frame)
    assert_macros_as_predict(model, "frame")
    bare = duckdb.connect()
    bare.register("frame", frame)
    statement = bare.sql(model.to_sql("frame", output="proba")).df()
    np.testing.assert_allclose(statement[[f"proba_{c}" for c in model.classes_]].to_numpy(),
                               scores(model, "frame")[1], **TOL)


def test_list_models_names_the_model_not_its_group_models():
    con = duckdb.connect()
    con.execute("CREATE TABLE docs AS SELECT * FROM (VALUES ('good day', 1, 0), "
                "('bad day', 0, 0), ('good fun', 1, 1), ('bad luck', 0, 1)) AS t(body, y, g)")
    sqlnb.NaiveBayes("m", con=con, family="multinomial").fit("docs", "y", text="body",
                                                             group_by="g")
    sqlnb.NaiveBayes("other", con=con).fit(con.sql("SELECT y, g::DOUBLE AS x FROM docs"), "y")
    tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert any(t.startswith("m_text_group_") and t.endswith("_meta") for t in tables)
    assert [m["model"] for m in sqlnb.list_models(con)] == ["m", "other"]
