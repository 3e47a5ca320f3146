"""The site's one reader of numbers from outside (``core.numbers``): whatever the text, it answers
a number in range or None, never an exception (issue 45: a 4,400-digit ``?v=`` was a 500)."""

from __future__ import annotations

import doctest

from hypothesis import given
from hypothesis import strategies as st

from core import numbers
from core.numbers import MAX_ID, read_id, read_int


def test_the_doctests_run():
    assert doctest.testmod(numbers).failed == 0


@given(
    text=st.one_of(
        st.text(),
        st.text(alphabet="0123456789١٢٣²³-+_ .e", max_size=30),
        st.integers(0, 6000).map(lambda n: "9" * n),
        st.integers(-(2**80), 2**80).map(str),
    ),
    low=st.integers(-1000, 1000),
    span=st.integers(0, 10**6),
)
def test_any_text_is_a_number_in_range_or_none_and_never_an_error(text, low, span):
    value = read_int(text, low, low + span)
    if value is not None:
        assert low <= value <= low + span
        assert text.strip(" \t\r\n").lstrip("-").isascii()
        assert value == int(text)


def test_digits_of_other_scripts_and_thousands_of_digits_are_not_numbers():
    for text in ("١٢", "１２", "²", "⑫", "1_2", "9" * 4400, "9" * 20, str(MAX_ID + 1)):
        assert read_id(text) is None, text
    assert read_id(str(MAX_ID)) == MAX_ID
    assert read_int(12, 0, 99) == 12 and read_int(12.0, 0, 99) is None
