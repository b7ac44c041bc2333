"""The README's configuration table, generated from :class:`bangscore.settings.Settings`.

The settings class is the one description of every setting: its field names give the
environment variables, its defaults and descriptions the table's columns. README.md holds the
table between cog markers; ``make docs`` rewrites it and ``make check`` fails when it differs
(the way simonw/datasette keeps its settings documentation with cog).
"""

from __future__ import annotations

from pathlib import Path

from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from bangscore.settings import Settings

# Units read better than bytes: 524288 -> "512 MiB".
_BINARY_UNITS = ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB"))


def shown_default(info: FieldInfo, name: str = "") -> str:
    """Given a settings field, return its default as the table shows it.

    A field may name its default in words (``json_schema_extra={"shown_default": ...}``) when
    the value is derived at run time; ``None`` reads "none"; byte sizes (fields named
    ``*_bytes``, ``max_request_*``, ``max_header_field``) use binary units; paths and strings
    are code.
    """
    extra = info.json_schema_extra
    if isinstance(extra, dict) and isinstance(extra.get("shown_default"), str):
        return str(extra["shown_default"])
    value = info.default
    if value is None:
        return "none"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, int) and _is_byte_size(name):
        for size, unit in _BINARY_UNITS:
            if value >= size and value % size == 0:
                return f"{value // size} {unit}"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, Path):
        value = value.as_posix()
    return f"`{value}`" if value != "" else "none"


def _is_byte_size(name: str) -> bool:
    return name.endswith("_bytes") or name in {
        "max_request_line",
        "max_header_field",
        "max_request_head",
    }


def settings_table(settings_class: type[BaseSettings] = Settings) -> str:
    """Given a settings class, return its Markdown table: variable, default, meaning.

    One row per field in declaration order; the variable is the class's ``env_prefix`` and the
    field name in capitals. Raises ValueError for a field without a description, so a new
    setting cannot reach the README undocumented.
    """
    prefix = str(settings_class.model_config.get("env_prefix", ""))
    rows = ["| Variable | Default | Meaning |", "|---|---|---|"]
    for name, info in settings_class.model_fields.items():
        if not info.description:
            raise ValueError(f"setting {name!r} has no description")
        meaning = info.description.replace("|", "\\|")
        rows.append(f"| `{prefix}{name.upper()}` | {shown_default(info, name)} | {meaning} |")
    return "\n".join(rows) + "\n"
