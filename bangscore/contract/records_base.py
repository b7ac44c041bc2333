"""The base of every wire record (:mod:`bangscore.contract.records`): strict on the wire, lenient
when parsed."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    """A wire record: every field required (null where its type allows), nothing else.

    The schema forbids other members (``additionalProperties: false``: the builder writes
    exactly these, :func:`ordered` refuses any other), while parsing ignores them, so a client
    built on these models keeps working when a later ``/api/v1`` adds a field
    (docs/API.md#versions-and-changes)."""

    model_config = ConfigDict(
        extra="ignore",
        json_schema_extra={"additionalProperties": False},
        frozen=True,
        populate_by_name=True,
        # Fields with a default (only the problem document's optional members) stay optional.
        json_schema_serialization_defaults_required=False,
        ser_json_inf_nan="null",
    )
