"""The rounds routes parse JSON bodies with orjson (app/http/json_route.py), falling back on the standard
library for whatever orjson refuses: every body is accepted or refused exactly as with `json.loads`."""

from __future__ import annotations

import json

from tests.api.helpers import assert_problem

RESOLVE_BODY = {"combatants": [{"id": "a", "initiative": 1, "attack": 1, "defense": 1, "weapon": "dagger"}]}
JSON = {"content-type": "application/json"}


def test_a_body_orjson_refuses_but_json_loads_takes_is_taken(client):
    for encoding in ("utf-16", "utf-32"):  # json.loads detects these; orjson reads UTF-8 only
        answer = client.post("/v1/resolve", content=json.dumps(RESOLVE_BODY).encode(encoding), headers=JSON)
        assert answer.status_code == 200, answer.text
    huge = json.dumps({**RESOLVE_BODY, "round": 10**30}).encode()  # past 64 bits: a range error, not a parse error
    refused = assert_problem(client.post("/v1/resolve", content=huge, headers=JSON), 422, "validation-error")
    assert refused["errors"][0]["pointer"] == "/round"
    nan = b'{"round": NaN, "combatants": []}'  # NaN is json.loads's extension: a number, refused as one
    refused = assert_problem(client.post("/v1/resolve", content=nan, headers=JSON), 422, "validation-error")
    assert refused["errors"][0]["pointer"] == "/round"


def test_a_syntax_error_is_json_loads_own_with_its_line_and_column(client):
    text = b'{\n  "round": 1,\n  "combatants": }\n}'
    body = assert_problem(client.post("/v1/resolve", content=text, headers=JSON), 422, "validation-error")
    [error] = body["errors"]
    assert (error["line"], error["column"]) == (3, 17), error
    try:
        json.loads(text)
    except json.JSONDecodeError as expected:
        assert expected.msg in error["detail"]
