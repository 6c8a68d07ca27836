"""Test-vector files in Mesa's ``cases.txt`` style: ``hex  canonical-asm  ; assumes ...``.

One line per case (``vectors/agx3b_mma8.txt``, ``vectors/agx3c_mma8.txt``):

    <hex>  <canonical asm>  ; assumes A1 A2 ...   a positive vector, checked both ways
    !<ErrorClass>  <asm>                          the encoder must refuse with that class
    !<ErrorClass>  <hex>                          the decoder must refuse with that class

The ``assumes`` label lists the assumptions the bytes rest on (``assumptions_of``);
the test recomputes it, so a label can never claim less than the table implies.
Every positive vector pins the project's assumptions, not hardware truth.

    python -m targets.agx.vectors            # check both files, print a summary
    python -m targets.agx.vectors --update   # rewrite hex and labels of positive lines
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from targets.agx import errors
from targets.agx.asm import AsmSyntaxError, format_mma8, parse_mma8
from targets.agx.forms import FORMS
from targets.agx.mma8 import assumptions_of, decode_mma8, encode_mma8

VECTOR_DIR = Path(__file__).parent / "vectors"
PADDING = bytes.fromhex("cafebabe")
"""Appended to every decoded vector: a decoder that reads past the instruction fails (Mesa)."""

_ERROR_CLASSES: dict[str, type[errors.AgxError]] = {
    name: cls for name, cls in vars(errors).items()
    if isinstance(cls, type) and issubclass(cls, errors.AgxError)
}
_ERROR_CLASSES["AsmSyntaxError"] = AsmSyntaxError


@dataclass(frozen=True)
class Vector:
    path: Path
    line: int
    form: str
    hex: str | None
    text: str | None
    error: str | None
    assumes: tuple[str, ...]
    raw_line: str

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.line}"

    @property
    def error_class(self) -> type[errors.AgxError]:
        assert self.error is not None
        try:
            return _ERROR_CLASSES[self.error]
        except KeyError:
            raise ValueError(f"{self.where}: unknown error class {self.error}") from None


def vector_path(form: str) -> Path:
    return VECTOR_DIR / f"{form}_mma8.txt"


_HEX = re.compile(r"^[0-9a-f]+$")


def parse_line(path: Path, number: int, form: str, line: str) -> Vector | None:
    body = line.strip()
    if not body or body.startswith("#"):
        return None
    if body.startswith("!"):
        error, _, payload = body[1:].partition(" ")
        payload = payload.strip()
        if _HEX.match(payload):
            return Vector(path, number, form, payload, None, error, (), line)
        return Vector(path, number, form, None, payload, error, (), line)
    text, _, label = body.partition(";")
    hex_text, _, asm = text.strip().partition(" ")
    assumes: tuple[str, ...] = ()
    label = label.strip()
    if label:
        if not label.startswith("assumes"):
            raise ValueError(f"{path.name}:{number}: label must read '; assumes A1 A2 ...'")
        assumes = tuple(label.split()[1:])
    return Vector(path, number, form, hex_text.strip(), asm.strip(), None, assumes, line)


def load_vectors(form: str) -> list[Vector]:
    path = vector_path(form)
    found: list[Vector] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        vector = parse_line(path, number, form, line)
        if vector is not None:
            found.append(vector)
    return found


def render_positive(asm: str, form: str) -> str:
    """The line a positive vector should be, computed from its assembly text."""
    desc = parse_mma8(asm)
    data = encode_mma8(desc, form)
    labels = " ".join(assumptions_of(desc, form))
    return f"{data.hex()}  {format_mma8(desc)}  ; assumes {labels}"


def check_vector(vector: Vector) -> None:
    """Raise AssertionError with the vector's location if it does not hold."""
    if vector.error is None:
        assert vector.text is not None and vector.hex is not None
        desc = parse_mma8(vector.text)
        assert format_mma8(desc) == vector.text, f"{vector.where}: text is not canonical: {format_mma8(desc)}"
        data = encode_mma8(desc, vector.form)
        assert data.hex() == vector.hex, f"{vector.where}: encodes to {data.hex()}, file says {vector.hex}"
        decoded = decode_mma8(bytes.fromhex(vector.hex) + PADDING, vector.form)
        assert format_mma8(decoded) == vector.text, f"{vector.where}: decodes to {format_mma8(decoded)}"
        labels = assumptions_of(desc, vector.form)
        assert labels == vector.assumes, f"{vector.where}: rests on {labels}, labelled {vector.assumes}"
        return
    cls = vector.error_class
    try:
        if vector.hex is not None:
            decode_mma8(bytes.fromhex(vector.hex) + (PADDING if len(vector.hex) >= 2 * FORMS[vector.form].length else b""),
                        vector.form)
        else:
            assert vector.text is not None
            encode_mma8(parse_mma8(vector.text), vector.form)
    except cls:
        return
    except errors.AgxError as err:
        raise AssertionError(f"{vector.where}: expected {vector.error}, got {type(err).__name__}: {err}") from None
    raise AssertionError(f"{vector.where}: expected {vector.error}, but it was accepted")


def update(form: str) -> int:
    """Rewrite the hex and labels of every positive line from its text; returns lines changed."""
    path = vector_path(form)
    lines = path.read_text(encoding="utf-8").splitlines()
    changed = 0
    for index, line in enumerate(lines):
        vector = parse_line(path, index + 1, form, line)
        if vector is None or vector.error is not None:
            continue
        assert vector.text is not None
        fresh = render_positive(vector.text, form)
        if fresh != line:
            lines[index] = fresh
            changed += 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--update", action="store_true", help="rewrite hex and labels of positive vectors")
    args = parser.parse_args(argv)
    status = 0
    for form in FORMS:
        if args.update:
            print(f"{vector_path(form).name}: {update(form)} line(s) rewritten")
        vectors = load_vectors(form)
        failures = []
        for vector in vectors:
            try:
                check_vector(vector)
            except (AssertionError, errors.AgxError, ValueError) as err:
                failures.append(str(err))
        positive = sum(v.error is None for v in vectors)
        print(f"{vector_path(form).name}: {positive} positive, {len(vectors) - positive} refusal, "
              f"{len(failures)} failing")
        for failure in failures:
            print(f"  {failure}")
        status |= bool(failures)
    return status


if __name__ == "__main__":
    sys.exit(main())
