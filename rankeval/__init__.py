"""rankeval: exact, incremental evaluation of scored decisions and ranked retrieval."""

__version__ = "0.1.0"
__all__ = ["__version__"]
