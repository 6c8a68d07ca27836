"""``compiler.mmq_template`` is the MMQ family's one import (docs/python.md): every name it re-exports must be the
defining module's own object, so that a user's ``MmqConfig`` from either path is the same class and a grid
function patched or read in ``compiler.mmq_grids`` is the one the template's users call."""

import importlib

import pytest

import compiler.mmq_template as facade

DEFINING = ("compiler.mmq_config", "compiler.mmq_grids", "compiler.mmq_fixup", "compiler.mmq_weight_tiles",
            "compiler.mmq_template")


def _definer(name: str) -> str:
    """The module whose source defines ``name`` (a constant's module is the one that assigns it first)."""
    for module in DEFINING:
        source = importlib.import_module(module).__loader__.get_source(module)
        if f"\ndef {name}(" in source or f"\nclass {name}:" in source or f"\n{name} = " in source:
            return module
    raise AssertionError(f"{name} is defined in none of {DEFINING}")


@pytest.mark.parametrize("name", facade.__all__)
def test_reexport_is_the_definition(name):
    module = importlib.import_module(_definer(name))
    assert getattr(facade, name) is getattr(module, name)


def test_public_names_are_all_reexported():
    """Every public function or class a part defines is in the facade, so the docs' one import reaches it (the
    helpers the parts share with the kernel text but users never call are left out by name)."""
    shared_helpers = {"served_tokens", "m_bound", "fixup_rows", "in_gemm_fixup_tile", "workspace_desc",
                      "partial_tile_store", "split_piece_store", "fixup_by_last_program",
                      "stream_k_fixup_by_last_program"}
    for module_name in DEFINING[:-1]:
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            if name.startswith("_") or not callable(value) or getattr(value, "__module__", None) != module_name:
                continue
            assert name in facade.__all__ or name in shared_helpers, f"{module_name}.{name} is not re-exported"
