"""Small datasets per family, shared by the SQL-usage tests (imported, not a conftest)."""

from __future__ import annotations

import numpy as np
import pandas as pd

FAMILIES = ["gaussian", "multinomial", "complement", "bernoulli", "categorical"]


def family_frame(family: str, n: int = 240, seed: int = 0) -> pd.DataFrame:
    """A labelled frame whose features suit ``family``; classes depend on the features."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["churn", "stay", "wait"], size=n, p=[0.3, 0.5, 0.2])
    shift = pd.Series(y).map({"churn": 0, "stay": 1, "wait": 2}).to_numpy()
    if family == "gaussian":
        data = {f"x{i}": rng.normal(shift * (i + 1) * 0.7, 1.0 + 0.3 * i) for i in range(4)}
    elif family in ("multinomial", "complement"):
        data = {f"x{i}": rng.poisson(1.0 + shift * (i % 3)) for i in range(5)}
    elif family == "bernoulli":
        data = {f"x{i}": (rng.random(n) < 0.2 + 0.25 * ((shift + i) % 3)).astype(int)
                for i in range(5)}
    else:
        data = {f"x{i}": (rng.integers(0, 3, n) + shift * (i % 2)) % 4 for i in range(4)}
    frame = pd.DataFrame(data)
    if family == "categorical":  # text categories, in a column whose name needs quoting
        odd = np.array(["low", "mid", "it's high"])[(rng.integers(0, 2, n) + shift) % 3]
    else:
        odd = frame["x0"] + frame["x1"]
    frame.insert(2, "odd name", odd)
    frame["y"] = y
    return frame

