"""sqlnb: naive Bayes where the data never leaves the database.

The model is a set of statistics tables in DuckDB; fitting is GROUP BY aggregates in one
scan, parameters are SQL views over the statistics, and scoring is log-space SQL.
"""

__version__ = "0.1.0"

from . import errors  # noqa: E402
from .metrics import evaluate  # noqa: E402
from .model import NaiveBayes, load  # noqa: E402

__all__ = ["NaiveBayes", "load", "evaluate", "errors", "__version__"]
