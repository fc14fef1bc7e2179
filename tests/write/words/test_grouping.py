"""Which parametrized function an id belongs to, the key every grouped line of the summary,
the comment and the terminal is made by: the id cut at the first `[` of its last part."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from waiver.write.words.why import parametrized_function


def split_and_joined(test_id: str) -> str | None:
    """The rule in words: the last `::` part's name before its first `[`, when the part
    ends with `]` and has a name before the bracket."""
    head, separator, name = test_id.rpartition("::")
    bracket = name.find("[")
    if not separator or bracket <= 0 or not name.endswith("]"):
        return None
    return f"{head}::{name[:bracket]}"


PIECES = st.lists(st.sampled_from(["::", "[", "]", "a", "b", ".py", "-", " "]), max_size=12)


@given(st.one_of(PIECES.map("".join), st.text(max_size=30)))
def test_the_function_of_any_id(test_id: str) -> None:
    assert parametrized_function(test_id) == split_and_joined(test_id)


def test_examples() -> None:
    assert parametrized_function("m.py::test_f[a-1]") == "m.py::test_f"
    assert parametrized_function("m.py::C::test_f[a[1]]") == "m.py::C::test_f"
    assert parametrized_function("m.py::test_f") is None
    assert parametrized_function("m.py::[a]") is None
    assert parametrized_function("test_f[a]") is None
    assert parametrized_function("m.py::test_f[a::b]") is None  # the last part is `b]`
