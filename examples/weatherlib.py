"""A stand-in for a third-party weather library (the kind of code you do not own).

Its function has a terse name, a cryptic `q` argument, an `api_key` the model must never see
and a `debug` flag the model should not touch. `examples/wrap.yaml` turns it into a clean tool.
"""

from __future__ import annotations

import hashlib


def fetch_forecast(q: str, days: int = 3, api_key: str = "", debug: bool = False) -> dict[str, object]:
    """fetch_forecast(q, days, api_key, debug) -> dict. See API docs v2, section 4.1.

    Args:
        q: location query (city[,country])
        days: number of days
        api_key: API key from the vendor portal
        debug: include raw vendor payload
    """
    if not api_key:
        raise PermissionError("weatherlib: missing API key")
    seed = int(hashlib.sha256(q.lower().encode()).hexdigest(), 16)
    outlook = ["sunny", "cloudy", "rain", "windy", "snow"]
    forecast = [
        {
            "day": day + 1,
            "outlook": outlook[(seed >> day) % len(outlook)],
            "high_c": (seed >> (3 * day)) % 15 + 10,
        }
        for day in range(days)
    ]
    result: dict[str, object] = {"city": q, "forecast": forecast}
    if debug:
        result["raw"] = {"vendor_seed": seed % 1000}
    return result
