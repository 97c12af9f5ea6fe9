"""perfcalc's version, in one place below every layer (the CLI's --version and `perfcalc.__version__`)."""

__version__ = "0.1.0"
