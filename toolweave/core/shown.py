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

What a config expanded is an `Expanded`: it also knows each string that holds such a value as
it was written, so a command or URL is shown as the config wrote it, and a short value (a `1`
from `${DEBUG}`) is never replaced where it did not come from the variable (`127.0.0.1`).

`url_secrets` names the values `shown_url` hides, for text that shows a URL toolweave did not
write (a library's log line): `toolweave.telemetry.logs.RedactSecrets` takes them out.
`shown_text` takes secrets out of such text where toolweave shows it (an upstream's error).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from urllib.parse import quote, quote_plus, unquote, unquote_plus, urlsplit, urlunsplit

HIDDEN = "***"
SECRET_NAME = re.compile(r"key|token|bearer|secret|passw|pwd|auth|sig|credential|session", re.IGNORECASE)
"""Query parameter names whose values are treated as secrets."""
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})
"""Headers that carry credentials whatever their values look like."""
SHORTEST_SECRET = 4
"""Values shorter than this are left in text that is not known to hold them (`shown_text`): a
`1` expanded into a flag would garble every `127.0.0.1`, and so short a value keeps nothing secret."""
AUTH_SCHEMES = frozenset({"basic", "bearer", "digest", "dpop", "negotiate", "oauth", "token", "apikey"})
"""The HTTP authentication schemes (lower case) of a `Scheme value` header: the value is the secret."""


class Expanded(Mapping[str, str]):
    """The secret values a config's `${...}` references put into its strings, each with the
    reference it came from (the mapping), and `written`: each string that holds one, as the config
    wrote it (its secret references kept; defaults, `$$` and `${workspaceFolder}` expanded).

    `shown_command` and `shown_url` show a word that is one of those strings as written; anywhere
    else only values at least `SHORTEST_SECRET` long are replaced. Its repr shows no value.

    Example:
        >>> expanded = Expanded({"e": "${V}"}, {"/usr/bin/nothere-e": "/usr/bin/nothere-${V}"})
        >>> shown_command("/usr/bin/nothere-e", ["--level", "e"], expanded)
        '/usr/bin/nothere-${V} --level e'
        >>> dict(expanded), expanded
        ({'e': '${V}'}, Expanded(<1 value>))
    """

    __slots__ = ("_values", "written")

    def __init__(self, values: Mapping[str, str] | None = None, written: Mapping[str, str] | None = None) -> None:
        self._values = dict(values or {})
        self.written: Mapping[str, str] = dict(written or {})

    def __getitem__(self, value: str) -> str:
        return self._values[value]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Expanded):
            return self._values == other._values and self.written == other.written
        return Mapping.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Expanded(<{len(self)} value{'' if len(self) == 1 else 's'}>)"

    def __or__(self, other: Mapping[str, str]) -> Expanded:
        """Both, `other`'s values and strings winning."""
        written = other.written if isinstance(other, Expanded) else {}
        return Expanded({**self._values, **other}, {**self.written, **written})

    def stand_ins(self) -> dict[str, str]:
        """What text that may quote these strings or values loses: each string, as written, and
        each value, as its reference."""
        return {**self.written, **self._values}

    def within(self, words: Iterable[str]) -> Expanded:
        """What of these a command or URL made of `words` can show (what `shown_command` needs
        of them: an upstream keeps no more, and equals another to the same command or URL).

        Example:
            >>> expanded = Expanded({"s3cr3t-1": "${A}", "other-22": "${B}"}, {"--key=s3cr3t-1": "--key=${A}"})
            >>> part = expanded.within(["server", "--key=s3cr3t-1"])
            >>> dict(part), part.written
            ({'s3cr3t-1': '${A}'}, {'--key=s3cr3t-1': '--key=${A}'})
        """
        words = list(words)
        values = {value: shown for value, shown in self._values.items() if any(value in word for word in words)}
        return Expanded(values, {word: self.written[word] for word in words if word in self.written})


Secrets = Mapping[str, str] | Iterable[str]
"""Secret values to hide: a mapping of each to what to show instead (an `Expanded`, for what a
config expanded), or just the values (`***`)."""


def is_credential_name(name: str) -> bool:
    """Whether a header or variable of this name carries a credential whatever its value looks like.

    Example:
        >>> is_credential_name("Authorization"), is_credential_name("X-Api-Key"), is_credential_name("accept")
        (True, True, False)
    """
    return name.lower() in CREDENTIAL_HEADERS or SECRET_NAME.search(name) is not None


def credentials_in(named: Mapping[str, str] | None, secrets: Secrets = ()) -> list[str]:
    """The credentials among what is sent upstream: the values of `named` (headers, environment
    variables) whose names say so — of a `Scheme value` one (`AUTH_SCHEMES`), the value, which may
    be quoted alone; of any other, the whole text, spaces and all — and the `secrets` a config
    expanded from a reference whose name says so (`${API_TOKEN}`).

    Example:
        >>> credentials_in({"Authorization": "Bearer t0k3n-abc", "Accept": "json", "X-Api-Key": "k1 k2"})
        ['t0k3n-abc', 'k1 k2']
        >>> credentials_in(None, Expanded({"s3cr3t-1": "${GH_TOKEN}", "/usr/bin/python3": "${PYTHON}"}))
        ['s3cr3t-1']
    """
    found = []
    for name, value in (named or {}).items():
        if isinstance(value, str) and value and is_credential_name(name):
            scheme, _, rest = value.partition(" ")
            found.append(rest.strip() if scheme.lower() in AUTH_SCHEMES and rest.strip() else value)
    if isinstance(secrets, Mapping):
        found += [value for value, reference in secrets.items() if SECRET_NAME.search(reference)]
    return found


def without(text: str, secrets: Secrets) -> str:
    """`text` with every secret value (longest first) replaced by its stand-in (`***` by default)."""
    shown = secrets if isinstance(secrets, Mapping) else dict.fromkeys(secrets, HIDDEN)
    for secret in sorted((value for value in shown if value), key=len, reverse=True):
        text = text.replace(secret, shown[secret])
    return text


def shown_text(text: str, secrets: Mapping[str, str]) -> str:
    """`text` toolweave did not write (an upstream's error, which may quote the command or URL it
    was given) with each of `secrets` at least `SHORTEST_SECRET` long replaced by its stand-in
    (for an `Expanded`, each string it holds as written, too): in one pass, the longest first, so
    a value inside another is hidden with it and a stand-in is never replaced again.

    Example:
        >>> secrets = {"hunter2-0123": "${TOKEN}", "1": "${DEBUG}"}
        >>> shown_text("cannot run '/opt/hunter2-0123/srv' at 127.0.0.1", secrets)
        "cannot run '/opt/${TOKEN}/srv' at 127.0.0.1"
        >>> shown_text("no file '/bin/srv-e'", Expanded({"e": "${V}"}, {"/bin/srv-e": "/bin/srv-${V}"}))
        "no file '/bin/srv-${V}'"
    """
    known = secrets.stand_ins() if isinstance(secrets, Expanded) else secrets
    hidden = {value: shown for value, shown in known.items() if len(value) >= SHORTEST_SECRET}
    if not hidden:
        return text
    return longest_first(hidden).sub(lambda found: hidden[found.group()], text)


def longest_first(values: Iterable[str], *, whole_words_below: int = 0) -> re.Pattern[str]:
    """One pattern matching any of `values`, the longest first (a value holding another is
    matched whole); one shorter than `whole_words_below` only where no letter, digit or `_`
    touches it.

    Example:
        >>> longest_first(["ab", "abc", "x"], whole_words_below=2).sub("*", "abcd x xy")
        '*d * xy'
    """

    def alternative(value: str) -> str:
        escaped = re.escape(value)
        return escaped if len(value) >= whole_words_below else rf"(?<!\w){escaped}(?!\w)"

    return re.compile("|".join(alternative(value) for value in sorted(set(values), key=len, reverse=True)))


def unencoded_userinfo(url: str) -> str | None:
    """The `user:password` of `url` when its password holds a `/`, `?` or `#` not percent-encoded:
    parsers then end the host at it and read the rest of the password as the path (or query),
    so it cannot be told from one; else `None`.

    Example:
        >>> unencoded_userinfo("redis://:Zm9v/YmFy@127.0.0.1:6379/0"), unencoded_userinfo("redis://:pw@h:6379/0")
        (':Zm9v/YmFy', None)
    """
    _, slashes, rest = url.partition("://")
    if not slashes or "@" not in rest:
        return None
    userinfo = rest.rpartition("@")[0]
    parsed_host = re.split(r"[/?#]", rest, maxsplit=1)[0]
    return userinfo if "@" not in parsed_host and ":" in userinfo else None


def _without_credentials(url: str) -> str:
    """`url` with its password (or a user alone) and secret-looking query values as `***`; the
    rest as written (a password a parser cannot tell from the path hides all before the host)."""
    misread = unencoded_userinfo(url)
    if misread is not None:
        return url.replace(f"{misread}@", f"{HIDDEN}@", 1)
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if parts.password is not None:
        netloc = netloc.replace(f":{parts.password}@", f":{HIDDEN}@", 1)
    elif "@" in netloc:  # a user alone is how a token rides in a URL: https://<token>@host
        netloc = f"{HIDDEN}@{netloc.rsplit('@', 1)[1]}"
    query = "&".join(_query_pair(pair) for pair in parts.query.split("&")) if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _query_pair(pair: str) -> str:
    name, equals, _ = pair.partition("=")
    return f"{name}={HIDDEN}" if equals and SECRET_NAME.search(unquote_plus(name)) else pair


def shown_url(url: str, secrets: Secrets = ()) -> str:
    """`url` without its password, secret-looking query values or any of `secrets` (as the config
    wrote it, when `secrets` is what it expanded and the URL one of its strings)."""
    if isinstance(secrets, Expanded):
        written = secrets.written.get(url)
        return _without_credentials(written) if written is not None else shown_text(_without_credentials(url), secrets)
    return without(_without_credentials(url), secrets)


def url_secrets(url: str) -> list[str]:
    """The values `shown_url` hides in `url` (its password, or a user alone, and the values of
    secret-looking query parameters), each as written and decoded.

    Example:
        >>> url_secrets("https://user:hunter2@api.example.com/v1?key=a%2Bb&q=cats")
        ['hunter2', 'a%2Bb', 'a+b']
    """
    misread = unencoded_userinfo(url)
    if misread is not None:
        return [misread, misread.partition(":")[2]]
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
    """The command line, with `secrets` (and URL passwords or secret query values) taken out; a
    word a config expanded (`secrets` an `Expanded`) is shown as the config wrote it. A credential
    written into the arguments as it is (a client's file often does) is shown as `***`: the value
    of a flag whose name says it is one, and of a header whose name does (`arguments_hidden`).

    Example:
        >>> shown_command("npx", ["mcp-remote", "--header", "Authorization: Bearer t0k3n", "--api-key=k3y"])
        'npx mcp-remote --header Authorization: Bearer *** --api-key=***'
    """
    words = [command, *args]
    hidden = [command, *arguments_hidden(args)]
    shown = []
    for word, without_credentials in zip(words, hidden, strict=True):
        said = _shown_word(word, secrets)
        shown.append(said if said != word else without_credentials)
    return " ".join(shown)


def _shown_word(word: str, secrets: Secrets) -> str:
    if "://" in word:
        return shown_url(word, secrets)
    if isinstance(secrets, Expanded):
        return secrets.written.get(word) or shown_text(word, secrets)
    return without(word, secrets)


_FLAG = re.compile(r"(--?[A-Za-z][\w.-]*)(?:=(.*))?", re.DOTALL)
HEADER_FLAGS = frozenset({"-H", "--header", "--headers"})
"""Flags whose value is an HTTP header, `Name: value` (`mcp-remote --header`, `curl -H`)."""


def arguments_hidden(args: Sequence[str]) -> list[str]:
    """`args` with each credential given as an argument shown as `***`: the value of a flag whose
    name says it is one (`--api-key K`, `--token=K`) and of a header flag's header whose name does
    (`--header "Authorization: Bearer K"`: the scheme stays, as `Bearer ***`).

    Example:
        >>> arguments_hidden(["--token", "t0k3n", "-H", "X-Api-Key:k3y", "--port", "8080", "--password=pw"])
        ['--token', '***', '-H', 'X-Api-Key:***', '--port', '8080', '--password=***']
    """
    shown = list(args)
    for index, word in enumerate(args):
        flag = _FLAG.fullmatch(word)
        if flag is None:
            continue
        name, value = flag.groups()
        if value is not None:
            shown[index] = f"{name}={_hidden_value(name, value)}"
        elif index + 1 < len(args) and not args[index + 1].startswith("-"):
            shown[index + 1] = _hidden_value(name, args[index + 1])
    return shown


def _hidden_value(flag: str, value: str) -> str:
    """The value of `flag` as shown: hidden when the flag, or the header it gives, names a credential."""
    if flag in HEADER_FLAGS:
        name, colon, rest = value.partition(":")
        if not colon or not is_credential_name(name.strip()):
            return value
        space = rest[: len(rest) - len(rest.lstrip())]
        return f"{name}:{space}{_hidden_value('--' + name.strip(), rest.strip())}"
    if not is_credential_name(flag.lstrip("-")) or not value:
        return value
    scheme, space, rest = value.partition(" ")
    return f"{scheme} {HIDDEN}" if space and scheme.lower() in AUTH_SCHEMES and rest.strip() else HIDDEN


def quoted_forms(value: str) -> set[str]:
    """`value` in each form a message may quote it: as it is, JSON-escaped (ASCII or not) and
    URL-encoded (path, component, form).

    Example:
        >>> sorted(quoted_forms("a/b c"))
        ['a%2Fb%20c', 'a%2Fb+c', 'a/b c', 'a/b%20c']
    """
    escaped = json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]
    return {value, *escaped, quote(value), quote(value, safe=""), quote_plus(value)}
