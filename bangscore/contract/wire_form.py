"""How a wire record is written: its fields in the model's order (:func:`ordered`, what the
builder writes with orjson) and its JSON Schema as the OpenAPI document and the export's
manifest state it (:func:`component_schemas`, :func:`inline`), for the models of
:mod:`bangscore.contract.records`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue, models_json_schema
from pydantic_core import core_schema

from bangscore.contract.records_base import Record

# -- the builder's side ------------------------------------------------------------------------


def wire_names(model: type[Record]) -> tuple[str, ...]:
    """Given a record model, return its wire field names in wire order (aliases applied)."""
    return tuple(f.alias or name for name, f in model.model_fields.items())


_NAMES: dict[type[Record], tuple[str, ...]] = {}


def ordered(model: type[Record], values: Mapping[str, Any]) -> dict[str, Any]:
    """Given a record model and a mapping holding exactly its wire fields, return a new dict
    of them in the model's order. Raises KeyError naming a missing field or ValueError naming
    the fields the model does not have (a writer and its model that disagree)."""
    names = _NAMES.get(model)
    if names is None:
        names = _NAMES[model] = wire_names(model)
    if len(values) != len(names):
        extra = sorted(set(values) - set(names))
        if extra:
            raise ValueError(f"{model.__name__} has no field {', '.join(extra)}")
    return {name: values[name] for name in names}


# -- JSON Schema -------------------------------------------------------------------------------


class WireJsonSchema(GenerateJsonSchema):
    """JSON Schema as generators read it best: a nullable simple type is ``"type": [T,
    "null"]`` (not an ``anyOf``), and no ``title`` on every property (the description says it)."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        """Given a nullable core schema, return ``{"type": [T, "null"], ...}`` for a simple
        inner type, else pydantic's ``anyOf``."""
        inner = self.generate_inner(schema["schema"])
        kind = inner.get("type")
        if isinstance(kind, str) and "$ref" not in inner:
            out = {**inner, "type": [kind, "null"]}
            if "const" in out:  # Literal[x] | None: one value or null
                out["enum"] = [out.pop("const")]
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
            return out
        return super().nullable_schema(schema)

    def field_title_should_be_set(self, schema: Any) -> bool:
        """Return False: properties carry descriptions, not titles."""
        return False


def component_schemas(
    models: Iterable[type[BaseModel]], ref_template: str = "#/components/schemas/{model}"
) -> dict[str, Any]:
    """Given models, return the JSON Schemas of them and every model they hold, by model
    name, with ``$ref`` s on ``ref_template`` (OpenAPI's components by default), as
    serialised on the wire (aliases, dates as strings)."""
    _, top = models_json_schema(
        [(m, "serialization") for m in models],
        ref_template=ref_template,
        schema_generator=WireJsonSchema,
    )
    return dict(top.get("$defs", {}))


def inline(schema: Any, defs: dict[str, Any]) -> Any:
    """Given a JSON Schema fragment and the schemas it refers to by name, return it with every
    ``$ref`` replaced by its target and a nullable reference (``anyOf`` of an object and null)
    as ``{"type": ["object", "null"], ...}``: the shape the export's CSV columns read."""
    if isinstance(schema, list):
        return [inline(s, defs) for s in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        return inline(
            {
                **defs[schema["$ref"].rsplit("/", 1)[1]],
                **{k: v for k, v in schema.items() if k != "$ref"},
            },
            defs,
        )
    options = schema.get("anyOf")
    if options and len(options) == 2 and {"type": "null"} in options:
        (target,) = [o for o in options if o != {"type": "null"}]
        rest = {k: v for k, v in schema.items() if k != "anyOf"}
        solid = inline(target, defs)
        if isinstance(solid.get("type"), str):
            return {**solid, **rest, "type": [solid["type"], "null"]}
    return {k: inline(v, defs) for k, v in schema.items()}
