"""qdot passes: one pass per module, named for the decision it makes.

The CLI names and classes are listed in ``compiler/registry.py``; each pass has
its own lit folder ``tests/lit/<cli-name>/``. ``passes.support`` holds the
lowering machinery several passes share (linear layouts, IR builders).
"""
