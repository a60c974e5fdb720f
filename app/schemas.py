"""Shared pieces of the HTTP schemas: strict input models, bounded types, pages."""

from __future__ import annotations

from typing import Annotated, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from app.resolver import bounds


class Input(BaseModel):
    """Every request body refuses unknown fields and coerces nothing: 1.5 or "3" is not an integer."""

    model_config = ConfigDict(extra="forbid", strict=True)


def bounded(limits: tuple[int, int], **kwargs) -> type[int]:
    return Annotated[StrictInt, Field(ge=limits[0], le=limits[1], **kwargs)]  # type: ignore[return-value]


Id = Annotated[str, Field(min_length=bounds.ID_LENGTH[0], max_length=bounds.ID_LENGTH[1])]
Name = Annotated[str, Field(min_length=bounds.NAME_LENGTH[0], max_length=bounds.NAME_LENGTH[1])]
Bool = StrictBool

T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    items: list[T]
    total: int
    limit: int
    offset: int
