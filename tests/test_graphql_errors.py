"""Bad GraphQL input gets an error that names what was wrong, never a stack trace."""

from __future__ import annotations

import pytest

from tests.conftest import GraphQLClient

REMEMBER = """
mutation($scope: String!, $fact: FactInput!) {
  remember(scope: $scope, fact: $fact) { kind reason fact { id text status } }
}
"""


def test_remember_through_graphql_returns_the_decision(gql: GraphQLClient, scope: str) -> None:
    data = gql.data(REMEMBER, scope=scope, fact={"text": "Caroline adopted a dog"})
    result = data["remember"]
    assert isinstance(result, dict)
    assert result["kind"] == "INSERT"
    assert result["fact"]["text"] == "Caroline adopted a dog"
    again = gql.data(REMEMBER, scope=scope, fact={"text": "caroline adopted a  dog"})
    assert again["remember"]["kind"] == "DEDUP"
    assert again["remember"]["fact"]["id"] == result["fact"]["id"]


def test_a_bad_field_is_named_in_the_error(gql: GraphQLClient, scope: str) -> None:
    body = gql(REMEMBER, scope=scope, fact={"text": "x", "importance": 42})
    (error,) = body["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert error["extensions"]["field"] == "importance"
    assert "Traceback" not in str(body)


def test_an_empty_text_is_refused_and_nothing_is_written(gql: GraphQLClient, scope: str) -> None:
    body = gql(REMEMBER, scope=scope, fact={"text": "   "})
    assert body["errors"][0]["extensions"]["field"] == "text"
    assert body["data"] is None


def test_a_malformed_query_says_where(gql: GraphQLClient) -> None:
    body = gql("{ health { ok ")
    assert "Syntax Error" in body["errors"][0]["message"]


SEARCH = 'query($scope: String!) { search(scope: $scope, query: "x") { hits { score } } }'


@pytest.mark.parametrize(
    ("query", "variables", "code"),
    [
        ("{ health { ok ", {}, "GRAPHQL_PARSE_FAILED"),
        ("{ nosuch }", {}, "GRAPHQL_VALIDATION_FAILED"),
        ('{ search(scope: 0, query: "x") { hits { score } } }', {}, "GRAPHQL_VALIDATION_FAILED"),
        (SEARCH, {"scope": None}, "BAD_USER_INPUT"),
        (SEARCH, {"scope": 0}, "BAD_USER_INPUT"),
        (SEARCH, {}, "BAD_USER_INPUT"),
    ],
)
def test_every_error_carries_a_code_whatever_stage_raised_it(
    gql: GraphQLClient, query: str, variables: dict[str, object], code: str
) -> None:
    body = gql(query, **variables)
    assert [e["extensions"]["code"] for e in body["errors"]] == [code]
