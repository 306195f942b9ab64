"""sqlnb: naive Bayes where the data never leaves the database.

The model is a set of statistics tables in DuckDB; fitting is GROUP BY aggregates in one
scan, parameters are SQL views over the statistics, and scoring is log-space SQL.
"""

from . import diagnostics, errors, progress
from .catalog import COMPATIBLE_STORAGE, connect, list_models
from .exchange import from_sklearn
from .metrics import evaluate
from .model import NaiveBayes, import_model, load, merge
from .version import __version__

__all__ = ["COMPATIBLE_STORAGE", "NaiveBayes", "__version__", "connect", "diagnostics", "errors",
           "evaluate", "from_sklearn", "import_model", "list_models", "load", "merge", "progress"]
