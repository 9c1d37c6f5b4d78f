"""Commands, URLs and upstream errors shown without the secrets a config expanded into them."""

from __future__ import annotations

import pytest

from toolweave.core.shown import Expanded, credentials_in, shown_command, shown_text, shown_url, url_secrets, without

DEBUG = Expanded({"1": "${DEBUG}"}, {"1": "${DEBUG}"})
"""`X-Debug: "${DEBUG}"` with DEBUG=1: a header, never shown."""


def test_a_short_value_from_elsewhere_is_left_in_a_url() -> None:
    assert shown_url("http://127.0.0.1:18943/mcp", DEBUG) == "http://127.0.0.1:18943/mcp"


def test_a_short_value_is_shown_as_its_reference_where_it_was_expanded_only() -> None:
    expanded = Expanded({"e": "${V}"}, {"/usr/bin/nothere-e": "/usr/bin/nothere-${V}", "e": "${V}"})
    assert shown_command("/usr/bin/nothere-e", ["--mode", "e", "--level", "here"], expanded) == (
        "/usr/bin/nothere-${V} --mode ${V} --level here"
    )


def test_a_long_value_is_hidden_wherever_it_stands() -> None:
    expanded = Expanded({"hunter2-0123": "${TOKEN}"}, {"--token=hunter2-0123": "--token=${TOKEN}"})
    assert shown_command("srv", ["--token=hunter2-0123", "hunter2-0123.log"], expanded) == (
        "srv --token=${TOKEN} ${TOKEN}.log"
    )


def test_a_url_the_config_expanded_is_shown_as_written_without_its_credentials() -> None:
    url = "http://u:pw-0123@127.0.0.1:9/mcp?key=k&v=1&q=a%20b"
    written = "http://u:${PW}@127.0.0.1:9/mcp?key=k&v=${V}&q=a%20b"
    expanded = Expanded({"pw-0123": "${PW}", "1": "${V}"}, {url: written})
    assert shown_url(url, expanded) == "http://u:***@127.0.0.1:9/mcp?key=***&v=${V}&q=a%20b"


def test_an_error_loses_the_strings_the_config_expanded_and_its_long_values() -> None:
    expanded = Expanded({"e": "${V}", "hunter2-0123": "${T}"}, {"/usr/bin/nothere-e": "/usr/bin/nothere-${V}"})
    error = "FileNotFoundError: '/usr/bin/nothere-e' (hunter2-0123, here)"
    assert shown_text(error, expanded) == "FileNotFoundError: '/usr/bin/nothere-${V}' (${T}, here)"


def test_values_given_as_plain_secrets_are_hidden_whatever_their_length() -> None:
    assert shown_command("srv", ["--key=ab"], {"ab": "${KEY}"}) == "srv --key=${KEY}"


def test_a_credential_header_is_held_whole_unless_it_names_an_authentication_scheme() -> None:
    """`Bearer t` holds `t` (the scheme stays readable); `team k3y` is one secret, held whole."""
    held = credentials_in({"Authorization": "bearer t0k-1", "X-Api-Key": "team k3y-value", "Cookie": "a=1; b=2"})
    assert held == ["t0k-1", "team k3y-value", "a=1; b=2"]
    assert without("sent: team k3y-value", held) == "sent: ***"


def test_a_url_password_with_an_unencoded_slash_is_hidden_with_all_before_the_host() -> None:
    """`urlsplit` ends the host at the `/` and reads the password's tail as the path."""
    url = "redis://:Zm9v/YmFy+cXV4@127.0.0.1:6379/0"
    assert shown_url(url) == "redis://***@127.0.0.1:6379/0"
    assert "Zm9v/YmFy+cXV4" in url_secrets(url)
    assert shown_url("https://host/users/@me") == "https://host/users/@me"  # an @ in a path is no password


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["--api-key", "k3y-0123"], "--api-key ***"),
        (["--token=t0k-0123"], "--token=***"),
        (["-H", "Authorization: Bearer t0k-0123"], "-H Authorization: Bearer ***"),
        (["--header=X-Api-Key:k3y-0123"], "--header=X-Api-Key:***"),
        (["--header", "Accept: json", "--port", "8080", "--verbose"], "--header Accept: json --port 8080 --verbose"),
        (["--password", "--verbose"], "--password --verbose"),
    ],
)
def test_a_credential_written_into_the_arguments_is_hidden(args: list[str], shown: str) -> None:
    """A client's file holds tokens as they are: only values from `${...}` were hidden."""
    assert shown_command("srv", args) == f"srv {shown}"


def test_a_credential_argument_the_config_expanded_is_shown_as_its_reference() -> None:
    expanded = Expanded({"t0k-0123": "${TOKEN}"}, {"t0k-0123": "${TOKEN}"})
    assert shown_command("srv", ["--token", "t0k-0123"], expanded) == "srv --token ${TOKEN}"
