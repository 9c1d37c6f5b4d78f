"""`task_support` in config files: per tool and by selector."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolweave import ConfigError
from toolweave.config import build
from toolweave.config.loading import validate
from toolweave.config.models import Config

FIXTURES = Path(__file__).resolve().parents[1] / "config" / "fixtures"


def compose(data: dict[str, Any]) -> Any:
    return build(Config.model_validate(data), base_dir=FIXTURES)


def test_a_tool_entry_sets_task_support() -> None:
    composed = compose({"python": [{"import": "calc:server", "tools": {"add": {"task_support": "required"}}}]})
    catalog = composed.server.catalog
    assert (catalog.get("add").tool.task_support, catalog.get("divide").tool.task_support) == ("required", "none")


def test_a_transform_rule_sets_task_support_by_glob() -> None:
    composed = compose({"python": ["calc:server"], "transforms": [{"tools": "d*", "task_support": "optional"}]})
    assert composed.server.catalog.get("divide").tool.task_support == "optional"


def test_an_unknown_task_support_is_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError) as raised:
        validate({"python": [{"import": "calc:server", "tools": {"add": {"task_support": "always"}}}]})
    assert "task_support" in str(raised.value) and "optional" in str(raised.value)


def test_the_server_section_sets_how_tasks_are_kept() -> None:
    from toolweave.tasks import tasks_settings

    tasks = {"keep": 60, "answer_within": 0.05, "max_per_caller": 50}
    composed = compose({"server": {"tasks": tasks}, "python": ["calc:server"]})
    settings = tasks_settings(composed.server)
    assert (settings.keep, settings.answer_within, settings.poll_interval) == (60, 0.05, 0.5)
    assert settings.max_per_caller == 50


@pytest.mark.parametrize(("key", "value"), [("keep", -1), ("max_per_caller", 0), ("max_per_caller", 2.5)])
def test_a_tasks_setting_out_of_range_is_a_config_error(key: str, value: float) -> None:
    with pytest.raises(ConfigError) as raised:
        validate({"server": {"tasks": {key: value}}})
    assert f"server.tasks.{key}" in str(raised.value)
