"""Felt's wire contracts: every message that crosses the bus is a model defined here, once.

Services import shapes and subject names from this package and never define their own.
"""
