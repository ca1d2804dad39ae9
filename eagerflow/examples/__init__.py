"""Runnable examples: ``python -m eagerflow.examples.<name>``."""
