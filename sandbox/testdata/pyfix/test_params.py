"""Parameter ids that pytest prints as they are: spaces, brackets that do not balance, and
the summary's own separator inside the id (the pattern of CSS and parser test tables)."""
import pytest


@pytest.mark.parametrize("text", ["foo { bar: (]) ; baz: U+20 }", "a b", "[x", "x]"])
def test_passes(text):
    assert isinstance(text, str)


@pytest.mark.parametrize("text", ["bar: (]) ; baz", "(] - [)", "plain"])
def test_fails(text):
    assert text == "never", "no match for " + text


@pytest.mark.parametrize("text", ["ok] - still the id"])
def test_separator_in_id(text):
    assert text.startswith("never")
