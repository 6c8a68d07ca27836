"""The example kernels of qdot (``examples/*.mlir``) and the catalog that describes them.

A package only so that ``python -m examples.catalog`` and the tests can import the catalog;
the examples themselves are the ``.mlir`` files next to this one.
"""
