"""JSON rendering: orjson, with sorted keys so a stored round is returned byte for byte as it was first sent
(PostgreSQL's JSONB does not keep key order, so the order must not depend on it)."""

from typing import Any

import orjson
from starlette.responses import JSONResponse


class JSONDocumentResponse(JSONResponse):
    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_SORT_KEYS)
