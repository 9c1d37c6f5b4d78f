"""Commands and URLs as logs, errors and `explain` show them: with secrets taken out.

A command line or URL may carry a secret: a `${TOKEN}` the config expanded into an argument, a
password in the URL's userinfo, an `api_key=` query parameter. Wherever toolweave shows one,
it goes through `shown_command` / `shown_url`, which replace each known secret value with where
it came from (`${TOKEN}`), and any URL password (or user without one, as in `https://<token>@host`)
and the values of query parameters whose names say they are secret with `***`.

Example:
    >>> shown_url("https://user:hunter2@api.example.com/v1?key=abc&q=cats")
    'https://user:***@api.example.com/v1?key=***&q=cats'
    >>> shown_command("server", ["--token", "hunter2", "--verbose"], secrets={"hunter2": "${TOKEN}"})
    'server --token ${TOKEN} --verbose'

`url_secrets` names the values `shown_url` hides, for text that shows a URL toolweave did not
write (a library's log line): `toolweave.telemetry.logs.RedactSecrets` takes them out.
`shown_text` takes secrets out of such text where toolweave shows it (an upstream's error).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

HIDDEN = "***"
SECRET_NAME = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential|session", re.IGNORECASE)
"""Query parameter names whose values are treated as secrets."""


Secrets = Mapping[str, str] | Iterable[str]
"""Secret values to hide: a mapping of each to what to show instead, or just the values (`***`)."""
SHORTEST_SECRET = 4
"""Values shorter than this are left in text toolweave did not write (`shown_text`): a `1`
expanded into a flag would garble every `127.0.0.1`, and so short a value keeps nothing secret."""


def without(text: str, secrets: Secrets) -> str:
    """`text` with every secret value (longest first) replaced by its stand-in (`***` by default)."""
    shown = secrets if isinstance(secrets, Mapping) else dict.fromkeys(secrets, HIDDEN)
    for secret in sorted((value for value in shown if value), key=len, reverse=True):
        text = text.replace(secret, shown[secret])
    return text


def shown_text(text: str, secrets: Mapping[str, str]) -> str:
    """`text` toolweave did not write (an upstream's error, which may quote the command or URL it
    was given) with each of `secrets` at least `SHORTEST_SECRET` long replaced by its stand-in:
    in one pass, the longest first, so a value inside another is hidden with it and a stand-in
    is never replaced again.

    Example:
        >>> secrets = {"hunter2-0123": "${TOKEN}", "1": "${DEBUG}"}
        >>> shown_text("cannot run '/opt/hunter2-0123/srv' at 127.0.0.1", secrets)
        "cannot run '/opt/${TOKEN}/srv' at 127.0.0.1"
    """
    hidden = {value: shown for value, shown in secrets.items() if len(value) >= SHORTEST_SECRET}
    if not hidden:
        return text
    pattern = "|".join(re.escape(value) for value in sorted(hidden, key=len, reverse=True))
    return re.sub(pattern, lambda found: hidden[found.group()], text)


def shown_url(url: str, secrets: Secrets = ()) -> str:
    """`url` without its password, secret-looking query values or any of `secrets`."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return without(url, secrets)
    netloc = parts.netloc
    if parts.password is not None:
        netloc = netloc.replace(f":{parts.password}@", f":{HIDDEN}@", 1)
    elif "@" in netloc:  # a user alone is how a token rides in a URL: https://<token>@host
        netloc = f"{HIDDEN}@{netloc.rsplit('@', 1)[1]}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, HIDDEN if SECRET_NAME.search(k) else v) for k, v in pairs], safe="*")
    return without(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)), secrets)


def url_secrets(url: str) -> list[str]:
    """The values `shown_url` hides in `url` (its password, or a user alone, and the values of
    secret-looking query parameters), each as written and decoded.

    Example:
        >>> url_secrets("https://user:hunter2@api.example.com/v1?key=a%2Bb&q=cats")
        ['hunter2', 'a%2Bb', 'a+b']
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found: list[str] = []
    user, at, _ = parts.netloc.rpartition("@")
    if at:
        name, colon, password = user.partition(":")
        found.append(password if colon else name)
    for pair in parts.query.split("&"):
        name, equals, value = pair.partition("=")
        if equals and value and SECRET_NAME.search(unquote(name)):
            found.append(value)
    return [form for value in found if value for form in dict.fromkeys((value, unquote(value)))]


def shown_command(command: str, args: Sequence[str], secrets: Secrets = ()) -> str:
    """The command line, with `secrets` (and URL passwords or secret query values) taken out."""
    words = [shown_url(word) if "://" in word else word for word in (command, *args)]
    return without(" ".join(words), secrets)
