"""sqlnb's version, recorded in every model's metadata row."""

__version__ = "0.1.0"
