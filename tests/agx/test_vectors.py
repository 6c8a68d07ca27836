"""The Mesa-style vector files drive the encoder and decoder both ways (targets/agx/vectors/)."""

from __future__ import annotations

import pytest

from targets.agx import errors
from targets.agx.forms import FORMS
from targets.agx.vectors import check_vector, load_vectors, main, parse_line, vector_path

VECTORS = [v for form in FORMS for v in load_vectors(form)]


@pytest.mark.parametrize("vector", VECTORS, ids=[v.where for v in VECTORS])
def test_vector(vector) -> None:
    check_vector(vector)


def test_files_carry_positive_and_refusal_vectors() -> None:
    for form in FORMS:
        vectors = load_vectors(form)
        assert sum(v.error is None for v in vectors) >= 10
        assert sum(v.error is not None for v in vectors) >= 8


def test_every_seed_refusal_has_a_vector() -> None:
    seed = {errors.WaitSlotError, errors.UnsupportedTypeError, errors.RegisterRangeError, errors.OddRegisterError,
            errors.CWithCZeroError, errors.MixedInputTypesError}
    covered = {v.error_class for v in VECTORS if v.error is not None}
    assert seed <= covered
    decoder = {errors.TruncatedError, errors.OpcodeMismatchError, errors.UnexplainedBitsError,
               errors.FieldValueError, errors.UnmappedFormError}
    assert decoder <= covered


def test_every_positive_vector_is_labelled_with_its_assumptions() -> None:
    for vector in VECTORS:
        if vector.error is None:
            assert vector.assumes and "A1" in vector.assumes, vector.where


def test_file_headers_say_the_vectors_are_not_hardware_witnesses() -> None:
    for form in FORMS:
        header = vector_path(form).read_text().split("\n\n")[0]
        assert "NOT hardware witnesses" in header


def test_a_wrong_line_fails() -> None:
    good = next(v for v in VECTORS if v.error is None and v.form == "agx3b")
    flipped = f"{int(good.hex[0], 16) ^ 1:x}{good.hex[1:]}"
    bad = parse_line(good.path, 0, "agx3b", f"{flipped}  {good.text}  ; assumes {' '.join(good.assumes)}")
    with pytest.raises(AssertionError, match="encodes to"):
        check_vector(bad)
    mislabelled = parse_line(good.path, 0, "agx3b", f"{good.hex}  {good.text}  ; assumes A1")
    with pytest.raises(AssertionError, match="labelled"):
        check_vector(mislabelled)
    wrong_refusal = parse_line(good.path, 0, "agx3b", f"!OddRegisterError  {good.text}")
    with pytest.raises(AssertionError, match="it was accepted"):
        check_vector(wrong_refusal)


def test_checker_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    assert "0 failing" in capsys.readouterr().out
