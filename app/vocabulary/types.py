"""Shared pieces of the HTTP schemas: strict input models, bounded types, pages."""

from __future__ import annotations

from typing import Annotated, Any, Generic, TypeVar

from annotated_types import Interval
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt

from app.resolver import bounds


class Input(BaseModel):
    """Every request body refuses unknown fields and coerces nothing: 1.5 or "3" is not an integer."""

    model_config = ConfigDict(extra="forbid", strict=True)


def _whole_float_to_int(value: Any) -> Any:
    """JSON Schema's integer includes 1.0; strings and booleans stay refused (strict mode)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


JSONInt = Annotated[StrictInt, BeforeValidator(_whole_float_to_int)]


def within(limits: tuple[int, int]) -> Interval:
    """Bounds as Annotated metadata: `Annotated[JSONInt, within(bounds.DELAY)]` (a type checker reads it as int)."""
    return Interval(ge=limits[0], le=limits[1])


Id = Annotated[str, Field(min_length=bounds.ID_LENGTH[0], max_length=bounds.ID_LENGTH[1])]
Name = Annotated[str, Field(min_length=bounds.NAME_LENGTH[0], max_length=bounds.NAME_LENGTH[1])]
Bool = StrictBool

T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    items: list[T]
    total: int
    limit: int
    offset: int
