"""``compiler.compile`` says what it took a ``str`` source as when that cannot be what was meant, and
holds its other arguments to what they configure.

A ``str`` is a path when it has no line break and names an existing file, else IR text; a directory,
or an existing path with whitespace around it, used to be parsed as IR ("Operation examples is not
registered"), and a binary file raised a bare ``UnicodeDecodeError`` naming no file. ``num_stages``
was refused for a numpy integer, ``verify`` took anything, and ``arch`` was ignored in silence with
an AGX target, which ``qdot-translate`` refuses (docs/tools.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import compiler
from compiler.diagnostics import QdotError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "int8_gemm.mlir"
AGX = ROOT / "examples" / "agx_tile_fp16.mlir"


def test_a_directory_is_not_parsed_as_ir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    with pytest.raises(IsADirectoryError, match=r"a directory, not a qdot IR file \(a str of one line that names an "
                                                r"existing path is read as that path\): 'examples'") as raised:
        compiler.compile("examples")
    assert raised.value.filename == "examples"


@pytest.mark.parametrize("source", ["examples/int8_gemm.mlir\n", " examples/int8_gemm.mlir",
                                    "examples/int8_gemm.mlir\t", "\nexamples\n"])
def test_whitespace_around_an_existing_path_is_named(source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    message = (f"source {source!r} is taken as IR text (a str is a path only when it has no line break or "
               f"surrounding whitespace), but {source.strip()!r} names an existing path: pass it without the "
               "whitespace, or as a pathlib.Path")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        compiler.compile(source)


def test_one_line_ir_with_surrounding_whitespace_is_still_ir() -> None:
    llvm_ir = compiler.compile("  func.func @f() { func.return }  \n", target="llvm", pipeline="").llvm_ir
    assert llvm_ir is not None and "define void @f()" in llvm_ir


def test_a_binary_file_is_named(tmp_path: Path) -> None:
    binary = tmp_path / "kernel.mlir"
    binary.write_bytes(b"func.func \xff\xfe")
    for source in (binary, str(binary)):
        with pytest.raises(ValueError, match=rf"^{binary} is not a qdot IR file: byte 10 \(0xff\) is not UTF-8 text$"):
            compiler.compile(source)


def test_num_stages_takes_any_integer() -> None:
    from_numpy = compiler.compile(EXAMPLE, num_stages=np.int64(2))
    assert from_numpy.ptx == compiler.compile(EXAMPLE, num_stages=2).ptx
    assert "num-stages=2" in from_numpy.pipeline
    for bad in (True, 2.0, np.float64(2)):
        with pytest.raises(ValueError, match="num_stages must be an integer from 1"):
            compiler.compile(EXAMPLE, num_stages=bad)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_verify_must_be_a_bool(value: object) -> None:
    with pytest.raises(TypeError, match=rf"^verify must be True or False, got {type(value).__name__}$"):
        compiler.compile(EXAMPLE, verify=value)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"arch": "bogus"}, "arch configures the NVIDIA pipeline; it does not apply to target='agx3b'"),
    ({"arch": "sm_90"}, "arch configures the NVIDIA pipeline; it does not apply to target='agx3b'"),
    ({"strategy": "auto", "num_stages": 3},
     "strategy and num_stages configure the NVIDIA pipeline; they do not apply to target='agx3b'"),
])
def test_nvidia_options_are_refused_with_an_agx_target(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        compiler.compile(AGX, target="agx3b", **kwargs)
    assert compiler.compile(AGX, target="agx3b").data  # left out, as the CLI's flags are


def test_source_name_locates_diagnostics_and_remarks() -> None:
    """A tool that read the IR itself (from standard input, say) names it as it read it; without
    ``source_name`` IR text is ``<source>`` and a path is itself."""
    text = (ROOT / "examples" / "mx_gemm_e4m3_e2m1.mlir").read_text(encoding="utf-8")  # native is no sm_90 form
    with pytest.raises(QdotError) as raised:
        compiler.compile(text, strategy="native", source_name="<stdin>")
    assert str(raised.value).startswith("<stdin>:56:5: error: 'qdot.dot_scaled' op strategy"), str(raised.value)
    with pytest.raises(QdotError) as raised:
        compiler.compile(text, strategy="native")
    assert str(raised.value).startswith("<source>:56:5: error:"), str(raised.value)
    named = compiler.compile(EXAMPLE, remarks=True, source_name=Path("kernels/int8.mlir"))
    assert named.remarks and all(line.startswith("kernels/int8.mlir:") for line in named.remarks), named.remarks
    assert named.ptx == compiler.compile(EXAMPLE).ptx  # the name locates; it changes no code


@pytest.mark.parametrize(("source_name", "error", "message"), [
    (b"x.mlir", TypeError, r"a file name \(str or path\), got bytes"),
    ("", ValueError, "a non-empty file name without control characters, got ''"),
    ("a\nb", ValueError, r"a non-empty file name without control characters, got 'a\\nb'")])
def test_a_malformed_source_name_is_refused(source_name: object, error: type, message: str) -> None:
    with pytest.raises(error, match=f"^source_name must be {message}$"):
        compiler.compile(EXAMPLE, source_name=source_name)  # type: ignore[arg-type]


@pytest.mark.parametrize("kwargs", [{"strategy": "promote-int8"}, {"num_stages": 2},
                                    {"strategy": "auto", "num_stages": 3}])
def test_strategy_and_stages_beside_a_pipeline_are_refused(kwargs: dict) -> None:
    """They configure the default pipeline: beside ``pipeline=`` they were ignored in silence, where qdot-translate
    refuses ``--strategy`` / ``--num-stages`` beside ``--pipeline`` (docs/tools.md)."""
    pipeline = compiler.compile(EXAMPLE).pipeline
    with pytest.raises(ValueError, match=r"sets? the default pipeline's options; with pipeline=, give them to its "
                                         r"passes \(qdot-accelerate-matmul\{strategy=\.\.\.\}"):
        compiler.compile(EXAMPLE, pipeline=pipeline, **kwargs)
    assert compiler.compile(EXAMPLE, pipeline=pipeline).ptx == compiler.compile(EXAMPLE).ptx
