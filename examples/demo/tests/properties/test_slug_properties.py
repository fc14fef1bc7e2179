"""Properties of slugify that must hold for every input the fixtures list."""

import json
from pathlib import Path

import pytest
from slugify import slugify

INPUTS = json.loads((Path(__file__).parents[2] / "fixtures" / "inputs.json").read_text())


@pytest.mark.parametrize("text", INPUTS)
def test_slug_is_idempotent(text: str) -> None:
    assert slugify(slugify(text)) == slugify(text)


@pytest.mark.parametrize("text", INPUTS)
def test_slug_has_no_edge_dashes(text: str) -> None:
    slug = slugify(text)
    assert not slug.startswith("-") and not slug.endswith("-")
