"""The README's configuration table, generated from the settings class."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from bangscore.cli.settings_doc import settings_table, shown_default
from bangscore.settings import Settings


class _Example(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="EX_")

    cache_bytes: int = Field(512 * 1024 * 1024, description="a byte budget")
    max_request_line: int = Field(16 * 1024, description="a head bound")
    odd_bytes: int = Field(1000, description="not a whole unit")
    enabled: bool = Field(False, description="a switch | with a bar")
    seconds: float = Field(5.0, description="a whole float")
    ratio: float = Field(0.25, description="a fraction")
    folder: Path = Field(Path("var/x"), description="a path")
    url: str | None = Field(None, description="unset")
    empty: str = Field("", description="empty string")
    worded: str | None = Field(
        None, description="derived", json_schema_extra={"shown_default": "the site URL"}
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("cache_bytes", "512 MiB"),
        ("max_request_line", "16 KiB"),
        ("odd_bytes", "`1000`"),
        ("enabled", "`false`"),
        ("seconds", "`5`"),
        ("ratio", "`0.25`"),
        ("folder", "`var/x`"),
        ("url", "none"),
        ("empty", "none"),
        ("worded", "the site URL"),
    ],
    ids=lambda value: str(value),
)
def test_shown_default(name: str, expected: str) -> None:
    assert shown_default(_Example.model_fields[name], name) == expected


def test_table_has_one_row_per_field_with_escaped_bars() -> None:
    lines = settings_table(_Example).splitlines()
    assert lines[:2] == ["| Variable | Default | Meaning |", "|---|---|---|"]
    assert len(lines) == 2 + len(_Example.model_fields)
    assert "| `EX_ENABLED` | `false` | a switch \\| with a bar |" in lines


def test_a_setting_without_description_is_refused() -> None:
    class Bare(BaseSettings):
        naked: int = 3

    with pytest.raises(ValueError, match="'naked' has no description"):
        settings_table(Bare)


def test_readme_holds_the_generated_table() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert settings_table(Settings) in readme
    for name in Settings.model_fields:
        assert f"`BANGSCORE_{name.upper()}`" in readme
