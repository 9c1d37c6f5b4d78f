"""What the call span and metrics say about a tool: exposed name, original name, origin."""

from __future__ import annotations

from toolweave import Server
from toolweave.telemetry.calls import CallLabels, labels_for
from toolweave.transforms import Rename


def exposed(server: Server, name: str) -> CallLabels:
    return labels_for(server.catalog.get(name).tool)


def test_mounts_make_the_origin_from_the_outside_in_and_keep_the_original_name() -> None:
    stripe = Server("stripe")
    stripe.add_tool(lambda amount: amount, name="charge")
    billing = Server("billing")
    billing.mount(stripe, prefix="stripe")
    gateway = Server("gateway")
    gateway.mount(billing, prefix="billing")
    gateway.add_transform(Rename("pay"), tools="billing_stripe_charge")
    assert exposed(gateway, "pay") == CallLabels("pay", "charge", "billing/stripe")


def test_a_mount_without_a_prefix_is_named_for_its_server() -> None:
    tools = Server("tools")
    tools.add_tool(lambda: "pong", name="ping")
    gateway = Server("gateway")
    gateway.mount(tools)
    assert exposed(gateway, "ping") == CallLabels("ping", "ping", "tools")
