"""Command-line tools: ``qdot-opt`` (opt.py) and ``qdot-translate`` (translate.py)."""
