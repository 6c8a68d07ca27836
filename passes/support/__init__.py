"""Machinery shared by the lowering passes (not passes themselves)."""
